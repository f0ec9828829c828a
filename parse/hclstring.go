package parse

import (
	"bytes"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/text/unicode/norm"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/ir"
)

// templateText returns the value and spans of a literal quoted string or
// heredoc whose range is r and whose value hclsyntax says is want. The
// value is the text as written: hclsyntax's strings are in Unicode normal
// form C, and a script keeps the bytes its author wrote (a file name in
// decomposed form names another file once composed). Spans are nil, and
// the value hclsyntax's, when decoding the file anew disagrees with
// hclsyntax in more than that form (a script then points at its whole
// value rather than at a wrong character).
func (fe *hclProcess) templateText(r hcl.Range, want string) (string, []ir.Span) {
	start := clampOffset(r.Start.Byte, fe.src)
	raw := fe.text(r)
	var got string
	var spans []source.SpanAt
	var base int
	switch {
	case len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"':
		base = start + 1
		got, spans = decodeHCLQuoted(raw[1 : len(raw)-1])
	case len(raw) >= 3 && raw[0] == '<' && raw[1] == '<':
		// The content runs from the line after <<EOT up to the line of
		// the closing EOT.
		first := bytes.IndexByte(raw, '\n')
		last := bytes.LastIndexByte(raw, '\n')
		if first < 0 {
			return want, nil
		}
		base = start + first + 1
		got, spans = decodeHCLHeredoc(raw[first+1:last+1], raw[2] == '-')
	default:
		return want, nil
	}
	if got != want && norm.NFC.String(got) != norm.NFC.String(want) {
		return want, nil
	}
	return got, fe.spans(base, spans)
}

// labelSpans returns the spans of a block label at r whose value is want:
// a quoted string, or a bare name.
func (fe *hclProcess) labelSpans(r hcl.Range, want string) []ir.Span {
	start := clampOffset(r.Start.Byte, fe.src)
	raw := fe.text(r)
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		if got, spans := decodeHCLQuoted(raw[1 : len(raw)-1]); got == want {
			return fe.spans(start+1, spans)
		}
		return nil
	}
	if string(raw) == want {
		return []ir.Span{{Offset: 0, Start: fe.pos(start)}}
	}
	return nil
}

// stringDecoder decodes the raw text of an HCL string that hclsyntax
// accepted, recording where each stretch of the value comes from.
type stringDecoder struct {
	source.StringDecoder
}

// spans places the spans of a value decoded from the file at byte base on.
func (fe *hclProcess) spans(base int, spans []source.SpanAt) []ir.Span {
	out := make([]ir.Span, len(spans))
	for i, s := range spans {
		out[i] = ir.Span{Offset: int32(s.Value), Start: fe.pos(base + s.File)}
	}
	return out
}

// decodeHCLQuoted decodes the content of a quoted HCL string without
// interpolations: backslash escapes, and "$${" and "%%{" for a literal "${"
// and "%{". A span starts at each escape and after it.
func decodeHCLQuoted(raw []byte) (string, []source.SpanAt) {
	d := &stringDecoder{source.StringDecoder{Raw: raw, Out: make([]byte, 0, len(raw))}}
	d.Mark(0)
	for i := 0; i < len(raw); {
		if raw[i] == '\\' && i+1 < len(raw) {
			d.Mark(i)
			i = d.hclEscape(i + 1)
			d.Mark(i)
			continue
		}
		i = d.templateChar(i)
	}
	return string(d.Out), d.Spans
}

// decodeHCLHeredoc decodes the content of a heredoc without interpolations,
// its lines up to the closing marker's: "$${" and "%%{" for a literal "${"
// and "%{" (a heredoc has no backslash escapes). A flush heredoc (<<-) loses
// the indentation its least indented line has, as hclsyntax strips it: a
// span starts after the indentation of each line.
func decodeHCLHeredoc(raw []byte, flush bool) (string, []source.SpanAt) {
	d := &stringDecoder{source.StringDecoder{Raw: raw, Out: make([]byte, 0, len(raw))}}
	d.Mark(0)
	indent := 0
	if flush {
		indent = heredocIndent(raw)
	}
	for off := 0; off < len(raw); {
		end := len(raw)
		if nl := bytes.IndexByte(raw[off:], '\n'); nl >= 0 {
			end = off + nl + 1
		}
		i := off
		if indent > 0 && !blankLine(raw[off:end]) {
			i += leadingBytes(raw[off:end], indent)
			d.Mark(i)
		}
		for i < end {
			i = d.templateChar(i)
		}
		off = end
	}
	return string(d.Out), d.Spans
}

// heredocIndent is the indentation, in characters, that a flush heredoc's
// lines lose: the least of its lines that are not blank.
func heredocIndent(raw []byte) int {
	least := -1
	for line := range bytes.Lines(raw) {
		if blankLine(line) {
			continue
		}
		n := 0
		for _, c := range string(line) {
			if !unicode.IsSpace(c) {
				break
			}
			n++
		}
		if least < 0 || n < least {
			least = n
		}
	}
	return max(least, 0)
}

// blankLine reports whether line holds only white space and ends a line:
// hclsyntax leaves such lines alone in a flush heredoc.
func blankLine(line []byte) bool {
	return len(bytes.TrimLeftFunc(line, unicode.IsSpace)) == 0 && bytes.HasSuffix(line, []byte("\n"))
}

// leadingBytes is the length in bytes of the first n characters of line,
// counted as hclsyntax counts them when it strips indentation: in grapheme
// clusters, so that a combining mark goes with the space it follows.
func leadingBytes(line []byte, n int) int {
	i := 0
	for ; n > 0 && i < len(line); n-- {
		_, size := utf8.DecodeRune(line[i:])
		i += size
		for i < len(line) {
			r, size := utf8.DecodeRune(line[i:])
			if !extendsCluster(r) {
				break
			}
			i += size
		}
	}
	return i
}

// extendsCluster reports whether r joins the grapheme cluster of the
// character before it: a mark, a zero-width joiner or non-joiner, an emoji
// modifier or a tag.
func extendsCluster(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) ||
		r == 0x200C || r == 0x200D ||
		r >= 0x1F3FB && r <= 0x1F3FF ||
		r >= 0xE0020 && r <= 0xE007F
}

// templateChar decodes the character at raw[i], or "$${" or "%%{" there, and
// returns the offset after it. The escape's second character starts a
// stretch copied from the file, so that "${" maps onto the file's own.
func (d *stringDecoder) templateChar(i int) int {
	c := d.Raw[i]
	if (c == '$' || c == '%') && i+2 < len(d.Raw) && d.Raw[i+1] == c && d.Raw[i+2] == '{' {
		d.Mark(i + 1)
		d.Out = append(d.Out, c, '{')
		return i + 3
	}
	d.Out = append(d.Out, c)
	return i + 1
}

// hclEscape decodes the escape sequence of a quoted HCL string whose
// selector is at raw[i], and returns the offset after it.
func (d *stringDecoder) hclEscape(i int) int {
	c := d.Raw[i]
	switch c {
	case 'n':
		d.Out = append(d.Out, '\n')
	case 'r':
		d.Out = append(d.Out, '\r')
	case 't':
		d.Out = append(d.Out, '\t')
	case 'u', 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		j := i + 1
		for j < len(d.Raw) && j < i+1+n && isHex(d.Raw[j]) {
			j++
		}
		if j-i-1 == n {
			if r, err := strconv.ParseUint(string(d.Raw[i+1:j]), 16, 32); err == nil && utf8.ValidRune(rune(r)) {
				d.Out = utf8.AppendRune(d.Out, rune(r))
			}
		}
		return j
	default:
		// '"', '\\', and anything hclsyntax refuses, a whole character:
		// a stretch starting inside one would count its columns wrong.
		_, size := utf8.DecodeRune(d.Raw[i:])
		d.Out = append(d.Out, d.Raw[i:i+size]...)
		return i + size
	}
	return i + 1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
