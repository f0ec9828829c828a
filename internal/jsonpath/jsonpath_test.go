package jsonpath

import (
	"encoding/json"
	"testing"
)

func TestFind(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"total_cost_usd":0.5,"usage":{"input_tokens":12},"stats":{"models":[{"tokens":{"in-put":3}},{"n":[1,[2,7]]}]}}`), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want any
		ok   bool
	}{
		{".total_cost_usd", 0.5, true},
		{".usage.input_tokens", 12.0, true},
		{".stats.models[0].tokens.in-put", 3.0, true},
		{".stats.models[1].n[1][1]", 7.0, true},
		{".stats.models[2]", nil, false},
		{".usage.output_tokens", nil, false},
		{".total_cost_usd.x", nil, false},
		{".usage[0]", nil, false},
	} {
		p, err := Parse(tc.path)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.path, err)
		}
		got, ok := p.Find(doc)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: got %v, %v; want %v, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
	p, _ := Parse(".")
	if got, ok := p.Find(3.0); !ok || got != 3.0 {
		t.Errorf(".: got %v, %v; want the document", got, ok)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"", `a path starts with ".", such as ".usage.input_tokens"`},
		{"usage", `a path starts with ".", such as ".usage.input_tokens"`},
		{".a..b", `no key after the "." at 3; keys are letters, digits, _ and -`},
		{".a.", `no key after the "." at 3; keys are letters, digits, _ and -`},
		{".a[1", `the "[" at 3 is not closed`},
		{".a[x]", `index "x" at 4 is not a number from 0`},
		{".a[-1]", `index "-1" at 4 is not a number from 0`},
		{".a[+1]", `index "+1" at 4 is not a number from 0`},
		{".a b", `unexpected " " at 3; a path is .KEY and [N] only`},
		{".a|.b", `unexpected "|" at 3; a path is .KEY and [N] only`},
	} {
		_, err := Parse(tc.path)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q) = %v; want %q", tc.path, err, tc.want)
		}
	}
}
