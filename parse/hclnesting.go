package parse

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// The kinds of HCL nesting levels: two of cairn's own, for a template
// directive and the if or for block it begins, and for the others the
// token type that opens each.
const (
	hclTemplateDirective = -1 - iota
	hclTemplateBlock
)

const (
	hclBrace    = int(hclsyntax.TokenOBrace)
	hclBrack    = int(hclsyntax.TokenOBrack)
	hclParen    = int(hclsyntax.TokenOParen)
	hclQuote    = int(hclsyntax.TokenOQuote)
	hclHeredoc  = int(hclsyntax.TokenOHeredoc)
	hclSequence = int(hclsyntax.TokenTemplateInterp)
)

// lexMode is what hclsyntax's lexer reads at a point of the file: the
// expressions of the file's top level and of template sequences, a quoted
// string's template, or a heredoc's.
type lexMode int

const (
	lexExpr lexMode = iota
	lexString
	lexHeredoc
)

// hclFrame is one template the lexer is in: a quoted string, a heredoc, or
// a template sequence (${ … } or %{ … }) inside one.
type hclFrame struct {
	mode lexMode
	// braces is, for a template sequence, the count of open braces that
	// its closing brace brings back.
	braces int
	// markerStart and markerEnd are, for a heredoc, where the name that
	// closes it lies in the file; startOfLine says whether the heredoc's
	// current line has only its text so far, so that it may be that name.
	markerStart, markerEnd int
	startOfLine            bool
}

// hclScan is a pre-scan of an HCL file: it reads the file's bytes as
// hclsyntax's lexer tokenizes them (strings, heredocs, comments and template
// sequences, whose brackets are no nesting), and counts the nesting of what
// hclsyntax's parser recurses on, without building a token.
type hclScan struct {
	src   []byte
	limit int
	n     nesting
	d     depth
	// frames are the templates the lexer is in, innermost last; when the
	// innermost is a template sequence, or there is none, it reads
	// expressions. Past limit frames the file is refused: each opened a
	// level, so only a file whose brackets close the wrong templates gets
	// there.
	frames []hclFrame
	// braces is the lexer's count of open braces, which a template
	// sequence's opening also counts.
	braces int
	// operand is set after a token that ends an operand, after which "-"
	// subtracts rather than negates.
	operand bool
	// noCommentEnd is the offset from which the file holds no "*/": a "/*"
	// there is no comment, and is not looked for again.
	noCommentEnd int
}

// hclDepth pre-scans src, an HCL file, and returns how deeply it nests as
// hclsyntax's parser would recurse on it: each bracket, brace, parenthesis,
// quote and heredoc, template interpolation and directive is a level, and
// so are the if and for blocks of templates, prefix operators (! and -) and
// conditionals (?) until the item they are in ends (at a comma, an equals
// sign, a => or ..., or a newline outside parentheses, brackets and
// templates). It stops at the first token deeper than limit.
func hclDepth(src []byte, limit int) depth {
	s := hclScan{src: src, limit: limit, n: newNesting(limit), noCommentEnd: len(src) + 1}
	s.frames = make([]hclFrame, 0, cap(s.n.open))
	for i := 0; i < len(src) && !s.d.over; {
		switch s.mode() {
		case lexString:
			i = s.stringToken(i)
		case lexHeredoc:
			i = s.heredocToken(i)
		default:
			i = s.exprToken(i)
		}
	}
	return s.d
}

// mode is what the lexer reads now.
func (s *hclScan) mode() lexMode {
	if len(s.frames) == 0 {
		return lexExpr
	}
	return s.frames[len(s.frames)-1].mode
}

// reach records the level of the token of bytes start up to end; it reports
// whether the scan is over.
func (s *hclScan) reach(start, end int) bool {
	return s.d.reach(s.n.level(), s.limit, start, end)
}

// enter opens a template of mode for the token of bytes start up to end;
// past limit templates the token is refused.
func (s *hclScan) enter(f hclFrame, start, end int) {
	if s.d.over {
		return
	}
	if len(s.frames) > s.limit {
		s.d.over, s.d.start, s.d.end = true, start, end
		return
	}
	s.frames = append(s.frames, f)
}

// leave closes the innermost template.
func (s *hclScan) leave() {
	s.frames = s.frames[:len(s.frames)-1]
}

// open opens a level of kind for the token of bytes start up to end.
func (s *hclScan) open(kind, start, end int) int {
	s.n.push(kind)
	s.operand = false
	s.reach(start, end)
	return end
}

// operator counts a prefix operator or a conditional of bytes start up to
// end.
func (s *hclScan) operator(start, end int) int {
	s.n.pending++
	s.operand = false
	s.reach(start, end)
	return end
}

// other is a token of bytes start up to end that opens and closes nothing;
// operand says whether it ends an operand.
func (s *hclScan) other(end int, operand bool) int {
	s.operand = operand
	return end
}

// itemEnd is a token up to end that ends the current item (a comma, an
// equals sign, a => or ...): its operators no longer count.
func (s *hclScan) itemEnd(end int) int {
	s.n.pending = 0
	s.operand = false
	return end
}

// newline is a newline token up to end, or a line comment ending in one:
// it ends an attribute or an object's item; inside parentheses, brackets
// and templates it is only space.
func (s *hclScan) newline(end int) int {
	if k := s.n.top(); k == 0 || k == hclBrace {
		s.n.pending = 0
	}
	s.operand = false
	return end
}

// at returns the byte at i of the file, or 0 past its end.
func (s *hclScan) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

// exprToken reads the token at i among expressions and returns where the
// next one starts.
func (s *hclScan) exprToken(i int) int {
	src := s.src
	c := src[i]
	switch {
	case c == ' ' || c == '\t':
		return i + 1
	case c == '\n':
		// Blank lines and indentation after a newline change nothing
		// it did not.
		j := i + 1
		for j < len(src) && (src[j] == '\n' || src[j] == ' ' || src[j] == '\t') {
			j++
		}
		return s.newline(j)
	case c == '\r' && s.at(i+1) == '\n':
		return s.newline(i + 2)
	case c >= '0' && c <= '9':
		return s.other(numberEnd(src, i), true)
	case identStart(src, i):
		return s.other(identEnd(src, i), true)
	case c == '#' || c == '/' && s.at(i+1) == '/':
		if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
			return s.newline(i + j + 1)
		}
		return s.other(len(src), false)
	case c == '/' && s.at(i+1) == '*':
		if i+2 < s.noCommentEnd {
			if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
				return s.other(i+2+j+2, false)
			}
			s.noCommentEnd = i + 2
		}
		return s.other(i+1, false)
	case c == '{':
		s.braces++
		return s.open(hclBrace, i, i+1)
	case c == '}':
		if f := s.innermost(); f != nil && f.mode == lexExpr && f.braces == s.braces {
			return s.sequenceEnd(i + 1)
		}
		s.braces--
		s.n.pop(hclBrace, hclBrace)
		return s.other(i+1, true)
	case c == '~' && s.at(i+1) == '}':
		// Like "}", but a template sequence's end even where no sequence
		// is open, for the parser to refuse.
		if f := s.innermost(); f != nil && f.mode == lexExpr && f.braces == s.braces {
			return s.sequenceEnd(i + 2)
		}
		s.braces--
		s.n.pop(hclSequence, hclTemplateDirective)
		return s.other(i+2, false)
	case c == '"':
		end := s.open(hclQuote, i, i+1)
		s.enter(hclFrame{mode: lexString}, i, end)
		return end
	case c == '<' && s.at(i+1) == '<':
		if end, ms, me, ok := heredocOpener(src, i); ok {
			s.open(hclHeredoc, i, end)
			s.enter(hclFrame{mode: lexHeredoc, markerStart: ms, markerEnd: me, startOfLine: true}, i, end)
			return end
		}
		return s.other(i+1, false)
	case c == '[':
		return s.open(hclBrack, i, i+1)
	case c == '(':
		return s.open(hclParen, i, i+1)
	case c == ']':
		s.n.pop(hclBrack, hclBrack)
		return s.other(i+1, true)
	case c == ')':
		s.n.pop(hclParen, hclParen)
		return s.other(i+1, true)
	case c == '!':
		if s.at(i+1) == '=' {
			return s.other(i+2, false)
		}
		return s.operator(i, i+1)
	case c == '-':
		if s.operand {
			return s.other(i+1, false)
		}
		return s.operator(i, i+1)
	case c == '?':
		return s.operator(i, i+1)
	case c == ',':
		return s.itemEnd(i + 1)
	case c == '=':
		switch s.at(i + 1) {
		case '=':
			return s.other(i+2, false)
		case '>':
			return s.itemEnd(i + 2)
		}
		return s.itemEnd(i + 1)
	case c == '.':
		if s.at(i+1) == '.' && s.at(i+2) == '.' {
			return s.itemEnd(i + 3)
		}
		return s.other(i+1, false)
	case c == '<' || c == '>':
		if s.at(i+1) == '=' {
			return s.other(i+2, false)
		}
		return s.other(i+1, false)
	case c == '&' || c == '|' || c == ':':
		if s.at(i+1) == c {
			return s.other(i+2, false)
		}
		return s.other(i+1, false)
	}
	if c >= utf8.RuneSelf {
		// A character that is no letter, or a byte of none: one token.
		_, size := utf8.DecodeRune(src[i:])
		return s.other(i+size, false)
	}
	return s.other(i+1, false)
}

// innermost is the innermost template, nil when there is none.
func (s *hclScan) innermost() *hclFrame {
	if len(s.frames) == 0 {
		return nil
	}
	return &s.frames[len(s.frames)-1]
}

// sequenceEnd closes the template sequence the brace up to end closes, back
// to the string or heredoc it is in.
func (s *hclScan) sequenceEnd(end int) int {
	s.braces--
	s.leave()
	s.n.pop(hclSequence, hclTemplateDirective)
	return s.other(end, false)
}

// sequenceStart reads "${" or "%{" at i, with the "~" that may follow, and
// opens its template sequence; a directive's if or for also opens the block
// it begins, and its endif or endfor closes it.
func (s *hclScan) sequenceStart(i int) int {
	end := i + 2
	if s.at(end) == '~' {
		end++
	}
	s.braces++
	if f := s.innermost(); f.mode == lexHeredoc {
		f.startOfLine = false
	}
	defer s.enter(hclFrame{mode: lexExpr, braces: s.braces}, i, end)
	if s.src[i] == '$' {
		return s.open(hclSequence, i, end)
	}
	// The directive's keyword is the token after it: spaces are no token,
	// a newline or a comment is.
	j := end
	for s.at(j) == ' ' || s.at(j) == '\t' {
		j++
	}
	if j < len(s.src) && identStart(s.src, j) {
		switch string(s.src[j:identEnd(s.src, j)]) {
		case "if", "for":
			s.n.push(hclTemplateBlock)
		case "endif", "endfor":
			s.n.pop(hclTemplateBlock, hclTemplateBlock)
		}
	}
	return s.open(hclTemplateDirective, i, end)
}

// templateChar reads the template text at i, in a quoted string or a
// heredoc: a sequence's start, its escape ($${, %%{), or a character.
func (s *hclScan) templateChar(i int) int {
	c := s.src[i]
	if c != '$' && c != '%' {
		return i + 1
	}
	switch {
	case s.at(i+1) == '{':
		return s.sequenceStart(i)
	case s.at(i+1) == c && s.at(i+2) == '{':
		return i + 3
	}
	return i + 1
}

// stringToken reads the token at i in a quoted string.
func (s *hclScan) stringToken(i int) int {
	if j := textEnd(s.src, i, '"', '\\'); j > i {
		return j
	}
	switch s.src[i] {
	case '"':
		s.leave()
		s.n.pop(hclQuote, hclQuote)
		return s.other(i+1, true)
	case '\\':
		// An escape is the backslash and the character after it, unless
		// that ends the line (an invalid character, then the newline).
		if i+1 < len(s.src) && s.src[i+1] != '\n' && s.src[i+1] != '\r' {
			return i + 2
		}
		return i + 1
	}
	return s.templateChar(i)
}

// heredocToken reads the token at i in a heredoc: at the start of a line,
// the line may be the heredoc's closing name.
func (s *hclScan) heredocToken(i int) int {
	f := s.innermost()
	if f.startOfLine {
		f.startOfLine = false
		if j := bytes.IndexByte(s.src[i:], '\n'); j >= 0 &&
			bytes.Equal(bytes.TrimSpace(s.src[i:i+j]), s.src[f.markerStart:f.markerEnd]) {
			// The newline after the name is a token of the
			// expressions around the heredoc.
			s.leave()
			s.n.pop(hclHeredoc, hclHeredoc)
			return s.other(i+j, true)
		}
	}
	if j := textEnd(s.src, i, '\n', '\n'); j > i {
		return j
	}
	if s.src[i] == '\n' {
		f.startOfLine = true
		return i + 1
	}
	return s.templateChar(i)
}

// textEnd returns where the template text from i ends: at a "$" or a "%",
// which may start a template sequence, or at a or b.
func textEnd(src []byte, i int, a, b byte) int {
	for i < len(src) {
		if c := src[i]; c == '$' || c == '%' || c == a || c == b {
			break
		}
		i++
	}
	return i
}

// heredocOpener reports whether a heredoc opens at i ("<<" or "<<-", a
// name, a newline), and returns where its opening ends and where its name
// lies.
func heredocOpener(src []byte, i int) (end, markerStart, markerEnd int, ok bool) {
	j := i + 2
	if j < len(src) && src[j] == '-' {
		j++
	}
	if j >= len(src) || !identStart(src, j) {
		return 0, 0, 0, false
	}
	k := identEnd(src, j)
	switch {
	case k < len(src) && src[k] == '\n':
		return k + 1, j, k, true
	case k+1 < len(src) && src[k] == '\r' && src[k+1] == '\n':
		return k + 2, j, k, true
	}
	return 0, 0, 0, false
}

// identStart reports whether the character at i starts an identifier: a
// letter or "_".
func identStart(src []byte, i int) bool {
	c := src[i]
	if c < utf8.RuneSelf {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
	}
	r, _ := utf8.DecodeRune(src[i:])
	return idStart(r)
}

// identEnd returns where the identifier starting at i ends: it goes on with
// letters, digits, "_" and "-".
func identEnd(src []byte, i int) int {
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if !idStart(r) && !unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue) {
			break
		}
		i += size
	}
	return i
}

// idStart reports whether r may start an identifier outside ASCII, as
// Unicode's ID_Start says: a letter, a letter number, or one of the others
// Unicode lists. A byte of no character (utf8.RuneError) is none.
func idStart(r rune) bool {
	return r != utf8.RuneError && unicode.In(r, unicode.L, unicode.Nl, unicode.Other_ID_Start)
}

// numberEnd returns where the number starting at i ends: digits, then
// digits, dots and exponents (e, E, with a sign, before a digit) that do
// not end with a dot.
func numberEnd(src []byte, i int) int {
	end := i + 1
	j := end
	for j < len(src) {
		c := src[j]
		switch {
		case c >= '0' && c <= '9':
			j++
			end = j
		case c == '.':
			j++
		case c == 'e' || c == 'E':
			k := j + 1
			if k < len(src) && (src[k] == '+' || src[k] == '-') {
				k++
			}
			if k >= len(src) || src[k] < '0' || src[k] > '9' {
				return end
			}
			j = k + 1
			end = j
		default:
			return end
		}
	}
	return end
}
