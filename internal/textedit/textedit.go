// Package textedit applies the edits of fixes to a file's bytes as they are
// on disk, byte order mark and CRLF line endings kept.
package textedit

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/ir"
)

// Apply returns raw, a file's bytes, with edits made. An edit's positions
// are those of the file as the front-ends read it (source.Text): Apply
// finds them in raw by line and column, checks that the text between them
// is what the edit's offsets say the front-end read there, and writes its
// new lines with the file's own line ending. It refuses edits that overlap
// or start at one place (which goes first would be a guess), and a
// position the file does not have; the same edit twice is made once.
func Apply(raw []byte, edits []ir.Edit) ([]byte, error) {
	text := source.Text(raw)
	crlf := !bytes.Equal(text, raw) && bytes.Contains(raw, []byte("\r\n"))
	lines := source.LineStarts(raw)
	bom := 0
	if bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")) {
		bom = 3
	}
	type located struct {
		start, end int
		text       string
	}
	out := make([]located, 0, len(edits))
	for _, e := range edits {
		start, err := offset(raw, lines, bom, e.Range.Start)
		if err != nil {
			return nil, err
		}
		end, err := offset(raw, lines, bom, e.Range.End)
		if err != nil {
			return nil, err
		}
		if end < start {
			return nil, fmt.Errorf("an edit at %d:%d ends before it starts", e.Range.Start.Line, e.Range.Start.Column)
		}
		ts, te := int(e.Range.Start.Offset), int(e.Range.End.Offset)
		if ts < 0 || te < ts || te > len(text) || !bytes.Equal(source.Text(raw[start:end]), text[ts:te]) {
			return nil, fmt.Errorf("an edit at %d:%d does not match the file's text", e.Range.Start.Line, e.Range.Start.Column)
		}
		nt := e.NewText
		if crlf {
			nt = string(bytes.ReplaceAll([]byte(nt), []byte("\n"), []byte("\r\n")))
		}
		out = append(out, located{start, end, nt})
	}
	slices.SortFunc(out, func(a, b located) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end)) })
	out = slices.Compact(out)
	for i := 1; i < len(out); i++ {
		if out[i].start < out[i-1].end || out[i].start == out[i-1].start {
			return nil, errors.New("two edits overlap")
		}
	}
	var b bytes.Buffer
	b.Grow(len(raw))
	at := 0
	for _, e := range out {
		b.Write(raw[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.Write(raw[at:])
	return b.Bytes(), nil
}

// offset is the byte offset in raw of p, counting its column in
// characters from the start of its line (after a byte order mark, bom
// bytes long, on the first). A column may be one past the line's last
// character, where its line ending starts.
func offset(raw []byte, lines []int, bom int, p ir.Pos) (int, error) {
	if p.Line < 1 || int(p.Line) > len(lines) || p.Column < 1 {
		return 0, fmt.Errorf("the file has no position %d:%d", p.Line, p.Column)
	}
	off := lines[p.Line-1]
	if p.Line == 1 {
		off += bom
	}
	for col := int32(1); col < p.Column; col++ {
		if off >= len(raw) || raw[off] == '\n' || raw[off] == '\r' && crlfAt(raw, off) {
			return 0, fmt.Errorf("the file has no position %d:%d", p.Line, p.Column)
		}
		_, size := utf8.DecodeRune(raw[off:])
		off += size
	}
	return off, nil
}

// crlfAt reports whether the carriage returns at off end the line: only
// more of them, then a newline, follow (source.Text reads them as none).
func crlfAt(raw []byte, off int) bool {
	for off < len(raw) && raw[off] == '\r' {
		off++
	}
	return off < len(raw) && raw[off] == '\n'
}
