package lsp

import (
	"encoding/json"
	"strings"
	"testing"
)

// textStrings are JSON strings whose unquoting could go wrong: every
// escape, surrogate pairs and halves, invalid UTF-8, long runs.
var textStrings = []string{
	`""`,
	`"plain"`,
	`"a\"b\\c\/d\'e\bf\fg\nh\ri\tj"`,
	`"\u0041\u00e9\u4e2d\ud83d\ude00"`,
	`"\ud83d"`,
	`"\ud83dx\ude00"`,
	`"\ud83d\u0041"`,
	`"\uDFFF\uD800"`,
	"\"\xff\xfe é \xe2\x82\"",
	`"` + strings.Repeat(`[\n`, 1000) + `"`,
	`null`,
}

// TestDocumentText: a document's text is unquoted as encoding/json
// unquotes a string.
func TestDocumentText(t *testing.T) {
	for _, s := range textStrings {
		checkDocumentText(t, []byte(s))
	}
}

// FuzzDocumentText: TestDocumentText on any JSON string.
func FuzzDocumentText(f *testing.F) {
	for _, s := range textStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkDocumentText(t, []byte(s))
	})
}

func checkDocumentText(t *testing.T, data []byte) {
	t.Helper()
	want := "unchanged"
	if json.Unmarshal(data, &want) != nil {
		return
	}
	got := documentText("unchanged")
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%q: %v", data, err)
	}
	if string(got) != want {
		t.Errorf("%q: unquoted %q; want %q", data, got, want)
	}
}
