package lsp

import (
	"iter"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
	"github.com/cairn-dev/cairn/stubs"
)

// docKind says which front-end reads a document.
type docKind int

// The kinds of documents the server knows.
const (
	kindNone docKind = iota
	kindTOML
	kindHCL
	kindCard
	kindConfig
	kindStubs
	kindTest
)

// keys are the key table of the front-end that reads a document of kind k.
func (k docKind) keys() []ir.Key {
	switch k {
	case kindTOML, kindHCL:
		return parse.TOMLKeys
	case kindCard:
		return parse.CardKeys
	case kindConfig:
		return config.Keys
	case kindStubs:
		return stubs.StubsKeys
	case kindTest:
		return stubs.TestKeys
	}
	return nil
}

// A .toml or .hcl file that is not in cairn's folders is a process file when
// it looks like one (a version or steps at its top level): other tools'
// files of those formats (Cargo.toml, terragrunt.hcl) get nothing from this
// server.
var (
	tomlTopKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(version|steps)[ \t]*=`) })
	tomlSteps  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[\[[ \t]*steps[ \t]*\]\]`) })
	hclProcess = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(version[ \t]*=|step[ \t]+")`) })
)

// tomlProcess reports whether a TOML text looks like a process file.
func tomlProcess(text string) bool {
	top := true
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		switch {
		case tomlSteps().MatchString(line):
			return true
		case strings.HasPrefix(line, "["):
			top = false
		case top && tomlTopKey().MatchString(line):
			return true
		}
	}
	return false
}

// kindOf says which front-end reads the file path holding text; home is
// $CAIRN_HOME as the file's folder sees it.
func kindOf(path, text, home string) docKind {
	base := filepath.Base(path)
	inProcesses := filepath.Dir(path) == filepath.Join(home, "processes")
	switch {
	case path == config.Path(home):
		return kindConfig
	case strings.HasSuffix(base, parse.StubsSuffix):
		return kindStubs
	case strings.HasSuffix(base, parse.TestSuffix):
		return kindTest
	case strings.HasSuffix(base, parse.CardSuffix):
		return kindCard
	case strings.HasSuffix(base, ".toml") && (inProcesses || tomlProcess(text)):
		return kindTOML
	case strings.HasSuffix(base, ".hcl") && (inProcesses || hclProcess().MatchString(text)):
		return kindHCL
	}
	return kindNone
}

// document is one open document: its text as the editor holds it.
type document struct {
	uri     protocol.DocumentUri
	path    string
	version protocol.Integer
	indexedText
	kind docKind
}

func newDocument(uri protocol.DocumentUri, version protocol.Integer, text, home string) *document {
	d := &document{uri: uri, path: pathOf(uri), version: version}
	d.setText(text, home)
	return d
}

func (d *document) setText(text, home string) {
	d.indexedText = indexText(text)
	d.kind = kindOf(d.path, text, home)
}

// lineStride is how many lines apart the starts an indexedText records
// are. A string for each line took 16 bytes a line (a document of 16 MiB
// of brackets, one a line, took 128 MiB); a start every 32 lines takes a
// quarter of a byte a line, and finding a line reads at most 31 others.
const lineStride = 32

// indexedText is a text and where its lines start, for finding a line
// without reading the text from its start.
type indexedText struct {
	text string
	// starts holds the byte offset of the start of every lineStride-th
	// line: of line i*lineStride at i.
	starts []int
	// lines is how many lines the text has: one more than its newlines.
	lines int
}

// indexText returns text with its lines indexed. It reads the text a byte
// at a time: strings.IndexByte from line to line took four times as long
// on a text of short lines.
func indexText(text string) indexedText {
	t := indexedText{text: text, starts: make([]int, 1, 1+strings.Count(text, "\n")/lineStride), lines: 1}
	for i := 0; i < len(text); i++ {
		if text[i] != '\n' {
			continue
		}
		if t.lines%lineStride == 0 {
			t.starts = append(t.starts, i+1)
		}
		t.lines++
	}
	return t
}

// lineStart is the byte offset of the start of line i (0-based), which
// is one of the text's lines.
func (t *indexedText) lineStart(i int) int {
	off := t.starts[i/lineStride]
	for range i % lineStride {
		off += strings.IndexByte(t.text[off:], '\n') + 1
	}
	return off
}

// line is the text of line i (0-based) without its line end, "" past the
// end.
func (t *indexedText) line(i int) string {
	if i < 0 || i >= t.lines {
		return ""
	}
	return lineAt(t.text, t.lineStart(i))
}

// lineAt is the line of text that starts at byte offset off, without its
// line end.
func lineAt(text string, off int) string {
	line := text[off:]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	return strings.TrimSuffix(line, "\r")
}

// linesBefore yields the lines of the text before line n (0-based), each
// with its number, reading the text once.
func (t *indexedText) linesBefore(n int) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		off := 0
		for i := range min(n, t.lines) {
			line := lineAt(t.text, off)
			if !yield(i, line) {
				return
			}
			off += strings.IndexByte(t.text[off:], '\n') + 1
		}
	}
}

// pathOf is the file a file: URI names; another URI is kept as it is.
func pathOf(uri protocol.DocumentUri) string {
	u, err := url.Parse(string(uri))
	if err != nil || u.Scheme != "file" {
		return string(uri)
	}
	return filepath.FromSlash(u.Path)
}

// uriOf is the file: URI of path.
func uriOf(path string) protocol.DocumentUri {
	return protocol.DocumentUri((&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String())
}

// position is the LSP position of p, whose column counts characters from
// 1: LSP counts UTF-16 code units from 0, so a character outside the BMP
// counts two.
func (d *document) position(p ir.Pos) protocol.Position {
	if !p.IsValid() {
		return protocol.Position{}
	}
	line := int(p.Line) - 1
	if line >= d.lines {
		line = d.lines - 1
		return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(utf16Len(d.line(line)))}
	}
	col, n := 0, 0
	for _, r := range d.line(line) {
		if n >= int(p.Column)-1 {
			break
		}
		col += utf16.RuneLen(r)
		n++
	}
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(col)}
}

// rng is the LSP range of r.
func (d *document) rng(r ir.Range) protocol.Range {
	return protocol.Range{Start: d.position(r.Start), End: d.position(r.End)}
}

// byteCol is the byte offset in its line of an LSP position's character.
func (t *indexedText) byteCol(p protocol.Position) int {
	line := t.line(int(p.Line))
	units := 0
	for i, r := range line {
		if units >= int(p.Character) {
			return i
		}
		units += utf16.RuneLen(r)
	}
	return len(line)
}

// clamp returns p moved into t: a position past the last line is the end of
// the text, in time that does not grow with the line asked for (a
// character past the end of its line is read as that end where it is
// used).
func (t *indexedText) clamp(p protocol.Position) protocol.Position {
	if last := t.lines - 1; int(p.Line) > last {
		return protocol.Position{Line: protocol.UInteger(last), Character: protocol.UInteger(utf16Len(t.line(last)))}
	}
	return p
}

// pos is the cairn position (1-based line, column in characters) of an
// LSP position.
func (d *document) pos(p protocol.Position) ir.Pos {
	p = d.clamp(p)
	line := d.line(int(p.Line))
	return ir.Pos{Line: int32(p.Line) + 1, Column: 1 + int32(utf8.RuneCountInString(line[:d.byteCol(p)]))}
}

// lspPos is the LSP position of byte offset col of line.
func (d *document) lspPos(line, col int) protocol.Position {
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(utf16Len(d.line(line)[:col]))}
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// contains reports whether r, a range of this document, holds p (its end
// included: a cursor just after a value is still on it).
func contains(r ir.Range, p ir.Pos) bool {
	if !r.IsValid() {
		return false
	}
	after := func(a, b ir.Pos) bool { return a.Line > b.Line || a.Line == b.Line && a.Column >= b.Column }
	return after(p, r.Start) && after(r.End, p)
}
