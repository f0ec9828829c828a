package ir

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Fix is a change that resolves a diagnostic, as go/analysis's
// SuggestedFix is: a one-line lowercase Message for a person choosing it
// (`change "commnd" to "command"`) and the Edits that make it. The edits
// are all in the diagnostic's file, and no two of them overlap.
type Fix struct {
	Message string
	Edits   []Edit
}

// Edit replaces the text of Range with NewText; an empty Range (End at
// Start) inserts NewText there. Range's positions are those of every
// range: lines and columns of the file, offsets of its text as the
// front-ends read it (package source's Text).
type Edit struct {
	Range   Range
	NewText string
}

// Change returns the fix that makes the word at r, which reads old, read
// want: a key or a name written bare, or a string value written in double
// or single quotes on one line (the quotes stay, only what is between them
// changes). src is the text r points into. It returns nil when want is
// empty or the same as old, when the text at r is not old so written (a
// string with escapes, over several lines), and when want could not stand
// in its place without quoting of its own.
func Change(src []byte, r Range, old, want string) []Fix {
	e, ok := ChangeEdit(src, r, old, want)
	if !ok {
		return nil
	}
	return []Fix{{Message: fmt.Sprintf("change %q to %q", old, want), Edits: []Edit{e}}}
}

// ChangeEdit is the edit of Change, and whether there is one.
func ChangeEdit(src []byte, r Range, old, want string) (Edit, bool) {
	start, end := int(r.Start.Offset), int(r.End.Offset)
	if want == "" || want == old || !r.IsValid() || !r.End.IsValid() || start < 0 || end < start || end > len(src) ||
		strings.ContainsAny(old, "\n\r") {
		return Edit{}, false
	}
	text := string(src[start:end])
	if text == old {
		if !bareWord(want) {
			return Edit{}, false
		}
		return Edit{Range: r, NewText: want}, true
	}
	if len(text) == len(old)+2 && (text[0] == '"' || text[0] == '\'') && text[len(text)-1] == text[0] &&
		text[1:len(text)-1] == old && r.Start.Line == r.End.Line && quotedWord(want) {
		inner := r
		inner.Start.Column++
		inner.Start.Offset++
		inner.End.Column--
		inner.End.Offset--
		return Edit{Range: inner, NewText: want}, true
	}
	return Edit{}, false
}

// quotedWord reports whether s may stand between quotes of any of the
// formats cairn reads (TOML's basic and literal strings, HCL's strings,
// YAML's quoted scalars) as itself: letters, digits and _ . : / @ + -,
// none of which any of them escapes or reads as the start of a template.
func quotedWord(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("_.:/@+-", c):
		default:
			return false
		}
	}
	return true
}

// bareWord reports whether s may stand unquoted where a bare word of the
// formats cairn reads stands (a TOML key, an HCL name, a YAML plain
// scalar) and still be read as the same string: a quotedWord that starts
// with a letter, a digit or _, does not end in ":", and that YAML reads as
// no number, boolean or null.
func bareWord(s string) bool {
	if !quotedWord(s) || strings.HasSuffix(s, ":") {
		return false
	}
	c := s[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n":
		return false
	}
	if _, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil {
		return false
	}
	if _, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64); err == nil {
		return false
	}
	return true
}

// Insert returns the edit that inserts text at p.
func Insert(file string, p Pos, text string) Edit {
	return Edit{Range: Range{File: file, Start: p, End: p}, NewText: text}
}

// DeleteLines returns the edit that deletes the lines r lies on, r being
// all they hold but blanks and a comment at the end (# or //): a key = value
// written on lines of its own, removed with its newline. It returns false
// when the lines hold anything else, such as another key of an inline
// table.
func DeleteLines(src []byte, r Range) (Edit, bool) {
	start, end := int(r.Start.Offset), int(r.End.Offset)
	if !r.IsValid() || !r.End.IsValid() || start < 0 || end < start || end > len(src) {
		return Edit{}, false
	}
	from := start
	for from > 0 && (src[from-1] == ' ' || src[from-1] == '\t') {
		from--
	}
	if from > 0 && src[from-1] != '\n' {
		return Edit{}, false
	}
	to := end
	for to < len(src) && (src[to] == ' ' || src[to] == '\t') {
		to++
	}
	rest := src[to:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	if len(rest) > 0 && rest[0] != '#' && !bytes.HasPrefix(rest, []byte("//")) {
		return Edit{}, false
	}
	to += len(rest)
	startPos := Pos{Line: r.Start.Line, Column: r.Start.Column - int32(utf8.RuneCount(src[from:start])), Offset: int32(from)}
	endPos := Pos{Line: r.End.Line, Column: r.End.Column + int32(utf8.RuneCount(src[end:to])), Offset: int32(to)}
	if to < len(src) {
		endPos = Pos{Line: r.End.Line + 1, Column: 1, Offset: int32(to + 1)}
	}
	return Edit{Range: Range{File: r.File, Start: startPos, End: endPos}, NewText: ""}, true
}
