package shscan

import "strings"

// next reads the token at s.pos in a statement context, as mvdan/sh's
// next does: blanks and line continuations are skipped, newlines merge,
// comments vanish, and here-document bodies are read at the newline that
// ends their command.
func (s *scanner) next() {
	if s.bad {
		s.tok = tEOF
		return
	}
	prevNL := s.tok == tNewl
	s.spaced = false
	s.rop = 0
	s.litDone = false
	i := s.pos
	src := s.src
	for {
		if i >= len(src) {
			s.tok, s.tpos, s.pos = tEOF, i, i
			return
		}
		c := src[i]
		if c > '#' && c != '\\' {
			break // the common case: no blank, newline or comment
		}
		switch c {
		case ' ', '\t':
			s.spaced = true
			i++
			continue
		case '\\':
			if i+1 < len(src) && src[i+1] == '\n' {
				i += 2
				continue
			}
		case '\n':
			if prevNL {
				i++
				continue
			}
			if s.body {
				s.fail()
				s.tok = tEOF
				return
			}
			s.pos = i
			if s.nh > 0 {
				s.heredocs(i)
				s.litDone = false
			}
			s.tok, s.tpos, s.spaced = tNewl, i, true
			if s.bad {
				s.tok = tEOF
			}
			return
		case '#':
			if s.ctx == cTest && !s.spaced {
				break
			}
			// A comment. Inside backquotes it may end at the closing
			// backquote, and a backslash before its newline is a line
			// continuation to mvdan/sh: both are left to it.
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			if s.bq > 0 || (j > 0 && src[i+j-1] == '\\') {
				s.fail()
				s.tok = tEOF
				return
			}
			i += j
			continue
		}
		break
	}
	s.tpos = i
	c := src[i]
	if plainWordStart[c] {
		s.tok, s.pos = tWord, i
		return
	}
	n1, n2 := s.at(i+1), s.at(i+2)
	switch c {
	case ';':
		switch {
		case n1 == ';' && n2 == '&':
			s.op(tDSemiAnd, i+3)
		case n1 == ';':
			s.op(tDSemi, i+2)
		case n1 == '&':
			s.op(tSemiAnd, i+2)
		default:
			s.op(tSemi, i+1)
		}
	case '&':
		switch {
		case n1 == '&':
			s.op(tAndAnd, i+2)
		case n1 == '>' && n2 == '>':
			if s.at(i+3) == '|' {
				s.fail()
			}
			s.op(tRedir, i+3)
		case n1 == '>':
			if n2 == '|' {
				s.fail()
			}
			s.op(tRedir, i+2)
		default:
			s.op(tAmp, i+1)
		}
	case '|':
		switch n1 {
		case '|':
			s.op(tOrOr, i+2)
		case '&':
			s.op(tPipeAmp, i+2)
		default:
			s.op(tPipe, i+1)
		}
	case '(':
		if n1 == '(' && s.ctx != cTest {
			s.op(tDLParen, i+2)
		} else {
			s.op(tLParen, i+1)
		}
	case ')':
		s.op(tRParen, i+1)
	case '<', '>':
		if n1 == '(' {
			s.word()
			return
		}
		s.redirOp(i)
	case '`':
		if s.bq > 0 {
			s.op(tBqEnd, i)
			return
		}
		s.word()
	case '=':
		if n1 == '(' || s.ctx == cArray {
			s.fail()
		}
		s.word()
	case '[':
		if s.ctx == cArray {
			s.fail()
		}
		s.word()
	case '?', '*', '+', '@', '!':
		if s.extglob(i) {
			s.fail()
		}
		s.word()
	default:
		if c >= '0' && c <= '9' {
			// Digits right before < or > are the redirection's file
			// descriptor, as in 2>&1.
			j := i + 1
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			switch d := s.at(j); {
			case (d == '<' || d == '>') && s.at(j+1) != '(':
				s.redirOp(j)
				s.tpos = i
				return
			case d == '\\' && s.at(j+1) == '\n':
				s.fail()
			}
		}
		s.word()
	}
	if s.bad {
		s.tok = tEOF
	}
}

// plainWordStart holds the bytes that start a word with nothing more to
// check: not an operator, a comment, a file descriptor, an extended glob or
// a backquote.
var plainWordStart = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x80 || isAlpha(byte(c)) || strings.ContainsRune("-./~%^:,{}]\"'$", rune(c))
	}
	return t
}()

func (s *scanner) op(t token, end int) {
	s.tok, s.pos = t, end
}

// word makes the token at s.tpos the start of a word.
func (s *scanner) word() {
	s.tok, s.pos = tWord, s.tpos
}

// redirOp reads the redirection operator at i.
func (s *scanner) redirOp(i int) {
	c, n1, n2 := s.src[i], s.at(i+1), s.at(i+2)
	s.tok = tRedir
	end := i + 1
	if c == '<' {
		switch n1 {
		case '<':
			switch n2 {
			case '-':
				s.tok, s.hdash, end = tHdoc, true, i+3
			case '<':
				end = i + 3
			default:
				s.tok, s.hdash, end = tHdoc, false, i+2
			}
		case '>', '&':
			end = i + 2
		default:
			s.rop = '<'
		}
	} else {
		switch n1 {
		case '>':
			if n2 == '|' {
				s.fail() // >>| is zsh's
			}
			end = i + 2
		case '&', '|':
			end = i + 2
		default:
			s.rop = '>'
		}
	}
	s.pos = end
}

// extglob reports whether the ?, *, +, @ or ! at i starts an extended
// glob such as @(a|b), which the recognizer leaves to mvdan/sh.
func (s *scanner) extglob(i int) bool {
	return s.at(i+1) == '(' && s.at(i+2) != ')'
}

// take scans the word the current token starts and reads the next token.
func (s *scanner) take() {
	if s.litDone && s.litLI.word {
		s.pos = s.litLI.end // lit read the whole word already
	} else {
		s.pos = s.scanWord(s.tpos)
	}
	s.next()
}

// litInfo describes the literal a word starts with, as mvdan/sh's
// advanceLitNone reads it.
type litInfo struct {
	end   int
	lit   bool // the word starts with a literal
	word  bool // the literal is the whole token (mvdan/sh's _LitWord)
	split bool // the literal ended at a '[' (as in a[i]=x)
	eql   int  // offset of the first '=', or -1
}

// lit reads the literal the current word starts with, failing when it
// holds a line continuation (mvdan/sh drops it from the literal's value).
// The answer lasts until the next token.
func (s *scanner) lit() *litInfo {
	li := &s.litLI
	if s.litDone {
		return li
	}
	s.litDone = true
	i := s.tpos
	*li = litInfo{end: i, eql: -1}
	switch s.src[i] {
	case '\'', '"', '$', '`', '<', '>':
		return li
	}
	end, cont := s.litRun(i)
	li.lit, li.end, li.word, li.eql = true, end, !cont, s.runEql
	li.split = cont && s.at(end) == '['
	if s.runEsc {
		s.fail()
	}
	return li
}

// litRun reads a literal from i as mvdan/sh's advanceLitNone does and
// returns its end, and whether the word goes on there (a quote, an
// expansion, a process substitution, or the '[' of a[i]) rather than ends.
func (s *scanner) litRun(i int) (end int, cont bool) {
	src := s.src
	start := i
	s.runEql, s.runEsc = -1, false
	for i < len(src) {
		if plainLit[src[i]] {
			i++
			continue
		}
		switch c := src[i]; c {
		case ' ', '\t', '\n', '&', '|', ';', '(', ')':
			return i, false
		case '\\':
			if s.at(i+1) == '\n' {
				s.runEsc = true
			}
			i += 2
			continue
		case '=':
			if s.runEql < 0 {
				s.runEql = i - start
			}
		case '<', '>':
			if s.at(i+1) == '(' {
				return i, true
			}
			if src[start] == '{' && i-start >= 2 && src[i-1] == '}' {
				s.fail() // {fd}> redirects
			}
			return i, false
		case '`':
			if s.bq > 0 && s.ctx == cBq {
				return i, false
			}
			return i, true
		case '"', '\'', '$':
			return i, true
		case '?', '*', '+', '@', '!':
			if s.extglob(i) {
				s.fail()
				return i, false
			}
		case '[':
			if i > start && src[start] != '[' && src[start] != '{' {
				return i, true
			}
		}
		i++
	}
	return len(src), false
}

// plainLit holds the bytes that go on an unquoted literal with nothing
// more to check.
var plainLit = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x80 || c > ' ' && !strings.ContainsRune("&|;()\\=<>`\"'$?*+@![", rune(c))
	}
	t['\x0b'], t['\f'] = true, true
	return t
}()
