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

func TestEscaped(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                                  "",
		"plain text\n\twith a tab, é and 字": "plain text\n\twith a tab, é and 字",
		"windows\r\nlines\r\n":              "windows\r\nlines\r\n",
		"progress 10%\rprogress 20%":        `progress 10%\rprogress 20%`,
		"ends in a CR\r":                    `ends in a CR\r`,
		"copy \x1b]52;c;SGVsbG8=\x07 me":    `copy \x1b]52;c;SGVsbG8=\a me`,
		"\x1b]0;a title\x1b\\":              `\x1b]0;a title\x1b\`,
		"clear \x1b[2J\x1b[H":               `clear \x1b[2J\x1b[H`,
		"C1 \u009b2J and \u0085":            `C1 \u009b2J and \u0085`,
		"DEL \x7f, NUL \x00, BS \b":         `DEL \x7f, NUL \x00, BS \b`,
		"not UTF-8: \x9b2J \xff":            `not UTF-8: \x9b2J \xff`,
		"a backslash \\ stays":              `a backslash \ stays`,
	} {
		if got := Escaped(in); got != want {
			t.Errorf("Escaped(%q) = %q; want %q", in, got, want)
		}
	}
}
