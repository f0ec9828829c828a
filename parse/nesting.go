package parse

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/ir"
)

// MaxNesting is how deeply an HCL file or a card's front matter may nest
// before its parser is given it: the parsers recurse once a level or more,
// and a file of a million open brackets would overflow the stack (a few
// thousand already cost seconds and hundreds of MiB). A process nests a
// handful of levels; TOML's parser stops at its own limit.
//
// The nesting is counted by a pre-scan of the bytes (hclDepth, cardDepth)
// that builds nothing: it reads the file once, allocates two stacks of at
// most MaxNesting levels, and stops at the first token that goes too deep,
// so that refusing a file of 16 MiB costs one pass over it at most, a
// fraction of a second (see BenchmarkDeepRefusal).
const MaxNesting = 100

// depth is what a pre-scan found: the deepest level it reached before it
// stopped and, when a token went deeper than the limit, where that token
// lies in the file.
type depth struct {
	deepest    int
	over       bool
	start, end int
}

// nesting tracks how deeply the tokens of a file nest, as a parser would
// recurse on them: each open bracket is a level, plus the operators it
// recurses on (prefix operators, conditionals, node properties) since the
// last item of that bracket began, which do not close.
type nesting struct {
	// open holds, for each open level, its kind and the operators counted
	// in the level around it when it opened.
	open []openLevel
	// depth is the levels open and the operators counted around them;
	// pending is the operators of the current item.
	depth, pending int
}

// openLevel is one level of nesting: what closes it, and the operators of
// the level around it, counted again once it closes.
type openLevel struct {
	kind    int
	pending int
}

// newNesting returns a nesting whose stack holds the levels a pre-scan with
// limit can open before it stops: each level counts at least one.
func newNesting(limit int) nesting {
	return nesting{open: make([]openLevel, 0, min(limit, 4*MaxNesting)+2)}
}

// push opens a level of kind.
func (n *nesting) push(kind int) {
	n.open = append(n.open, openLevel{kind: kind, pending: n.pending})
	n.depth += 1 + n.pending
	n.pending = 0
}

// pop closes the innermost open level of kind a or b, and every level
// inside it, which a syntax error left open; a closer that matches no open
// level closes none.
func (n *nesting) pop(a, b int) {
	for i := len(n.open) - 1; i >= 0; i-- {
		if k := n.open[i].kind; k != a && k != b {
			continue
		}
		for j := len(n.open) - 1; j >= i; j-- {
			n.depth -= 1 + n.open[j].pending
		}
		n.pending = n.open[i].pending
		n.open = n.open[:i]
		return
	}
}

// top is the kind of the innermost open level, or 0 when none is.
func (n *nesting) top() int {
	if len(n.open) == 0 {
		return 0
	}
	return n.open[len(n.open)-1].kind
}

// level is how deep the current token is.
func (n *nesting) level() int {
	return n.depth + n.pending
}

// reach records that the token of bytes start up to end is level deep. It
// reports whether that is deeper than limit, which ends the scan: d then
// holds the token.
func (d *depth) reach(level, limit, start, end int) bool {
	if level > limit {
		d.over, d.start, d.end = true, start, end
		return true
	}
	d.deepest = max(d.deepest, level)
	return false
}

// byteRange is the range of bytes start up to end of src, the file named
// file, counted without the index of line starts a front-end builds: the
// refusal of a file before it is parsed reads it once more, up to the
// range, and keeps nothing.
func byteRange(file string, src []byte, start, end int) ir.Range {
	start = clampOffset(start, src)
	end = clampOffset(max(start, end), src)
	from := movePos(src, ir.Pos{Line: 1, Column: 1}, 0, start)
	return ir.Range{File: file, Start: from, End: movePos(src, from, start, end)}
}

// movePos returns the position of byte offset to of src, given p, the
// position of byte offset from.
func movePos(src []byte, p ir.Pos, from, to int) ir.Pos {
	span := src[from:to]
	if lines := bytes.Count(span, []byte{'\n'}); lines > 0 {
		last := bytes.LastIndexByte(span, '\n') + 1
		p.Line += int32(lines)
		p.Column = 1
		span = span[last:]
	}
	p.Column += int32(utf8.RuneCount(span))
	p.Offset = int32(to)
	return p
}

// tooDeep is the refusal of src, the file named file, for the token d found
// nested deeper than MaxNesting; format words it, with MaxNesting.
func tooDeep(file string, src []byte, d depth, format string) ir.Diagnostic {
	return ir.Diagnostic{
		Rule:     ir.RuleSyntax,
		Severity: ir.Error,
		Message:  fmt.Sprintf(format, MaxNesting),
		Range:    byteRange(file, src, d.start, d.end),
	}
}
