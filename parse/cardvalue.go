package parse

import (
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/cairn-dev/cairn/ir"
)

// tokenStart returns the byte offset where tk starts, 0 without a token.
func (fe *cardProcess) tokenStart(tk *token.Token) int {
	if tk == nil {
		return 0
	}
	return fe.offset(tk.Position)
}

// nodeRange returns the range n covers in the file.
func (fe *cardProcess) nodeRange(n ast.Node) ir.Range {
	start, end := fe.nodeSpan(n)
	return fe.span(start, end)
}

// nodeSpan returns the byte offsets n starts and ends at.
func (fe *cardProcess) nodeSpan(n ast.Node) (int, int) {
	if n == nil {
		return 0, 0
	}
	switch n := n.(type) {
	case *ast.StringNode:
		start := fe.tokenStart(n.Token)
		return start, fe.stringEnd(start, n)
	case *ast.LiteralNode:
		start := fe.tokenStart(n.Start)
		_, end := fe.blockSpans(n)
		return start, max(end, fe.lineEnd(start))
	case *ast.MappingNode:
		if n.IsFlowStyle && n.Start != nil && n.End != nil {
			return fe.tokenStart(n.Start), fe.tokenStart(n.End) + 1
		}
		if len(n.Values) == 0 {
			start := fe.tokenStart(n.GetToken())
			return start, start
		}
		start, _ := fe.nodeSpan(n.Values[0])
		_, end := fe.nodeSpan(n.Values[len(n.Values)-1])
		return start, max(start, end)
	case *ast.MappingValueNode:
		start, end := fe.nodeSpan(n.Key)
		if n.Key == nil {
			start = fe.tokenStart(n.Start)
		}
		if n.Value != nil {
			if _, vend := fe.nodeSpan(n.Value); vend > end {
				end = vend
			}
		}
		return start, max(start, end)
	case *ast.SequenceNode:
		if n.IsFlowStyle && n.Start != nil && n.End != nil {
			return fe.tokenStart(n.Start), fe.tokenStart(n.End) + 1
		}
		start := fe.tokenStart(n.Start)
		end := start + 1
		if len(n.Values) > 0 {
			if _, vend := fe.nodeSpan(n.Values[len(n.Values)-1]); vend > end {
				end = vend
			}
		}
		return start, end
	case *ast.AnchorNode:
		start := fe.tokenStart(n.Start)
		_, end := fe.nodeSpan(n.Value)
		return start, max(start+1, end)
	case *ast.TagNode:
		start := fe.tokenStart(n.Start)
		_, end := fe.nodeSpan(n.Value)
		return start, max(start+1, end)
	case *ast.AliasNode:
		start := fe.tokenStart(n.Start)
		_, end := fe.nodeSpan(n.Value)
		return start, max(start+1, end)
	}
	tk := n.GetToken()
	start := fe.tokenStart(tk)
	if tk == nil {
		return start, start
	}
	return start, min(start+len(tk.Value), fe.lineEnd(start))
}

// stringEnd returns where the string n, starting at start, ends: after its
// closing quote, or after its text when written plainly on one line, else at
// the end of its first line.
func (fe *cardProcess) stringEnd(start int, n *ast.StringNode) int {
	src := fe.src
	if start >= len(src) {
		return start
	}
	switch src[start] {
	case '"':
		for i := start + 1; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case '\'':
		for i := start + 1; i < len(src); i++ {
			if src[i] == '\'' {
				if i+1 < len(src) && src[i+1] == '\'' {
					i++
					continue
				}
				return i + 1
			}
		}
	default:
		if strings.HasPrefix(string(src[start:min(len(src), start+len(n.Value))]), n.Value) {
			return start + len(n.Value)
		}
	}
	return fe.lineEnd(start)
}

// scalarString reads n as a string: its value, range and spans. Spans are
// set when the value was copied from the file as it is: a plain or quoted
// string on one line without escapes, or a block scalar (| or >) whose
// lines the value holds with their indentation stripped. A value folded or
// unescaped in other ways has none, and rules point at the whole value.
func (fe *cardProcess) scalarString(n ast.Node) (string, ir.Range, []ir.Span, bool) {
	switch n := n.(type) {
	case *ast.StringNode:
		start := fe.tokenStart(n.Token)
		end := fe.stringEnd(start, n)
		rng := fe.span(start, end)
		var spans []ir.Span
		if end > start && end <= len(fe.src) {
			raw := string(fe.src[start:end])
			switch {
			case raw == n.Value:
				spans = []ir.Span{{Offset: 0, Start: fe.pos(start)}}
			case len(raw) >= 2 && (raw[0] == '"' || raw[0] == '\'') && raw[1:len(raw)-1] == n.Value:
				spans = []ir.Span{{Offset: 0, Start: fe.pos(start + 1)}}
			}
		}
		return n.Value, rng, spans, true
	case *ast.LiteralNode:
		if n.Value == nil {
			return "", fe.nodeRange(n), nil, true
		}
		spans, _ := fe.blockSpans(n)
		return n.Value.Value, fe.nodeRange(n), spans, true
	}
	return "", ir.Range{}, nil, false
}

// blockSpans maps the value of a block scalar back to the file, one span
// per line of the block: each line's text, its indentation stripped, is
// found in the value after the line breaks and spaces that folding and
// chomping leave between lines. It returns no spans when the value does not
// line up with the file that way or would not copy it verbatim (a folded
// line break), and where the block's last line ends.
func (fe *cardProcess) blockSpans(n *ast.LiteralNode) ([]ir.Span, int) {
	if n.Start == nil || n.Start.Position == nil || n.Value == nil {
		return nil, 0
	}
	value := n.Value.Value
	headerLine := n.Start.Position.Line
	end := fe.lineEnd(fe.tokenStart(n.Start))
	var spans []ir.Span
	v := 0
	for line := headerLine + 1; line <= len(fe.lines) && strings.TrimRight(value[v:], "\n") != ""; line++ {
		text := string(fe.line(line))
		body := strings.TrimRight(strings.TrimLeft(text, " "), " \r")
		if body == "" {
			continue
		}
		indent := len(text) - len(strings.TrimLeft(text, " "))
		j := v
		for j < len(value) && !strings.HasPrefix(value[j:], body) && (value[j] == ' ' || value[j] == '\n') {
			j++
		}
		if !strings.HasPrefix(value[j:], body) {
			return nil, end
		}
		lineStart := fe.lines[line-1]
		spans = append(spans, ir.Span{Offset: int32(j), Start: fe.pos(lineStart + indent)})
		v = j + len(body)
		end = lineStart + indent + len(body)
	}
	if strings.TrimRight(value[v:], "\n") != "" {
		return nil, end
	}
	// A span copies the file verbatim up to the next one: a line folded
	// into a space is not, and then the value is pointed at whole.
	for i, s := range spans {
		next := len(value)
		if i+1 < len(spans) {
			next = int(spans[i+1].Offset)
		}
		seg := value[s.Offset:next]
		at := int(s.Start.Offset)
		if at+len(seg) > len(fe.src) || string(fe.src[at:at+len(seg)]) != seg {
			return nil, end
		}
	}
	return spans, end
}
