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
