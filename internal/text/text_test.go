package text

import (
	"strings"
	"testing"
)

func TestFirstLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                            "",
		"fatal: one\n":                "fatal: one",
		"\n  fatal: two  \nhint: x\n": "fatal: two",
		" \t\n\nlast":                 "last",
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	out := []byte("line 1\nline 2\nline 3\n")
	if got, cut := Tail(out, 100); got != string(out) || cut {
		t.Errorf("Tail(short) = %q, %v", got, cut)
	}
	if got, cut := Tail(out, 10); got != "line 3\n" || !cut {
		t.Errorf("Tail(long) = %q, %v; want the last whole line", got, cut)
	}
	if got, _ := Tail([]byte(strings.Repeat("é", 10)), 5); !strings.HasPrefix(got, "é") {
		t.Errorf("Tail cut inside a character: %q", got)
	}
}

func TestHead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		limit int
		want  string
		cut   bool
	}{
		{"short", 10, "short", false},
		{"one\ntwo\nthree\n", 10, "one\ntwo\n", true},
		{"abcdefghij", 4, "abcd", true},
		{"a\nbcdefghij", 8, "a\nbcdefg", true}, // the line's end is too early to cut at
		{"ab€cd", 4, "ab", true},               // never inside a character
	} {
		got, cut := Head(tc.in, tc.limit)
		if got != tc.want || cut != tc.cut {
			t.Errorf("Head(%q, %d) = %q, %v; want %q, %v", tc.in, tc.limit, got, cut, tc.want, tc.cut)
		}
	}
}
