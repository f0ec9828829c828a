// Package shscan answers, without building a syntax tree or allocating,
// whether a script certainly parses as bash: Parses(src) true guarantees that
// mvdan.cc/sh/v3/syntax, parsing src with Variant(LangBash), returns no error
// (neither a ParseError nor a LangError). False means only "not sure": the
// caller parses the script with mvdan/sh for the exact diagnostic.
//
// The recognizer follows mvdan/sh's lexer and parser over the constructs CI
// scripts use (simple commands, assignments and arrays, pipelines and lists,
// redirections and here-documents, every kind of quoting and expansion,
// arithmetic, tests, if/for/while/until/case, functions, groups and
// subshells) and answers false at anything else, or at anything where bash
// and mvdan/sh read the same bytes differently.
package shscan

import (
	"strings"
	"unicode/utf8"
)

// Parses reports whether src certainly parses as bash: true means mvdan/sh
// (LangBash) accepts it; false means not sure.
func Parses(src string) bool {
	if !plain(src) {
		return false
	}
	s := scanner{src: src, tok: tStart}
	s.next()
	s.stmtList(0)
	return !s.bad && s.tok == tEOF && s.nh == 0
}

// plain reports whether src is free of what the recognizer leaves to
// mvdan/sh: invalid UTF-8, NUL and carriage-return bytes (which mvdan/sh
// drops or rewrites as it reads), and a run of two or more backslashes before
// a newline, where mvdan/sh's line continuations differ from bash's.
func plain(src string) bool {
	return strings.IndexByte(src, 0) < 0 && strings.IndexByte(src, '\r') < 0 &&
		!strings.Contains(src, "\\\\\n") && utf8.ValidString(src)
}

// token is a token of the statement grammar; words are scanned when the
// parser takes them.
type token uint8

const (
	tStart token = iota
	tEOF
	tNewl
	tWord     // the start of a word
	tSemi     // ;
	tDSemi    // ;;
	tSemiAnd  // ;&
	tDSemiAnd // ;;&
	tAmp      // &
	tAndAnd   // &&
	tPipe     // |
	tPipeAmp  // |&
	tOrOr     // ||
	tLParen   // (
	tDLParen  // ((
	tRParen   // )
	tRedir    // a redirection operator, with its file descriptor if any
	tHdoc     // << or <<-
	tBqEnd    // the backquote that closes the command substitution
)

// ctx is mvdan/sh's lexer state for the statements being read: it decides
// what ends a statement list and how '#', '[' and '=' start a token.
type ctx uint8

const (
	cTop   ctx = iota // the script itself
	cSub              // $( ), <( ), >( ), ( )
	cBq               // ` `
	cCase             // the commands of a case item
	cTest             // [[ ]]
	cArray            // a=( )
)

// arithmetic contexts: what closes the expression and which tokens exist.
const (
	acExpr  = iota // $(( ))
	acCmd          // (( )) and for (( ))
	acIndex        // [ ] of a parameter or an assignment
	acSlice        // ${a:off:len}
)

// hdoc is a here-document whose body has not been read yet.
type hdoc struct {
	delim  string
	dash   bool // <<-: leading tabs are stripped
	quoted bool // the delimiter was quoted: no expansions in the body
	level  int
}

const maxHdocs = 8

// maxDepth bounds nesting: deeper scripts are left to mvdan/sh.
const maxDepth = 100

type scanner struct {
	src string
	pos int // where the next token starts

	tok    token
	tpos   int  // start of tok
	spaced bool // tok follows a blank
	rop    byte // tRedir: '<' or '>' for a plain < or >, else 0
	hdash  bool // tHdoc: <<-

	ctx   ctx
	level int // nesting of mvdan/sh's preNested constructs
	bq    int // open backquotes
	depth int
	body  bool // reading a here-document's body: no newline tokens
	bad   bool

	hdocs [maxHdocs]hdoc
	nh    int

	// litRun's last literal: its first '=' and whether it held a line
	// continuation.
	runEql int
	runEsc bool
	// lit's answer for the current token, once asked.
	litDone bool
	litLI   litInfo

	// arithmetic lexer
	actx int
	a    atok
	apos int // start of a
	aend int // end of a
}

func (s *scanner) fail() { s.bad = true }

func (s *scanner) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

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

// enter and leave bracket a construct mvdan/sh parses as nested (its
// preNested): here-documents started outside it are not read at a newline
// inside it, and ones started inside it must be read before it ends.
func (s *scanner) enter() {
	s.level++
	s.depth++
	if s.depth > maxDepth {
		s.fail()
	}
}

func (s *scanner) leave() {
	for i := 0; i < s.nh; i++ {
		if s.hdocs[i].level >= s.level {
			s.fail()
		}
	}
	s.level--
	s.depth--
}

// heredocs reads the bodies of the pending here-documents after the
// newline at nl and leaves s.pos at the newline ending the last delimiter.
func (s *scanner) heredocs(nl int) {
	var pending [maxHdocs]hdoc
	n := s.nh
	copy(pending[:], s.hdocs[:n])
	s.nh = 0
	for k := 0; k < n; k++ {
		if pending[k].level != s.level {
			s.fail()
			return
		}
	}
	i := nl + 1
	for k := 0; k < n && !s.bad; k++ {
		h := &pending[k]
		if k > 0 && i < len(s.src) && s.src[i] == '\n' {
			i++
		}
		for {
			if i >= len(s.src) {
				s.fail() // unclosed
				return
			}
			end := strings.IndexByte(s.src[i:], '\n')
			if end < 0 {
				end = len(s.src)
			} else {
				end += i
			}
			line := s.src[i:end]
			cmp := line
			if h.dash {
				cmp = strings.TrimLeft(cmp, "\t")
			}
			if cmp == h.delim {
				i = end
				break
			}
			if line != "" && line[len(line)-1] == '\\' {
				s.fail() // a line continuation inside the body
				return
			}
			if !h.quoted {
				// mvdan/sh compares the text after an expansion with the
				// delimiter as if it were a whole line.
				if strings.HasSuffix(line, h.delim) {
					s.fail()
					return
				}
				s.bodyLine(i, end)
				if s.bad {
					return
				}
			}
			i = end + 1
		}
	}
	s.pos = i
}

// bodyLine checks the expansions of one line of an unquoted here-document:
// each must end on its line.
func (s *scanner) bodyLine(i, end int) {
	saved := s.body
	s.body = true
	for i < end && !s.bad {
		switch s.src[i] {
		case '\\':
			i += 2
		case '`':
			s.fail()
		case '$':
			i = s.dollar(i, true)
			if i > end {
				s.fail()
			}
		default:
			i++
		}
	}
	s.body = saved
}

// stmtList reads statements up to one of the stop words (a set of kw
// bits), a closing token of the context, or EOF, and returns how many.
func (s *scanner) stmtList(stops uint16) int {
	s.depth++
	if s.depth > maxDepth {
		s.fail()
	}
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
	s.depth--
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
	if s.isWord("!") {
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

func (s *scanner) funcBody() {
	if s.tok == tNewl {
		s.next()
	}
	if _, ok := s.getStmt(false, false); !ok {
		s.fail()
	}
}

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

func (s *scanner) subshell() {
	saved := s.ctx
	s.enter()
	s.ctx = cSub
	s.next()
	s.followStmts(0)
	s.ctx = saved
	s.leave()
	if s.tok != tRParen {
		s.fail()
		return
	}
	s.next()
}

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

func (s *scanner) testBinary(pastAndOr bool) (present, word bool) {
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
	saved := s.ctx
	s.enter()
	s.ctx = cArray
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
	s.ctx = saved
	s.leave()
	if s.tok != tRParen {
		s.fail()
		return
	}
	s.next()
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

// heredocWord reads a here-document's delimiter: a plain word, bare or in
// single or double quotes.
func (s *scanner) heredocWord(dash bool) {
	if s.bq > 0 || s.nh == maxHdocs {
		s.fail()
		return
	}
	i := s.tpos
	q := s.src[i]
	quoted := q == '\'' || q == '"'
	if quoted {
		i++
	}
	start := i
	for i < len(s.src) && isAlnum(s.src[i]) {
		i++
	}
	if i == start {
		s.fail()
		return
	}
	delim := s.src[start:i]
	if quoted {
		if s.at(i) != q {
			s.fail()
			return
		}
		i++
	}
	if i < len(s.src) {
		switch s.src[i] {
		case ' ', '\t', '\n', ';', '&', '|', ')':
		default:
			s.fail()
			return
		}
	}
	s.hdocs[s.nh] = hdoc{delim: delim, dash: dash, quoted: quoted, level: s.level}
	s.nh++
	s.pos = i
	s.next()
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
	saved := s.ctx
	s.enter()
	s.ctx = cSub
	s.pos = i
	s.tok = tStart
	s.next()
	s.stmtList(0)
	s.ctx = saved
	s.leave()
	if s.tok != tRParen {
		s.fail()
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
	s.depth++
	if s.depth > maxDepth {
		s.fail()
	}
	defer func() { s.depth-- }()
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
