// Package ir holds cairn's typed intermediate representation: the process as
// written (with a source range on every key and value), the resolved plan, and
// the diagnostic every stage reports.
package ir

import "fmt"

// Pos is a position in a file: Line and Column are 1-based, Column counts
// characters (runes) from the start of the line, and Offset is the byte offset
// from the start of the file. The zero Pos means "no position". The fields are
// int32 because a file keeps two ranges for every key and value: with int a
// Range took 64 bytes, with int32 40. cairn reads no file over 16 MiB.
type Pos struct {
	Line   int32 `json:"line"`
	Column int32 `json:"column"`
	Offset int32 `json:"-"`
}

// IsValid reports whether p points into a file.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Range is a span of a file: Start is inclusive, End exclusive. A Range with an
// empty File belongs to no file (a process not found, a bad flag).
type Range struct {
	File  string
	Start Pos
	End   Pos
}

// IsValid reports whether r points into a file.
func (r Range) IsValid() bool { return r.Start.IsValid() }

// String formats r as "file:line:col", the way diagnostics print it.
func (r Range) String() string {
	if !r.IsValid() {
		return r.File
	}
	return fmt.Sprintf("%s:%d:%d", r.File, r.Start.Line, r.Start.Column)
}

// FileStart is the range 1:1 of file, where rules about the file as a whole
// point (a missing version, the file's name).
func FileStart(file string) Range {
	p := Pos{Line: 1, Column: 1}
	return Range{File: file, Start: p, End: Pos{Line: 1, Column: 2, Offset: 1}}
}

// Span maps a stretch of a string value back to the file: the value's bytes
// from Offset up to the next Span's Offset were copied verbatim from the file
// starting at Start (a newline in the value is a newline in the file). A new
// Span starts wherever the front-end decoded an escape sequence or skipped
// indentation, so positions inside scripts land on the file's own characters.
type Span struct {
	Offset int32
	Start  Pos
}

// Field is one key = value of a process file: the decoded Value, whether the
// key was present at all, where the key and the value are, and for string
// values the Spans mapping the value's bytes back into the file. Bad marks a
// key that was present but refused by the front-end (a wrong type): Set is
// true so no rule calls it missing, and rules skip its Value.
type Field[T any] struct {
	Value T
	Set   bool
	Bad   bool
	Key   Range
	Range Range
	Spans []Span
}

// At returns the range of the whole key = value when the key is known, else
// the value's range.
func (f Field[T]) At() Range {
	if f.Key.IsValid() {
		r := f.Key
		if f.Range.IsValid() {
			r.End = f.Range.End
		}
		return r
	}
	return f.Range
}

// PosAt maps a byte offset inside a string value to its position in the file,
// using the value's Spans. Without spans it falls back to the value's start.
func PosAt(value string, spans []Span, offset int) Pos {
	if len(spans) == 0 {
		return Pos{}
	}
	i := 0
	for i+1 < len(spans) && int(spans[i+1].Offset) <= offset {
		i++
	}
	s := spans[i]
	p := s.Start
	if offset > len(value) {
		offset = len(value)
	}
	for _, r := range value[s.Offset:offset] {
		if r == '\n' {
			p.Line++
			p.Column = 1
		} else {
			p.Column++
		}
	}
	p.Offset = s.Start.Offset + int32(offset) - s.Offset
	return p
}
