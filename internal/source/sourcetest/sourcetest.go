// Package sourcetest is what the tests of the front-ends share: their
// diagnostics as compact lines, and the checks that every position they
// report lies in the text they read and agrees with its offset.
package sourcetest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/textedit"
	"github.com/cairn-dev/cairn/ir"
)

// DiagLines formats diagnostics as "line:col rule: message", with each
// related range as " (related line:col: message)".
func DiagLines(ds []ir.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		s := fmt.Sprintf("%d:%d %s: %s", d.Range.Start.Line, d.Range.Start.Column, d.Rule, d.Message)
		for _, r := range d.Related {
			s += fmt.Sprintf(" (related %d:%d: %s)", r.Range.Start.Line, r.Range.Start.Column, r.Message)
		}
		out = append(out, s)
	}
	return out
}

// Span formats a range as "line:col-line:col".
func Span(r ir.Range) string {
	if !r.IsValid() {
		return "-"
	}
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Column, r.End.Line, r.End.Column)
}

// CheckDiagnostics asserts that every diagnostic points inside src, and
// that each of its fixes edits src inside it, as textedit can.
func CheckDiagnostics(t testing.TB, file string, src []byte, diags []ir.Diagnostic) {
	t.Helper()
	for _, d := range diags {
		if d.Range.File != file {
			t.Errorf("%s: file %q; want %q", d.Message, d.Range.File, file)
		}
		CheckRange(t, src, d.Range, d.Message)
		for _, rel := range d.Related {
			CheckRange(t, src, rel.Range, d.Message+" (related)")
		}
		for _, fix := range d.Fixes {
			for _, e := range fix.Edits {
				if e.Range.File != file {
					t.Errorf("%s: an edit of file %q; want %q", d.Message, e.Range.File, file)
				}
				CheckRange(t, src, e.Range, d.Message+" (fix)")
			}
			if _, err := textedit.Apply(src, fix.Edits); err != nil || fix.Message == "" {
				t.Errorf("%s: fix %+v: %v", d.Message, fix, err)
			}
		}
		if d.Message == "" || d.Rule == "" || d.Severity != ir.Error {
			t.Errorf("incomplete diagnostic %+v", d)
		}
	}
}

// CheckRange asserts that r lies inside src and that its positions agree
// with its offsets.
func CheckRange(t testing.TB, src []byte, r ir.Range, what string) {
	t.Helper()
	lines := bytes.Count(src, []byte("\n")) + 1
	for _, p := range []ir.Pos{r.Start, r.End} {
		if p.Line < 1 || int(p.Line) > lines+1 || p.Column < 1 || p.Offset < 0 || int(p.Offset) > len(src) {
			t.Errorf("%s: position %+v outside the file (%d lines, %d bytes)", what, p, lines, len(src))
			return
		}
		if want := PosOf(src, int(p.Offset)); want != p {
			t.Errorf("%s: position %+v; its offset is at %+v", what, p, want)
		}
	}
	if r.End.Offset < r.Start.Offset {
		t.Errorf("%s: range %+v ends before it starts", what, r)
	}
}

// PosOf is the position of byte off of src, computed the slow way.
func PosOf(src []byte, off int) ir.Pos {
	p := ir.Pos{Line: 1, Column: 1, Offset: int32(off)}
	lineStart := 0
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			p.Line++
			lineStart = i + 1
		}
	}
	p.Column = 1 + int32(len([]rune(string(src[lineStart:off]))))
	return p
}

// CheckSpans asserts that each span of value either starts at an escape
// sequence in the file or was copied verbatim from it, and that ir.PosAt
// agrees with the file's own positions.
func CheckSpans(t testing.TB, src []byte, value string, spans []ir.Span) {
	t.Helper()
	if len(spans) == 0 {
		t.Errorf("string %q has no spans", value)
		return
	}
	for i, s := range spans {
		end := len(value)
		if i+1 < len(spans) {
			end = int(spans[i+1].Offset)
		}
		at, from := int(s.Start.Offset), int(s.Offset)
		if from > end || at > len(src) {
			t.Errorf("string %q: bad span %+v", value, s)
			return
		}
		if want := PosOf(src, at); want != s.Start {
			t.Errorf("string %q: span starts at %+v; its offset is at %+v", value, s.Start, want)
		}
		seg := value[from:end]
		if at < len(src) && src[at] == '\\' && !strings.HasPrefix(seg, "\\") {
			continue // an escape sequence
		}
		if at+len(seg) > len(src) || string(src[at:at+len(seg)]) != seg {
			t.Errorf("string %q: span %d (%q) is not in the file at %d", value, i, seg, s.Start.Offset)
			continue
		}
		for off := from; off < end; off++ {
			if got, want := ir.PosAt(value, spans, off), PosOf(src, at+off-from); got != want {
				t.Errorf("string %q: PosAt(%d) = %+v; want %+v", value, off, got, want)
				break
			}
		}
	}
}
