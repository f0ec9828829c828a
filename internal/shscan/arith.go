package shscan

// atok is a token of an arithmetic expression.
type atok uint8

const (
	aEOF    atok = iota
	aLit         // a number or a name
	aWord        // an operand that starts with $ or a quote
	aLParen      // (
	aRParen      // )
	aLBrack      // [
	aRBrack      // ]
	aQuest       // ?
	aColon       // :
	aComma       // ,
	aRBrace      // } of ${a[i]} or ${a:i}
	aSemi        // ; of for (( ))
	aDSemi       // ;; of for (( ))
	aNot         // !
	aTilde       // ~
	aPlus        // +
	aMinus       // -
	aInc         // ++
	aDec         // --
	aBin         // any other binary operator
	aAssign      // = and the op= operators
)

// aNext reads the arithmetic token at s.aend as mvdan/sh's arithmToken
// does; anything the recognizer does not read fails.
func (s *scanner) aNext() {
	src := s.src
	i := s.aend
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	s.apos = i
	if i >= len(src) || s.bad {
		s.a, s.aend = aEOF, i
		return
	}
	c, n1, n2 := src[i], s.at(i+1), s.at(i+2)
	t, l := aBin, 1
	switch c {
	case '!':
		if n1 == '=' {
			l = 2
		} else {
			t = aNot
		}
	case '=':
		if n1 == '=' {
			l = 2
		} else {
			t = aAssign
		}
	case '~':
		t = aTilde
	case '(':
		t = aLParen
	case ')':
		t = aRParen
	case '&', '|':
		switch n1 {
		case c:
			l = 2
		case '=':
			t, l = aAssign, 2
		}
	case '<', '>':
		switch {
		case n1 == c && n2 == '=':
			t, l = aAssign, 3
		case n1 == c || n1 == '=':
			l = 2
		}
	case '+', '-':
		switch {
		case n1 == c && c == '+':
			t, l = aInc, 2
		case n1 == c:
			t, l = aDec, 2
		case n1 == '=':
			t, l = aAssign, 2
		case c == '+':
			t = aPlus
		default:
			t = aMinus
		}
	case '*':
		switch n1 {
		case '*':
			l = 2
		case '=':
			t, l = aAssign, 2
		}
	case '%', '/':
		if n1 == '=' {
			t, l = aAssign, 2
		}
	case '^':
		switch n1 {
		case '^':
			s.fail()
		case '=':
			t, l = aAssign, 2
		}
	case '[':
		t = aLBrack
	case ']':
		t = aRBrack
	case ',':
		t = aComma
	case '?':
		t = aQuest
	case ':':
		t = aColon
	case ';':
		switch {
		case s.actx != acCmd || n1 == '&' || (n1 == ';' && n2 == '&'):
			s.fail()
		case n1 == ';':
			t, l = aDSemi, 2
		default:
			t = aSemi
		}
	case '}':
		if s.actx != acIndex && s.actx != acSlice {
			s.fail()
		}
		t = aRBrace
	case '$', '"', '\'':
		s.a, s.aend = aWord, s.aWordEnd(i)
		return
	default:
		if !isAlnum(c) {
			s.fail()
			break
		}
		j := i + 1
		for j < len(src) && isAlnum(src[j]) {
			j++
		}
		if !s.endsArithLit(s.at(j)) {
			s.fail()
		}
		t, l = aLit, j-i
	}
	if s.bad {
		s.a, s.aend = aEOF, len(src)
		return
	}
	s.a, s.aend = t, i+l
}

// endsArithLit reports whether c ends an arithmetic literal and begins a
// token the recognizer reads (mvdan/sh's advanceLitOther goes on at others).
func (s *scanner) endsArithLit(c byte) bool {
	switch c {
	case ' ', '\t', '+', '-', '!', '~', '*', '/', '%', '(', ')', '^', '<', '>',
		':', '=', ',', '?', '|', '&', '[', ']', ';':
		return true
	case '}':
		return s.actx == acIndex || s.actx == acSlice
	}
	return false
}

// aWordEnd returns the end of an operand made of expansions, quotes and
// literals, starting at i.
func (s *scanner) aWordEnd(i int) int {
	src := s.src
	for !s.bad {
		switch c := s.at(i); {
		case c == '$':
			i = s.dollar(i, false)
		case c == '"':
			i = s.dquote(i + 1)
		case c == '\'':
			i = s.squote(i + 1)
		case isAlnum(c):
			for i < len(src) && isAlnum(src[i]) {
				i++
			}
			if c := s.at(i); c != '$' && c != '"' && c != '\'' && !s.endsArithLit(c) {
				s.fail()
			}
		default:
			return i
		}
	}
	return i
}

// aComma reads a comma-separated expression and reports whether there was
// one.
func (s *scanner) aComma() bool {
	s.descend()
	ok := s.aAssign()
	for s.a == aComma && !s.bad {
		if !ok {
			s.fail()
		}
		s.aNext()
		if !s.aAssign() {
			s.fail()
		}
	}
	s.ascend()
	return ok && !s.bad
}

// aAssign, aTernary, aBinary, aUnary and aValue are the levels of
// mvdan/sh's arithmetic grammar. Each reports whether an expression was
// there and, below aAssign, whether it was a name, which = and ++ need.
func (s *scanner) aAssign() bool {
	present, name := s.aTernary()
	if s.a == aAssign {
		if !name {
			s.fail()
		}
		s.aNext()
		if !s.aAssign() {
			s.fail()
		}
		return true
	}
	return present
}

func (s *scanner) aTernary() (present, name bool) {
	present, name = s.aBinary()
	if s.a != aQuest {
		return present, name
	}
	if !present {
		s.fail()
	}
	s.aNext()
	if s.a == aColon || !s.aComma() || s.a != aColon {
		s.fail()
		return false, false
	}
	s.aNext()
	if p, _ := s.aTernary(); !p {
		s.fail()
	}
	return true, false
}

func (s *scanner) aBinary() (present, name bool) {
	present, name = s.aUnary()
	for (s.a == aBin || s.a == aPlus || s.a == aMinus) && !s.bad {
		if !present {
			s.fail()
		}
		s.aNext()
		if p, _ := s.aUnary(); !p {
			s.fail()
		}
		present, name = true, false
	}
	return present, name
}

func (s *scanner) aUnary() (present, name bool) {
	switch s.a {
	case aNot, aTilde, aPlus, aMinus:
		s.aNext()
		s.descend()
		if p, _ := s.aUnary(); !p {
			s.fail()
		}
		s.ascend()
		return true, false
	}
	return s.aValue()
}

func (s *scanner) aValue() (present, name bool) {
	switch s.a {
	case aInc, aDec:
		s.aNext()
		if s.a != aLit {
			s.fail()
			return false, false
		}
		s.aValue()
		return true, false
	case aLParen:
		s.aNext()
		if !s.aComma() || s.a != aRParen {
			s.fail()
			return false, false
		}
		s.aNext()
		if s.actx == acIndex && s.a == aLit {
			s.fail() // subscript flags are zsh's
		}
	case aLit:
		name = validName(s.src[s.apos:s.aend])
		s.aNext()
		if s.a == aLBrack {
			s.aend = s.index(s.aend)
			s.aNext()
		}
	case aWord:
		s.aNext()
	default:
		return false, false
	}
	if s.a == aInc || s.a == aDec {
		if !name {
			s.fail()
		}
		s.aNext()
		return true, false
	}
	return true, name
}

// arithEnd checks the )) that ends (( )) or for (( )) and returns the
// position after it.
func (s *scanner) arithEnd() int {
	if s.a != aRParen || s.at(s.aend) != ')' {
		s.fail()
		return len(s.src)
	}
	return s.aend + 1
}

// arithExp returns the end of $(( )) whose content starts at i.
func (s *scanner) arithExp(i int) int {
	s.enter()
	saved := s.actx
	s.actx = acExpr
	s.aend = i
	s.aNext()
	if !s.aComma() {
		s.fail()
	}
	end := s.arithEnd()
	s.actx = saved
	s.leave()
	return end
}

// index returns the end of the [ ] of a parameter or an assignment, from i
// after the [.
func (s *scanner) index(i int) int {
	if (s.at(i) == '@' || s.at(i) == '*') && s.at(i+1) == ']' {
		return i + 2
	}
	saved := s.actx
	s.actx = acIndex
	s.aend = i
	s.aNext()
	if !s.aComma() || s.a != aRBrack {
		s.fail()
	}
	s.actx = saved
	return s.aend
}

// slice returns the end of ${a:offset:length} from i after the first :,
// past the closing }.
func (s *scanner) slice(i int) int {
	saved := s.actx
	s.actx = acSlice
	s.aend = i
	s.aNext()
	if s.a != aColon && !s.aComma() {
		s.fail()
	}
	if s.a == aColon {
		s.aNext()
		if !s.aComma() {
			s.fail()
		}
	}
	if s.a != aRBrace {
		s.fail()
	}
	s.actx = saved
	return s.aend
}
