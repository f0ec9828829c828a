// Package text holds the string helpers several packages share for showing
// what a program wrote: its first line, its end.
package text

import (
	"bytes"
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
