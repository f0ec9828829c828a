package parse

import "bytes"

// The kinds of a card's flow levels.
const (
	cardFlowSeq = 1 + iota
	cardFlowMap
)

// blockLevel is one level of a card's block structure: a collection, the
// column its entries start at and its kind, or a node property (a tag, an
// anchor) that a collection on the lines after it is the node of, at
// column 0 (no line closes it).
type blockLevel struct {
	col  int
	kind blockKind
}

// blockKind is what a block level is.
type blockKind int

const (
	blockSeq      blockKind = iota // a sequence: entries "- "
	blockMap                       // a mapping: keys, or "? "
	blockProperty                  // a tag or an anchor
)

// cardScan is a pre-scan of a card's front matter. It reads the bytes as the
// YAML lexer cairn parses cards with tokenizes them, telling a plain
// scalar's text from the indicators and brackets it holds (a scalar goes on
// across lines as long as they are indented past the last indicator), and
// skipping quoted scalars, comments and block scalars, and counts how
// deeply the front matter nests, without building a token.
type cardScan struct {
	src   []byte
	limit int
	d     depth
	// block holds the open block levels, outermost first; n the flow
	// collections open in the innermost, and the node properties (tags,
	// anchors) and flow indicators counted until the line or the flow
	// entry ends.
	block []blockLevel
	n     nesting

	// i is the byte read next; line and col are its line and its column,
	// in characters from 1.
	i, line, col int
	// lineStart is set until the first character of a line that is not
	// indentation; indent counts its spaces, and the tabs on it that the
	// lexer skips without moving its column (its indentation to it: a "%"
	// after one starts no directive).
	lineStart bool
	indent    int

	// plain is set while a plain scalar is read; plainCol is the column
	// it started at.
	plain    bool
	plainCol int
	// lastDelim is the column of the last indicator (its key's, for ":"):
	// a line that starts past it goes on with the scalar or block scalar
	// being read, one that does not ends it.
	lastDelim int
	// flowSeq and flowMap count the brackets and braces the lexer takes
	// as open.
	flowSeq, flowMap int
	// anchor, alias and directive are set after the name of an anchor or
	// an alias, or a directive, up to the next space: a ":" there is
	// text.
	anchor, alias, directive bool
	// afterValue is set right after a ":", after which another ":" in a
	// flow mapping is text; quotedCol is the column of the quoted scalar
	// just read, 0 when the last token was none.
	afterValue bool
	quotedCol  int

	// multiline is set in a block scalar's lines (and in a plain scalar's
	// that the lexer reads as one); firstIndent is the column of its
	// first line's text, 0 until that line.
	multiline   bool
	firstIndent int

	// eventLine is the line of the last token; nodeCol, nodeOff and
	// nodeLine are where the first node (or property) since the last
	// indicator starts on the last line that has one (nodeCol 0 when none
	// does): the key of a ":" that follows, on its line or a later one.
	eventLine                  int
	nodeCol, nodeOff, nodeLine int
	// carry is set after a tag or an anchor: the node it belongs to may
	// start on the next line, which is then counted on from it; nested is
	// set from that line on until the next block entry, which the parser
	// nests in the property's node however it is indented (the properties
	// count until then).
	carry, nested bool
	// empty is set after an indicator that ends its line (emptyLine), of
	// emptyKind: the parser nests in it a ":" with no key before it on a
	// later line, and after a "- " a key at the entry's column or left of
	// it.
	empty     bool
	emptyKind blockKind
	emptyLine int
	// keyless is set while the ":" being read has no key before it.
	keyless bool
}

// cardDepth pre-scans src, a card's front matter, and returns how deeply it
// nests as the YAML parser would recurse on it: each block collection (a
// column where "- " entries or keys start, deeper than the one around it)
// and each flow collection ([ ], { }) is a level, and so is each node
// property (a tag, an anchor) and each flow indicator (-, ?, :) since the
// last entry of a flow collection or the start of the line. The parser
// nests the lines after a property, or after a "- " with nothing after it,
// in that node however they are indented, and so does the count. It stops
// at the first token deeper than limit.
func cardDepth(src []byte, limit int) depth {
	n := newNesting(limit)
	s := cardScan{
		src: src, limit: limit, n: n,
		block: make([]blockLevel, 0, cap(n.open)),
		line:  1, col: 1, lineStart: true,
	}
	for s.i < len(s.src) && !s.d.over {
		s.step()
	}
	return s.d
}

// level is how deep the current token is.
func (s *cardScan) level() int {
	return len(s.block) + s.n.level()
}

// reach records the level of the token of bytes start up to end; it reports
// whether the scan is over.
func (s *cardScan) reach(start, end int) bool {
	return s.d.reach(s.level(), s.limit, start, end)
}

// at returns the byte at i, or 0 past the end.
func (s *cardScan) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

// blank reports whether c is a space, a tab or a line break.
func blank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// blankAt reports whether the byte at i is blank or past the end.
func (s *cardScan) blankAt(i int) bool {
	return i >= len(s.src) || blank(s.src[i])
}

// advance moves past n bytes of the current line.
func (s *cardScan) advance(n int) {
	for end := s.i + n; s.i < end; s.i++ {
		if s.src[s.i]&0xC0 != 0x80 {
			s.col++
		}
	}
}

// lineBreak moves past the line break at i: "\n", "\r\n" or "\r".
func (s *cardScan) lineBreak() {
	if s.src[s.i] == '\r' && s.at(s.i+1) == '\n' {
		s.i++
	}
	s.i++
	s.line++
	s.col = 1
}

// toLineEnd moves to the line break that ends the current line, or the end
// of the front matter; the column is left where it was, as nothing reads it
// before the line break.
func (s *cardScan) toLineEnd() {
	j := s.i
	for j < len(s.src) && s.src[j] != '\n' && s.src[j] != '\r' {
		j++
	}
	s.i = j
}

// inFlow reports whether a flow collection is open: lines and indentation
// no longer count, and indicators count until the next entry.
func (s *cardScan) inFlow() bool {
	return len(s.n.open) > 0
}

// flowMode reports whether the lexer reads flow indicators: while it counts
// a bracket or a brace open.
func (s *cardScan) flowMode() bool {
	return s.flowSeq > 0 || s.flowMap > 0
}

// event notes a token: the first of a line (in block context) ends the
// properties of the line before, unless the line ended with them.
func (s *cardScan) event() {
	if s.line != s.eventLine {
		s.eventLine = s.line
		if s.carry && !s.inFlow() {
			s.nested = true
		}
		if !s.inFlow() && !s.carry && !s.nested {
			s.n.pending = 0
		}
	}
	s.carry = false
	s.afterValue = false
	s.quotedCol = 0
	if s.line == s.emptyLine {
		s.empty = false
	}
}

// node notes a token that starts or is a node (or a property of one): in
// block context, the first on its line starts the node a ":" after it
// makes a key of.
func (s *cardScan) node() {
	s.event()
	if !s.inFlow() && (s.nodeCol == 0 || s.nodeLine != s.line) {
		s.nodeCol, s.nodeOff, s.nodeLine = s.col, s.i, s.line
	}
}

// endPlain ends the plain scalar being read, if any.
func (s *cardScan) endPlain() {
	if s.plain {
		s.plain = false
		s.afterValue = false
		s.quotedCol = 0
	}
}

// blockEntry notes an entry of a block collection of kind starting at col,
// for the token of bytes start up to end: it closes the collections
// indented more, and opens one unless the innermost left is one of its
// kind at col. A sequence may start at its mapping key's column; a key
// there ends it. After properties that end their line, or after an
// indicator that does (see cardScan.empty), the parser nests the entry in
// them however it is indented: it opens a level for each property, and one
// for itself. A property's level stays to the end of the document, as the
// parser nests in it what follows however it is indented: a card with a
// property is refused anyway, and the count errs on the deep side.
func (s *cardScan) blockEntry(kind blockKind, col, start, end int) {
	b := s.block
	top := func() blockLevel { return b[len(b)-1] }
	switch {
	case s.nested:
		s.nested = false
		for ; s.n.pending > 0; s.n.pending-- {
			b = append(b, blockLevel{col: 0, kind: blockProperty})
		}
		b = append(b, blockLevel{col: col, kind: kind})
	case s.empty && s.keyless,
		s.empty && s.emptyKind == blockSeq && kind == blockMap && len(b) > 0 && top().col >= col:
		b = append(b, blockLevel{col: col, kind: kind})
	default:
		for len(b) > 0 && top().col > col {
			b = b[:len(b)-1]
		}
		if kind == blockMap && len(b) > 0 && top().col == col && top().kind == blockSeq {
			b = b[:len(b)-1]
		}
		if len(b) == 0 || top().col != col || top().kind != kind {
			b = append(b, blockLevel{col: col, kind: kind})
		}
	}
	s.block = b
	s.reach(start, end)
}

// indicator notes an indicator of an entry of kind ("- ", "? ", or the ": "
// after a key) whose entry starts at col, for the token of bytes start up
// to end: in a flow collection it counts until the next entry.
func (s *cardScan) indicator(kind blockKind, col, start, end int) {
	s.event()
	s.nodeCol = 0
	if s.inFlow() {
		s.n.pending++
		s.reach(start, end)
		return
	}
	s.blockEntry(kind, col, start, end)
	s.empty, s.emptyKind, s.emptyLine = true, kind, s.line
}

// property notes a tag or an anchor of bytes start up to end.
func (s *cardScan) property(start, end int) {
	s.node()
	s.n.pending++
	s.carry = true
	s.reach(start, end)
}

// step reads the token, or the character of a plain scalar, at i.
func (s *cardScan) step() {
	c := s.src[s.i]
	if c == '\n' || c == '\r' {
		s.lineBreak()
		s.lineStart, s.indent = true, 0
		s.anchor, s.alias, s.directive = false, false, false
		return
	}
	if c == '\t' && (s.plain && s.lastDelim == 0 || s.lastDelim < s.col) {
		// The lexer skips such a tab, and its column stays.
		s.indent++
		s.i++
		return
	}
	if s.lineStart {
		if c == ' ' || c == '\t' {
			s.indent++
			s.advance(1)
			return
		}
		s.lineStart = false
		if s.lineFirst() {
			return
		}
	}
	switch c {
	case '\t':
		s.advance(1)
		return
	case ' ':
		if s.anchor || s.alias || s.directive {
			s.endPlain()
			s.anchor, s.alias = false, false
		}
		s.advance(1)
		return
	case '#':
		if !s.plain || s.i == 0 || blank(s.src[s.i-1]) {
			s.endPlain()
			s.toLineEnd()
			return
		}
	case '[', '{':
		if !s.plain || s.flowMode() {
			s.endPlain()
			s.node()
			kind := cardFlowSeq
			if c == '[' {
				s.flowSeq++
			} else {
				s.flowMap++
				kind = cardFlowMap
			}
			s.n.push(kind)
			s.reach(s.i, s.i+1)
			s.advance(1)
			return
		}
	case ']':
		if !s.plain || s.flowSeq > 0 {
			s.endPlain()
			s.event()
			s.flowSeq--
			s.n.pop(cardFlowSeq, cardFlowSeq)
			s.advance(1)
			return
		}
	case '}':
		if s.flowMap > 0 {
			s.endPlain()
			s.event()
			s.flowMap--
			s.n.pop(cardFlowMap, cardFlowMap)
			s.advance(1)
			return
		}
	case ',':
		if s.flowMode() {
			s.endPlain()
			s.event()
			s.n.pending = 0
			s.advance(1)
			return
		}
	case '-':
		// The lexer takes a NUL after it as the end of the text.
		if !s.plain && (s.blankAt(s.i+1) || s.src[s.i+1] == 0) {
			s.lastDelim = s.col
			s.indicator(blockSeq, s.col, s.i, s.i+1)
			s.advance(1)
			return
		}
	case '?':
		if !s.plain && (s.at(s.i+1) == ' ' || s.at(s.i+1) == '\t') {
			s.lastDelim = s.col
			s.indicator(blockMap, s.col, s.i, s.i+1)
			s.advance(1)
			return
		}
	case ':':
		if s.mappingValue() {
			return
		}
	case '|', '>':
		if !s.plain {
			s.blockScalar()
			return
		}
	case '!':
		if !s.plain && !s.directive {
			end := s.nameEnd(s.i+1, true)
			s.property(s.i, end)
			s.advance(end - s.i)
			return
		}
	case '&', '*':
		if !s.plain && (s.at(s.i+1) == '"' || s.at(s.i+1) == '\'') {
			// The lexer reads a quoted scalar right after the indicator
			// as the name, and a line break in it ends the property.
			start, line := s.i, s.line
			s.advance(1)
			s.skipQuoted(s.src[s.i])
			if c == '&' {
				s.property(start, s.i)
			} else {
				s.node()
			}
			s.anchor, s.alias = c == '&' && s.line == line, c == '*' && s.line == line
			return
		}
		if !s.plain {
			end := s.nameEnd(s.i+1, false)
			if c == '&' {
				s.property(s.i, end)
				s.anchor = true
			} else {
				s.node()
				s.alias = true
			}
			s.advance(end - s.i)
			return
		}
	case '%':
		if !s.plain && s.indent == 0 {
			s.node()
			s.directive = true
			s.advance(1)
			return
		}
	case '\'', '"':
		if !s.plain {
			s.quoted(c)
			return
		}
	case '<':
		if s.mergeKey() {
			return
		}
	}
	if !s.plain {
		s.node()
		s.plain, s.plainCol = true, s.col
	}
	s.advance(1)
}

// lineFirst reads the first character of a line that is not indentation:
// a line indented no further than the last indicator ends the scalar being
// read; the document markers end a block scalar. It reports whether it
// read the line.
func (s *cardScan) lineFirst() bool {
	marker := s.col == 1 && s.indent == 0 && s.documentMarker()
	if marker || s.lastDelim != 0 && s.col <= s.lastDelim {
		s.endPlain()
		s.multiline = false
	}
	switch {
	case marker:
		// "---" starts a document, "..." ends one; the parser reads the
		// next afresh, nested in nothing the one before left open (the
		// lexer's count of brackets and braces goes on).
		s.block = s.block[:0]
		s.n.open, s.n.depth, s.n.pending = s.n.open[:0], 0, 0
		s.nodeCol = 0
		s.nested, s.empty, s.carry = false, false, false
		if s.src[s.i] == '-' {
			s.lastDelim = 0
		}
		s.advance(3)
		return true
	case s.multiline:
		if s.firstIndent == 0 {
			s.firstIndent = s.col
		}
		if s.firstIndent > 1 {
			s.lastDelim = s.firstIndent - 1
		}
		s.toLineEnd()
		return true
	case s.plain && s.src[s.i] == '-' && s.lastDelim != 0:
		// The lexer reads a plain scalar's line starting with "-" as the
		// first of a block scalar's, indented as far as it is.
		s.multiline, s.firstIndent = true, s.col
		if s.col > 1 {
			s.lastDelim = s.col - 1
		}
		s.toLineEnd()
		return true
	}
	return false
}

// documentMarker reports whether "---" or "..." starts at i, the start of a
// line: three of either, and no fourth; "---", and either in a block
// scalar, then ends or meets a space.
func (s *cardScan) documentMarker() bool {
	c := s.src[s.i]
	if (c != '-' && c != '.') || s.at(s.i+1) != c || s.at(s.i+2) != c || s.at(s.i+3) == c {
		return false
	}
	return c == '.' && !s.multiline || s.blankAt(s.i+3)
}

// mappingValue reads the ":" at i as a mapping value indicator, if it is
// one, and reports whether it was: before a space or a line break, or
// anywhere in a flow mapping but before "/" (a URL) or after another ":".
func (s *cardScan) mappingValue() bool {
	next := s.at(s.i + 1)
	switch {
	case s.anchor || s.alias || s.directive:
		return false
	case s.flowMap <= 0 && !s.blankAt(s.i+1):
		return false
	case s.flowMap > 0 && (next == '/' || s.afterValue):
		return false
	}
	switch {
	case s.plain:
		s.lastDelim = s.plainCol
	case s.quotedCol > 0:
		s.lastDelim = s.quotedCol
	}
	s.endPlain()
	keyCol, keyOff := s.col, s.i
	if s.nodeCol > 0 {
		keyCol, keyOff = s.nodeCol, s.nodeOff
	}
	end := s.i
	if end == keyOff {
		end++
	}
	s.keyless = s.nodeCol == 0
	s.indicator(blockMap, keyCol, keyOff, end)
	s.keyless = false
	s.afterValue = true
	s.advance(1)
	return true
}

// mergeKey reads "<<" at i as a merge key, if a ":" and a space follow it,
// and reports whether it did.
func (s *cardScan) mergeKey() bool {
	if s.at(s.i+1) != '<' || s.at(s.i+2) == '<' {
		return false
	}
	j := s.i + 2
	for s.at(j) == ' ' {
		j++
	}
	if s.at(j) != ':' {
		return false
	}
	if c := s.at(j + 1); c != ' ' && c != '\n' && c != '\r' {
		return false
	}
	// The lexer drops the plain scalar before it: the merge key is the
	// key.
	s.plain, s.nodeCol = false, 0
	s.node()
	s.lastDelim = s.col
	s.advance(2)
	return true
}

// nameEnd returns where the name of a tag (tag), an anchor or an alias
// starting at i ends: at a space (not a tab, which the lexer takes in it)
// or a line break, or in a flow collection at a comma (and, for an anchor
// or an alias, a bracket or a brace).
func (s *cardScan) nameEnd(i int, tag bool) int {
	for ; i < len(s.src); i++ {
		c := s.src[i]
		if c == ' ' || c == '\n' || c == '\r' {
			break
		}
		if s.flowMode() && (c == ',' || !tag && (c == '[' || c == ']' || c == '{' || c == '}')) {
			break
		}
	}
	return i
}

// quoted reads the quoted scalar starting at i, over as many lines as it
// takes.
func (s *cardScan) quoted(q byte) {
	s.node()
	col := s.col
	if s.skipQuoted(q) {
		s.quotedCol = col
	}
}

// skipQuoted moves past the quoted scalar starting at i and reports
// whether its closing quote was there.
func (s *cardScan) skipQuoted(q byte) bool {
	s.advance(1)
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n' || c == '\r':
			s.lineBreak()
			continue
		case c == '\\' && q == '"' && s.i+1 < len(s.src):
			s.advance(1)
			if c := s.src[s.i]; c == '\n' || c == '\r' {
				s.lineBreak()
				continue
			}
		case c == q && q == '\'' && s.at(s.i+1) == '\'':
			s.advance(1)
		case c == q:
			s.advance(1)
			return true
		}
		s.advance(1)
	}
	return false
}

// blockScalar reads the header of a block scalar ("|" or ">", its
// indentation and chomping, a comment) at i: the lines after it indented
// past the last indicator are its text.
func (s *cardScan) blockScalar() {
	s.node()
	if s.col == 1 {
		s.lastDelim = 1
	}
	start := s.i + 1
	s.toLineEnd()
	header := bytes.TrimRight(s.src[start:s.i], " ")
	if k := bytes.IndexByte(header, '#'); k > 0 {
		header = header[:k]
	}
	header = bytes.TrimRight(header, " \t")
	for _, sign := range []string{"-", "+"} {
		header = bytes.TrimPrefix(header, []byte(sign))
	}
	for _, sign := range []string{"-", "+"} {
		header = bytes.TrimSuffix(header, []byte(sign))
	}
	s.multiline, s.firstIndent = true, 0
	if len(header) == 1 && header[0] >= '1' && header[0] <= '9' {
		s.firstIndent = s.lastDelim + int(header[0]-'0')
	}
}
