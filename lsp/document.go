package lsp

import (
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
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
	tomlTopKey = regexp.MustCompile(`^(version|steps)[ \t]*=`)
	tomlSteps  = regexp.MustCompile(`^\[\[[ \t]*steps[ \t]*\]\]`)
	hclProcess = regexp.MustCompile(`(?m)^(version[ \t]*=|step[ \t]+")`)
)

// tomlProcess reports whether a TOML text looks like a process file.
func tomlProcess(text string) bool {
	top := true
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case tomlSteps.MatchString(line):
			return true
		case strings.HasPrefix(line, "["):
			top = false
		case top && tomlTopKey.MatchString(line):
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
	case strings.HasSuffix(base, ".hcl") && (inProcesses || hclProcess.MatchString(text)):
		return kindHCL
	}
	return kindNone
}

// document is one open document: its text as the editor holds it.
type document struct {
	uri     protocol.DocumentUri
	path    string
	version protocol.Integer
	text    string
	// lines are the text's lines without their line ends.
	lines []string
	kind  docKind
}

func newDocument(uri protocol.DocumentUri, version protocol.Integer, text, home string) *document {
	d := &document{uri: uri, path: pathOf(uri), version: version}
	d.setText(text, home)
	return d
}

func (d *document) setText(text, home string) {
	d.text = text
	d.lines = strings.Split(text, "\n")
	for i, l := range d.lines {
		d.lines[i] = strings.TrimSuffix(l, "\r")
	}
	d.kind = kindOf(d.path, text, home)
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

// line is the text of line i (0-based), "" past the end.
func (d *document) line(i int) string {
	if i < 0 || i >= len(d.lines) {
		return ""
	}
	return d.lines[i]
}

// position is the LSP position of p, whose column counts characters from
// 1: LSP counts UTF-16 code units from 0, so a character outside the BMP
// counts two.
func (d *document) position(p ir.Pos) protocol.Position {
	if !p.IsValid() {
		return protocol.Position{}
	}
	line := int(p.Line) - 1
	if line >= len(d.lines) {
		line = len(d.lines) - 1
		return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(utf16Len(d.lines[line]))}
	}
	col, n := 0, 0
	for _, r := range d.lines[line] {
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
func (d *document) byteCol(p protocol.Position) int {
	line := d.line(int(p.Line))
	units := 0
	for i, r := range line {
		if units >= int(p.Character) {
			return i
		}
		units += utf16.RuneLen(r)
	}
	return len(line)
}

// clamp returns p moved into d: a position past the last line is the end of
// the document, in time that does not grow with the line asked for (a
// character past the end of its line is read as that end where it is
// used).
func (d *document) clamp(p protocol.Position) protocol.Position {
	if last := len(d.lines) - 1; int(p.Line) > last {
		return protocol.Position{Line: protocol.UInteger(last), Character: protocol.UInteger(utf16Len(d.lines[last]))}
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
