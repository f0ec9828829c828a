// Package text holds the string helpers several packages share for showing
// what a program wrote: its first line, its end, and the text escaped for a
// terminal.
package text

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FirstLine is the first non-blank line of s, trimmed.
func FirstLine(s string) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

// Tail is the end of out, at most limit bytes starting at a line, and
// whether it was cut.
func Tail(out []byte, limit int) (string, bool) {
	if len(out) <= limit {
		return strings.ToValidUTF8(string(out), "\uFFFD"), false
	}
	b := out[len(out)-limit:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
		b = b[i+1:]
	}
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), true
}

// Head is the start of s, at most limit bytes ending at a line's end when
// one falls in the second half, never inside a character, and whether it
// was cut.
func Head(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return strings.ToValidUTF8(s, "\uFFFD"), false
	}
	b := s[:limit]
	if i := strings.LastIndexByte(b, '\n'); i >= limit/2 {
		b = b[:i+1]
	}
	for len(b) > 0 && !utf8.RuneStart(s[len(b)]) {
		b = b[:len(b)-1]
	}
	return strings.ToValidUTF8(b, "\uFFFD"), true
}

// Escaped is s as a terminal may be given it: every control character but
// newline and tab (the C0 controls, DEL, the C1 controls U+0080–U+009F, and
// a carriage return not followed by a newline) and every byte that is not
// UTF-8, which a terminal would act on (an OSC 52 that sets the clipboard,
// a title, a screen cleared) rather than show, is written as Go writes it
// in a string: \r, \x1b, \x7f, \u009b, \xff. It is for showing text cairn
// did not write (a result, a cause, a program's output) on a terminal;
// files keep the bytes.
func Escaped(s string) string {
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == utf8.RuneError && size == 1:
			esc = fmt.Sprintf(`\x%02x`, s[i])
		case isControl(r) && !(r == '\r' && strings.HasPrefix(s[i+1:], "\n")):
			q := strconv.QuoteRune(r)
			esc = q[1 : len(q)-1]
		}
		if esc != "" {
			b.WriteString(s[done:i])
			b.WriteString(esc)
			done = i + size
		}
		i += size
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// isControl reports whether r is a control character: C0, DEL or C1;
// newline and tab are not, being shown as they are.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}
