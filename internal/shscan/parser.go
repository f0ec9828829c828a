package shscan

import "strings"

// stmtList reads statements up to one of the stop words (a set of kw
// bits), a closing token of the context, or EOF, and returns how many.
func (s *scanner) stmtList(stops uint16) int {
	s.descend()
	n := 0
	gotEnd := true
loop:
	for s.tok != tEOF && !s.bad {
		newLine := false
		if s.tok == tNewl {
			newLine = true
			s.next()
		}
		switch s.tok {
		case tWord:
			if k := s.keyword(); k != 0 {
				if stops&k != 0 {
					break loop
				}
				if k == kwRBrace {
					s.fail()
				}
			}
		case tRParen:
			if s.ctx == cSub {
				break loop
			}
		case tBqEnd:
			break loop
		case tDSemi, tSemiAnd, tDSemiAnd:
			if s.ctx == cCase {
				break loop
			}
			s.fail()
		}
		if !newLine && !gotEnd {
			s.fail()
		}
		if s.tok == tEOF || s.bad {
			break
		}
		end, ok := s.getStmt(true, false)
		if !ok {
			s.fail()
			break
		}
		gotEnd = end
		n++
	}
	s.ascend()
	return n
}

// followStmts reads the non-empty statement list a keyword requires.
func (s *scanner) followStmts(stops uint16) {
	if s.tok == tSemi {
		s.fail()
		return
	}
	if s.stmtList(stops) < 1 {
		s.fail()
	}
}

// stopToken is mvdan/sh's stopToken: what ends a command's words.
func (s *scanner) stopToken() bool {
	switch s.tok {
	case tEOF, tNewl, tSemi, tAmp, tPipe, tAndAnd, tOrOr, tPipeAmp,
		tDSemi, tSemiAnd, tDSemiAnd, tRParen, tBqEnd:
		return true
	}
	return false
}

// getStmt reads a statement: an and-or list of pipelines, with its
// terminator when readEnd. It reports whether a terminator (; or &) ended
// it, and false for ok when there was no statement.
func (s *scanner) getStmt(readEnd, binCmd bool) (end, ok bool) {
	if s.tok == tWord && s.src[s.tpos] == '!' && s.isWord("!") {
		s.expect("!")
		if s.stopToken() || s.isWord("!") {
			s.fail()
			return false, false
		}
	}
	if !s.pipeline(false) || s.bad {
		return false, false
	}
	for s.tok == tAndAnd || s.tok == tOrOr {
		if binCmd {
			return false, true
		}
		s.next()
		if s.tok == tNewl {
			s.next()
		}
		if _, ok := s.getStmt(false, true); !ok || s.bad {
			s.fail()
			return false, false
		}
	}
	if readEnd && (s.tok == tSemi || s.tok == tAmp) {
		s.next()
		return true, true
	}
	return false, true
}

// pipeline is mvdan/sh's gotStmtPipe: redirections, one command,
// redirections, and, unless binCmd, the rest of the pipeline. It reports
// whether there was a statement.
func (s *scanner) pipeline(binCmd bool) bool {
	s.descend()
	ok := s.pipelineBody(binCmd)
	s.ascend()
	return ok
}

func (s *scanner) pipelineBody(binCmd bool) bool {
	redirs := 0
	for s.tok == tRedir || s.tok == tHdoc {
		s.redirect()
		redirs++
	}
	cmd := false
	plainCall := false
	switch s.tok {
	case tWord:
		li := s.lit()
		if s.bad {
			return false
		}
		litWord := li.word
		if li.word {
			cmd = s.compound(s.src[s.tpos:li.end], redirs > 0)
			if s.bad {
				return false
			}
		}
		if cmd {
			break
		}
		cmd, plainCall = true, true
		if s.validIdent(li) {
			s.callExpr(0, s.assign(li))
			break
		}
		s.take()
		if s.tok == tLParen {
			if !litWord || redirs > 0 {
				s.fail()
				return false
			}
			s.next()
			if s.tok != tRParen {
				s.fail()
				return false
			}
			s.next()
			s.funcBody()
			plainCall = false
			break
		}
		s.callExpr(1, false)
	case tLParen:
		if s.at(s.tpos+1) == ')' || redirs > 0 {
			s.fail()
			return false
		}
		s.subshell()
		cmd = true
	case tDLParen:
		if redirs > 0 {
			s.fail()
			return false
		}
		s.arithCmd()
		cmd = true
	}
	if s.bad {
		return false
	}
	if !cmd && redirs == 0 {
		return false
	}
	if redirs > 0 && cmd && !plainCall {
		s.fail()
		return false
	}
	for s.tok == tRedir || s.tok == tHdoc {
		s.redirect()
	}
	for s.tok == tPipe || s.tok == tPipeAmp {
		if binCmd {
			return true
		}
		s.next()
		if s.tok == tNewl {
			s.next()
		}
		if !s.pipeline(true) || s.bad {
			s.fail()
			return false
		}
	}
	return !s.bad
}

// keyword bits for stop words.
const (
	kwThen uint16 = 1 << iota
	kwFi
	kwElif
	kwElse
	kwDo
	kwDone
	kwEsac
	kwRBrace
)

// keyword returns the stop-word bit of the word the current token starts,
// or 0 when it is not a lone reserved word.
func (s *scanner) keyword() uint16 {
	c := s.src[s.tpos]
	if c != '}' && (c < 'a' || c > 't') {
		return 0
	}
	li := s.lit()
	if !li.word {
		return 0
	}
	switch s.src[s.tpos:li.end] {
	case "then":
		return kwThen
	case "fi":
		return kwFi
	case "elif":
		return kwElif
	case "else":
		return kwElse
	case "do":
		return kwDo
	case "done":
		return kwDone
	case "esac":
		return kwEsac
	case "}":
		return kwRBrace
	}
	return 0
}

// isWord reports whether the current token is the lone literal w.
func (s *scanner) isWord(w string) bool {
	if s.tok != tWord || s.src[s.tpos] != w[0] || !strings.HasPrefix(s.src[s.tpos:], w) {
		return false
	}
	li := s.lit()
	return li.word && li.end-s.tpos == len(w)
}

// expect takes the lone literal w or fails.
func (s *scanner) expect(w string) {
	if !s.isWord(w) {
		s.fail()
		return
	}
	s.pos = s.tpos + len(w)
	s.next()
}

// compound reads the command a reserved word starts and reports whether
// there was one; a reserved word it does not read fails.
func (s *scanner) compound(w string, redirs bool) bool {
	if len(w) > 8 || !reservedStart[w[0]] {
		return false
	}
	switch w {
	case "{", "if", "while", "until", "for", "case", "[[", "function",
		"declare", "local", "export", "readonly", "typeset", "time":
		if redirs {
			s.fail() // redirections before a compound command are zsh's
			return false
		}
	case "}", "then", "elif", "else", "fi", "do", "done", "esac", "in", "]]",
		"!", "let", "coproc", "select", "nameref", "@test":
		s.fail()
		return false
	default:
		return false
	}
	if w == "[[" {
		s.testClause()
		return true
	}
	s.pos = s.tpos + len(w)
	s.next()
	switch w {
	case "{":
		s.followStmts(kwRBrace)
		s.expect("}")
	case "if":
		s.followStmts(kwThen)
		s.expect("then")
		s.followStmts(kwFi | kwElif | kwElse)
		for s.isWord("elif") && !s.bad {
			s.expect("elif")
			s.followStmts(kwThen)
			s.expect("then")
			s.followStmts(kwFi | kwElif | kwElse)
		}
		if s.isWord("else") {
			s.expect("else")
			s.followStmts(kwFi)
		}
		s.expect("fi")
	case "while", "until":
		s.followStmts(kwDo)
		s.expect("do")
		s.followStmts(kwDone)
		s.expect("done")
	case "for":
		s.forClause()
	case "case":
		s.caseClause()
	case "function":
		if s.tok != tWord {
			s.fail()
			return true
		}
		li := s.lit()
		name := s.src[s.tpos:li.end]
		if !li.word || name == "{" || !validFuncName(name) {
			s.fail()
			return true
		}
		s.take()
		if s.tok == tLParen {
			s.next()
			if s.tok != tRParen {
				s.fail()
				return true
			}
			s.next()
		} else if s.tok == tWord && !s.isWord("{") {
			s.fail() // more than one name is zsh's
			return true
		}
		s.funcBody()
	case "time":
		if s.isWord("-p") {
			s.expect("-p")
		}
		s.pipeline(false)
	default:
		s.declClause()
	}
	return true
}

// reservedStart holds the first bytes of the words compound reads or
// refuses.
var reservedStart = func() (t [256]bool) {
	for _, c := range "{}iwufc[dlertns!]@" {
		t[c] = true
	}
	return t
}()

// validFuncName keeps function names to plain ones.
func validFuncName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(isAlnum(c) || c == '-' || c == '.' || c == ':') {
			return false
		}
	}
	return name != ""
}

// funcBody reads the statement a function declaration takes as its body.
func (s *scanner) funcBody() {
	if s.tok == tNewl {
		s.next()
	}
	if _, ok := s.getStmt(false, false); !ok {
		s.fail()
	}
}

// forClause reads a for loop after the for: a C-style (( )) header or a
// name with its words, then do ... done or { ... }.
func (s *scanner) forClause() {
	if s.tok == tDLParen {
		s.enter()
		saved := s.actx
		s.actx = acCmd
		s.aend = s.pos
		s.aNext()
		s.aComma()
		if s.a == aDSemi {
			s.aNext()
		} else {
			if s.a != aSemi {
				s.fail()
				return
			}
			s.aNext()
			s.aComma()
			if s.a != aSemi {
				s.fail()
				return
			}
			s.aNext()
		}
		s.aComma()
		s.pos = s.arithEnd()
		s.actx = saved
		s.leave()
		s.next()
		if s.tok == tSemi {
			s.next()
		}
		if s.tok == tNewl {
			s.next()
		}
	} else {
		if s.tok != tWord {
			s.fail()
			return
		}
		li := s.lit()
		if !li.word || !validName(s.src[s.tpos:li.end]) {
			s.fail()
			return
		}
		s.take()
		switch {
		case s.tok == tSemi:
			s.next()
			if s.tok == tNewl {
				s.next()
			}
		default:
			if s.tok == tNewl {
				s.next()
			}
			if s.isWord("in") {
				s.expect("in")
				for !s.stopToken() && !s.bad {
					if s.tok != tWord {
						s.fail()
						return
					}
					s.take()
				}
				if s.tok == tSemi {
					s.next()
				}
				if s.tok == tNewl {
					s.next()
				}
			} else if !s.isWord("do") {
				s.fail()
				return
			}
		}
	}
	if s.isWord("{") {
		s.expect("{")
		s.followStmts(kwRBrace)
		s.expect("}")
		return
	}
	s.expect("do")
	s.followStmts(kwDone)
	s.expect("done")
}

// caseClause reads a case statement after the case.
func (s *scanner) caseClause() {
	if s.tok != tWord {
		s.fail()
		return
	}
	s.take()
	if s.tok == tNewl {
		s.next()
	}
	s.expect("in")
	if s.tok == tNewl {
		s.next()
	}
	for s.tok != tEOF && !s.isWord("esac") && !s.bad {
		if s.tok == tLParen {
			s.next()
		}
		for {
			if s.tok != tWord {
				s.fail()
				return
			}
			s.take()
			if s.tok == tRParen {
				break
			}
			if s.tok != tPipe {
				s.fail()
				return
			}
			s.next()
		}
		saved := s.ctx
		s.enter()
		s.ctx = cCase
		s.next()
		s.stmtList(kwEsac)
		s.ctx = saved
		s.leave()
		switch s.tok {
		case tDSemi, tSemiAnd, tDSemiAnd:
			s.next()
			if s.tok == tNewl {
				s.next()
			}
			continue
		}
		break
	}
	s.expect("esac")
}

// subshell reads ( ... ) from the statement after the (.
func (s *scanner) subshell() {
	saved := s.enterParens(cSub)
	s.next()
	s.followStmts(0)
	if s.closeParen(saved) {
		s.next()
	}
}

// arithCmd reads (( ... )) from the expression after the ((.
func (s *scanner) arithCmd() {
	s.enter()
	saved := s.actx
	s.actx = acCmd
	s.aend = s.pos
	s.aNext()
	if !s.aComma() {
		s.fail()
	}
	s.pos = s.arithEnd()
	s.actx = saved
	s.leave()
	s.next()
}

// testClause reads [[ ... ]] after the [[.
func (s *scanner) testClause() {
	saved := s.ctx
	s.enter()
	s.ctx = cTest
	s.pos = s.tpos + 2
	s.next()
	if ok, _ := s.testBinary(false); !ok {
		s.fail()
	}
	// mvdan/sh reads the token after ]] before leaving the test.
	s.expect("]]")
	s.ctx = saved
	s.leave()
}

// testBinary is mvdan/sh's testExprBinary: an expression of [[ ]], and
// whether there was one and it was a lone word.
func (s *scanner) testBinary(pastAndOr bool) (present, word bool) {
	s.descend()
	present, word = s.testBinaryBody(pastAndOr)
	s.ascend()
	return present, word
}

func (s *scanner) testBinaryBody(pastAndOr bool) (present, word bool) {
	if s.tok == tNewl {
		s.fail()
		return false, false
	}
	if pastAndOr {
		present, word = s.testUnary()
	} else {
		present, word = s.testBinary(true)
	}
	if !present || s.bad {
		return present, word
	}
	regex := false
	switch s.tok {
	case tNewl:
		s.fail()
		return false, false
	case tAndAnd, tOrOr:
		s.next()
		if ok, _ := s.testBinary(false); !ok {
			s.fail()
		}
		return true, false
	case tWord:
		li := s.lit()
		if !li.word {
			s.fail()
			return false, false
		}
		switch s.src[s.tpos:li.end] {
		case "]]":
			return present, word
		case "=~":
			regex = true
		case "=", "==", "!=", "-nt", "-ot", "-ef", "-eq", "-ne", "-le", "-ge", "-lt", "-gt":
		default:
			s.fail()
			return false, false
		}
		s.pos = li.end
	case tRedir:
		if s.rop == 0 || s.tpos != s.pos-1 {
			s.fail()
			return false, false
		}
	case tEOF, tRParen:
		return present, word
	default:
		s.fail()
		return false, false
	}
	if !word {
		s.fail()
		return false, false
	}
	if regex {
		s.pos = s.regexWord(s.pos)
		s.tok = tStart
		s.next()
		return true, false
	}
	s.next()
	if s.tok != tWord {
		s.fail()
		return false, false
	}
	s.take()
	return true, false
}

// testUnary is mvdan/sh's testExprUnary: an operand of [[ ]].
func (s *scanner) testUnary() (present, word bool) {
	switch s.tok {
	case tWord:
		li := s.lit()
		if li.word {
			switch op := s.src[s.tpos:li.end]; op {
			case "!":
				s.expect("!")
				if ok, _ := s.testBinary(false); !ok {
					s.fail()
				}
				return true, false
			case "-e", "-a", "-f", "-d", "-c", "-b", "-p", "-S", "-L", "-h", "-k",
				"-g", "-u", "-G", "-O", "-N", "-r", "-w", "-x", "-s", "-t", "-z",
				"-n", "-o", "-v", "-R":
				s.expect(op)
				if s.tok != tWord {
					s.fail()
					return false, false
				}
				s.take()
				return true, false
			case "]]":
				return false, false
			}
		}
		s.take()
		return true, true
	case tLParen:
		s.next()
		if ok, _ := s.testBinary(false); !ok {
			s.fail()
			return false, false
		}
		if s.tok != tRParen {
			s.fail()
			return false, false
		}
		s.next()
		return true, false
	}
	return false, false
}

// regexWord scans the word after =~ from i (blanks first) and returns its
// end; mvdan/sh lexes it apart, so only plain regular expressions pass.
func (s *scanner) regexWord(i int) int {
	src := s.src
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	depth := 0
	start := i
	for i < len(src) && !s.bad {
		switch src[i] {
		case ' ', '\t', '\n', ';', '&', '<', '>':
			if depth > 0 || i == start {
				s.fail()
			}
			return i
		case '\\':
			if s.at(i+1) == '\n' {
				s.fail()
			}
			i += 2
		case '(':
			depth++
			i++
		case ')':
			if depth == 0 {
				s.fail()
			}
			depth--
			i++
		case '"':
			i = s.dquote(i + 1)
		case '\'':
			i = s.squote(i + 1)
		case '$':
			i = s.dollar(i, false)
		case '`':
			s.fail()
		default:
			i++
		}
	}
	if depth > 0 || i == start {
		s.fail()
	}
	return min(i, len(src))
}

// declClause reads the names and assignments of declare, local, export,
// readonly or typeset.
func (s *scanner) declClause() {
	for !s.stopToken() && s.tok != tRedir && s.tok != tHdoc && !s.bad {
		if s.tok != tWord {
			s.fail()
			return
		}
		li := s.lit()
		switch {
		case s.validIdent(li):
			s.assign(li)
		case li.lit && li.eql > 0:
			name := s.src[s.tpos : s.tpos+li.eql]
			if !strings.Contains(name, "{") {
				s.fail() // an invalid variable name
				return
			}
			s.take()
		default:
			s.take()
		}
	}
}

// callExpr reads the rest of a simple command after its first word or
// assignment; args is how many words it has taken, and arrays whether an
// assignment was an array or an indexed one.
func (s *scanner) callExpr(args int, arrays bool) {
	for !s.bad {
		switch s.tok {
		case tEOF, tNewl, tSemi, tAmp, tPipe, tAndAnd, tOrOr, tPipeAmp,
			tDSemi, tSemiAnd, tDSemiAnd, tBqEnd:
			if args > 0 && arrays {
				s.fail() // inline variables cannot be arrays
			}
			return
		case tWord:
			if args == 0 {
				li := s.lit()
				if s.validIdent(li) {
					if s.assign(li) {
						arrays = true
					}
					continue
				}
			}
			s.take()
			args++
		case tRParen:
			if s.ctx != cSub {
				s.fail()
				return
			}
			if args > 0 && arrays {
				s.fail()
			}
			return
		case tRedir, tHdoc:
			s.redirect()
		default:
			s.fail()
			return
		}
	}
}

// validIdent is mvdan/sh's hasValidIdent: the word starts an assignment.
func (s *scanner) validIdent(li *litInfo) bool {
	if !li.lit || (li.eql < 0 && !li.split) {
		return false
	}
	val := s.src[s.tpos:li.end]
	if li.eql > 0 {
		name := val[:li.eql]
		if name[len(name)-1] == '+' {
			name = name[:len(name)-1]
		}
		if validName(name) {
			return true
		}
		if li.split {
			s.fail() // mvdan/sh takes it for an assignment all the same
		}
		return false
	}
	if li.eql == 0 || !validName(val) {
		return false
	}
	return li.split
}

// assign reads an assignment and reports whether it was an array or an
// indexed one, which a command's inline variables cannot be.
func (s *scanner) assign(li *litInfo) (array bool) {
	if li.eql > 0 {
		i := s.tpos + li.eql + 1
		if s.at(i) == '(' {
			if s.at(i+1) == '(' {
				s.fail()
				return true
			}
			s.array(i + 1)
			return true
		}
		s.take()
		return false
	}
	// name[index]=value
	i := s.index(li.end + 1)
	if s.bad {
		return true
	}
	v := i
	switch {
	case s.at(i) == '=':
		i++
	case s.at(i) == '+' && s.at(i+1) == '=':
		i += 2
	default:
		s.fail() // a[i] alone, or not followed by =
		return true
	}
	if s.at(i) == '(' {
		s.fail()
		return true
	}
	s.pos = s.scanWord(v)
	s.next()
	return true
}

// array reads the elements of a=( ) from i, after the (.
func (s *scanner) array(i int) {
	saved := s.enterParens(cArray)
	s.pos = i
	s.tok = tStart
	s.next()
	if s.tok == tNewl {
		s.next()
	}
	for s.tok != tEOF && s.tok != tRParen && !s.bad {
		switch s.tok {
		case tWord:
			s.take()
		case tNewl:
		default:
			s.fail()
			return
		}
		if s.tok == tNewl {
			s.next()
		}
	}
	if s.closeParen(saved) {
		s.next()
	}
}

// redirect reads a redirection: its operator is the current token.
func (s *scanner) redirect() {
	if s.tok == tHdoc {
		dash := s.hdash
		s.next()
		if s.tok != tWord {
			s.fail()
			return
		}
		s.heredocWord(dash)
		return
	}
	s.next()
	if s.tok != tWord {
		s.fail()
		return
	}
	s.take()
}
