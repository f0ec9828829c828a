package views

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/text"
	"github.com/cairn-dev/cairn/ir"
)

// Style says how text output is decorated: Color turns on ANSI bold and
// colours, for a terminal; Terminal says the output is one, where what
// cairn did not write itself (a result, a cause, a program's output) is
// shown with its control characters escaped (text.Escaped), colour or not.
type Style struct {
	Color    bool
	Terminal bool
}

// The ANSI escapes text output uses when colour is on.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[1;36m"
	ansiGreen  = "\x1b[1;32m"
	ansiDim    = "\x1b[2m"
)

// paint wraps s in the escape code when colour is on.
func (st Style) paint(code, s string) string {
	if !st.Color || s == "" {
		return s
	}
	return code + s + ansiReset
}

// shown is s as the output shows text cairn did not write: escaped on a
// terminal.
func (st Style) shown(s string) string {
	if !st.Terminal {
		return s
	}
	return text.Escaped(s)
}

// severityColor is the colour a severity is shown in.
func severityColor(s ir.Severity) string {
	switch s {
	case ir.Error:
		return ansiRed
	case ir.Warning:
		return ansiYellow
	}
	return ansiCyan
}

// Location is where a diagnostic points, as text prints it: "file:line:col",
// just "file" without a position, and "cairn" for a diagnostic of no file.
func Location(r ir.Range) string {
	if s := r.String(); s != "" {
		return s
	}
	return "cairn"
}

// WriteDiagnostic writes d as text: its line, the source line it points at
// under a line-number gutter with a caret and tildes under the range, and a
// note line for each related place.
func WriteDiagnostic(w io.Writer, d ir.Diagnostic, sources map[string][]byte, st Style) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %s\n",
		st.paint(ansiBold, Location(d.Range)+":"),
		st.paint(severityColor(d.Severity), string(d.Severity)+":"),
		st.paint(ansiBold, d.Message),
		st.paint(ansiDim, "["+d.Rule+"]"))
	if src, ok := sources[d.Range.File]; ok {
		writeExcerpt(&b, src, d.Range, st, severityColor(d.Severity))
	}
	for _, rel := range d.Related {
		fmt.Fprintf(&b, "%s %s %s\n",
			st.paint(ansiBold, Location(rel.Range)+":"),
			st.paint(ansiCyan, "note:"),
			rel.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// The window of a long line an excerpt quotes: a line longer than
// excerptWidth characters (a minified file, a string of megabytes, a file
// nested millions of brackets deep on one line) is quoted from about
// excerptBefore characters before the range, excerptWidth characters of it,
// with an ellipsis where it is cut, so that quoting costs the same whatever
// the line's length.
const (
	excerptWidth  = 200
	excerptBefore = 60
	ellipsis      = "…"
)

// writeExcerpt quotes the line r starts on with a caret under its first
// character and tildes under the rest of it (to the end of the line when r
// goes on). Tabs before the range stay tabs so the caret lines up. A line
// longer than excerptWidth characters is quoted around the range only (see
// excerptWidth); the tildes then stop where the quote does.
func writeExcerpt(b *strings.Builder, src []byte, r ir.Range, st Style, color string) {
	if !r.Start.IsValid() {
		return
	}
	line, ok := sourceLine(src, int(r.Start.Line))
	if !ok {
		return
	}
	start := int(r.Start.Column) - 1
	if start < 0 {
		return
	}
	// Counting stops past what any window holding start needs: the
	// line's length matters only up to there.
	n := countChars(line, start+excerptWidth+1)
	if start > n {
		return
	}
	end := n
	if r.End.Line == r.Start.Line && int(r.End.Column)-1 > start {
		end = min(int(r.End.Column)-1, n)
	}
	from, to := 0, n
	if n > excerptWidth {
		from = max(0, min(start-excerptBefore, n-excerptWidth))
		to = from + excerptWidth
	}
	end = min(end, to)

	var quote, pad strings.Builder
	if from > 0 {
		quote.WriteString(ellipsis)
		pad.WriteByte(' ')
	}
	i := 0
	for c := range chars(line) {
		if i >= to {
			break
		}
		if i >= from {
			quote.WriteRune(c)
		}
		if i >= from && i < start {
			if c == '\t' {
				pad.WriteByte('\t')
			} else {
				pad.WriteByte(' ')
			}
		}
		i++
	}
	if to < n {
		quote.WriteString(ellipsis)
	}
	width := max(len(fmt.Sprint(r.Start.Line)), 4)
	marker := "^"
	if end > start+1 {
		marker += strings.Repeat("~", end-start-1)
	}
	gutter := fmt.Sprintf("%*d |", width, r.Start.Line)
	blank := strings.Repeat(" ", width) + " |"
	fmt.Fprintf(b, "%s %s\n", st.paint(ansiDim, gutter), quote.String())
	fmt.Fprintf(b, "%s %s%s\n", st.paint(ansiDim, blank), pad.String(), st.paint(color, marker))
}

// sourceLine returns line n (1-based) of src without its line ending, as a
// slice of src.
func sourceLine(src []byte, n int) ([]byte, bool) {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return nil, false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return bytes.TrimSuffix(src, []byte("\r")), true
}

// chars yields the characters of line as an excerpt counts them: a run of
// bytes that is no UTF-8 is one character, shown as U+FFFD (as
// strings.ToValidUTF8 would replace it).
func chars(line []byte) iter.Seq[rune] {
	return func(yield func(rune) bool) {
		for len(line) > 0 {
			c, size := utf8.DecodeRune(line)
			if c == utf8.RuneError && size == 1 {
				for size < len(line) {
					if r, n := utf8.DecodeRune(line[size:]); r != utf8.RuneError || n != 1 {
						break
					}
					size++
				}
			}
			if !yield(c) {
				return
			}
			line = line[size:]
		}
	}
}

// countChars is the number of characters of line (as chars counts them), or
// limit when it has more.
func countChars(line []byte, limit int) int {
	n := 0
	for range chars(line) {
		if n == limit {
			break
		}
		n++
	}
	return n
}
