package shscan

import "strings"

// scanWord scans the word at i in a statement context and returns its end.
func (s *scanner) scanWord(i int) int {
	src := s.src
	afterPart := false
	for !s.bad {
		if i >= len(src) {
			return len(src)
		}
		c := src[i]
		if afterPart {
			// Between a quote or expansion and what follows, mvdan/sh
			// reads a new token.
			for c == '\\' && s.at(i+1) == '\n' {
				i += 2
				if i >= len(src) {
					return i
				}
				c = src[i]
			}
			switch c {
			case ' ', '\t', '\n', ';', '&', '|', '(', ')':
				return i
			case '<', '>':
				if s.at(i+1) != '(' {
					return i
				}
			case '#':
				if s.ctx != cTop {
					s.fail() // a comment to mvdan/sh
					return i
				}
			case '[', '=':
				if s.ctx == cArray || (c == '=' && s.at(i+1) == '(') {
					s.fail()
					return i
				}
			case '?', '*', '+', '@', '!':
				if s.extglob(i) {
					s.fail()
					return i
				}
			}
		}
		switch c {
		case '\'':
			i = s.squote(i + 1)
		case '"':
			i = s.dquote(i + 1)
		case '$':
			i = s.dollar(i, false)
		case '`':
			if s.bq > 0 {
				return i
			}
			i = s.bquote(i + 1)
		case '<', '>':
			i = s.cmdSubst(i + 2)
		default:
			end, cont := s.litRun(i)
			if !cont {
				return end
			}
			i = end
			afterPart = false
			continue
		}
		afterPart = true
	}
	return i
}

// squote returns the end of '...' whose content starts at i.
func (s *scanner) squote(i int) int {
	j := strings.IndexByte(s.src[i:], '\'')
	if j < 0 {
		s.fail()
		return len(s.src)
	}
	return i + j + 1
}

// dsquote returns the end of $'...' whose content starts at i.
func (s *scanner) dsquote(i int) int {
	for i < len(s.src) {
		switch s.src[i] {
		case '\\':
			i += 2
			continue
		case '\'':
			return i + 1
		}
		i++
	}
	s.fail()
	return len(s.src)
}

// dquote returns the end of "..." whose content starts at i.
func (s *scanner) dquote(i int) int {
	src := s.src
	for i < len(src) && !s.bad {
		if plainDq[src[i]] {
			i++
			continue
		}
		switch src[i] {
		case '"':
			return i + 1
		case '\\':
			i += 2
		case '$':
			i = s.dollar(i, true)
		case '`':
			if s.bq > 0 {
				s.fail()
				return i
			}
			i = s.bquote(i + 1)
		default:
			i++
		}
	}
	s.fail()
	return len(src)
}

// plainDq holds the bytes that go on a double-quoted literal.
var plainDq = func() (t [256]bool) {
	for c := range t {
		t[c] = !strings.ContainsRune("\"\\$`", rune(c))
	}
	return t
}()

// bquote returns the end of `...` whose content starts at i. Only plain
// contents pass: no backslashes (mvdan/sh unescapes them), quotes,
// comments or here-documents.
func (s *scanner) bquote(i int) int {
	j := strings.IndexByte(s.src[i:], '`')
	if j < 0 || strings.ContainsAny(s.src[i:i+j], "\\'\"#") || strings.Contains(s.src[i:i+j], "<<") {
		s.fail()
		return len(s.src)
	}
	saved := s.ctx
	s.bq++
	s.enter()
	s.ctx = cBq
	s.pos = i
	s.tok = tStart
	s.next()
	s.stmtList(0)
	s.ctx = saved
	s.leave()
	s.bq--
	if s.tok != tBqEnd || s.tpos != i+j {
		s.fail()
		return len(s.src)
	}
	return i + j + 1
}

// cmdSubst returns the end of $( ), <( ) or >( ) whose content starts at i.
func (s *scanner) cmdSubst(i int) int {
	saved := s.enterParens(cSub)
	s.pos = i
	s.tok = tStart
	s.next()
	s.stmtList(0)
	if !s.closeParen(saved) {
		return len(s.src)
	}
	return s.tpos + 1
}

// dollar returns the end of the expansion at the $ at i; dq is for double
// quotes and here-document bodies, where $' and $" are not quotes.
func (s *scanner) dollar(i int, dq bool) int {
	c := s.at(i + 1)
	switch {
	case c == '{':
		return s.paramExp(i + 2)
	case c == '(':
		if s.at(i+2) == '(' {
			return s.arithExp(i + 3)
		}
		return s.cmdSubst(i + 2)
	case c == '[' || c == '\\':
		s.fail()
		return i + 1
	case c == '\'' && !dq:
		return s.dsquote(i + 2)
	case c == '"' && !dq:
		return s.dquote(i + 2)
	case isSpecialParam(c) || (c >= '0' && c <= '9'):
		return i + 2
	case isAlpha(c):
		j := i + 2
		for j < len(s.src) && isAlnum(s.src[j]) {
			j++
		}
		if s.at(j) == '\\' && s.at(j+1) == '\n' {
			s.fail()
		}
		return j
	}
	return i + 1 // a lone $
}

func isSpecialParam(c byte) bool {
	switch c {
	case '@', '*', '#', '?', '-', '$', '!':
		return true
	}
	return false
}

func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isAlnum(c byte) bool {
	return isAlpha(c) || c >= '0' && c <= '9'
}

// validName is mvdan/sh's ValidName: a name a variable may have.
func validName(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}

// paramExp returns the end of ${...} whose content starts at i.
func (s *scanner) paramExp(i int) int {
	s.descend()
	i = s.paramExpBody(i)
	s.ascend()
	return i
}

func (s *scanner) paramExpBody(i int) int {
	src := s.src
	length, excl := false, false
	switch s.at(i) {
	case '#':
		switch c := s.at(i + 1); {
		case isAlnum(c) || c == '@' || c == '*':
			length = true
			i++
		case c != '}':
			s.fail()
			return i
		}
	case '!':
		switch c := s.at(i + 1); {
		case isAlpha(c):
			excl = true
			i++
		case c != '}':
			s.fail()
			return i
		}
	}
	// The parameter.
	name := false
	switch c := s.at(i); {
	case isAlnum(c):
		j := i
		for j < len(src) && isAlnum(src[j]) {
			j++
		}
		name = validName(src[i:j])
		if !name && !allDigits(src[i:j]) {
			s.fail()
			return j
		}
		i = j
	case c == '@' || c == '*':
		i++
	case isSpecialParam(c) && !length:
		if c == '$' && (s.at(i+1) == '{' || s.at(i+1) == '(') {
			s.fail()
			return i
		}
		i++
	default:
		s.fail()
		return i
	}
	if s.at(i) == '[' {
		if !name {
			s.fail()
			return i
		}
		i = s.index(i + 1)
		if s.bad {
			return i
		}
	}
	c := s.at(i)
	if c == '}' {
		return i + 1
	}
	if length {
		s.fail()
		return i
	}
	switch c {
	case ':':
		switch s.at(i + 1) {
		case '-', '=', '?', '+':
			return s.paramWord(i+2, false)
		case '#', '|', '*', '\\':
			s.fail()
			return i
		}
		return s.slice(i + 1)
	case '-', '=', '?', '+':
		return s.paramWord(i+1, false)
	case '%', '#', '^', ',':
		if s.at(i+1) == c {
			i++
		}
		return s.paramWord(i+1, false)
	case '/':
		if s.at(i+1) == '/' {
			i++
		}
		i = s.paramWord(i+1, true)
		if s.bad || s.at(i-1) == '}' {
			return i
		}
		return s.paramWord(i, false)
	case '@':
		if excl && s.at(i+1) == '}' {
			return i + 2
		}
		if !excl && strings.IndexByte("akuAEKLPUQ", s.at(i+1)) >= 0 && s.at(i+1) != 0 && s.at(i+2) == '}' {
			return i + 3
		}
	case '*':
		if excl && s.at(i+1) == '}' {
			return i + 2
		}
	}
	s.fail()
	return i
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// paramWord scans the word of ${x:-word} or of ${x/pattern/word} from i up
// to its closing }, which it takes, or, for repl, up to the / before the
// replacement, after which it returns.
func (s *scanner) paramWord(i int, repl bool) int {
	src := s.src
	for i < len(src) && !s.bad {
		switch src[i] {
		case '}':
			return i + 1
		case '/':
			if repl {
				return i + 1
			}
			i++
		case '\\':
			if s.at(i+1) == '\n' {
				s.fail()
			}
			i += 2
		case '\n':
			s.fail()
		case '\'':
			i = s.squote(i + 1)
		case '"':
			i = s.dquote(i + 1)
		case '$':
			i = s.dollar(i, false)
		case '`':
			if s.bq > 0 {
				s.fail()
				return i
			}
			i = s.bquote(i + 1)
		default:
			i++
		}
	}
	s.fail()
	return len(src)
}
