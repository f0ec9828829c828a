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

// enter and leave bracket a construct mvdan/sh parses as nested (its
// preNested): here-documents started outside it are not read at a newline
// inside it, and ones started inside it must be read before it ends.
func (s *scanner) enter() {
	s.level++
	s.descend()
}

// enterParens enters the nested construct of a "(" read in context c, and
// returns the context to restore when closeParen leaves it.
func (s *scanner) enterParens(c ctx) (saved ctx) {
	saved = s.ctx
	s.enter()
	s.ctx = c
	return saved
}

// closeParen leaves the construct enterParens entered, restoring saved, and
// reports whether the current token is the ")" that closes it; when it is
// not, the script is not sure to parse.
func (s *scanner) closeParen(saved ctx) bool {
	s.ctx = saved
	s.leave()
	if s.tok != tRParen {
		s.fail()
		return false
	}
	return true
}

// descend and ascend bracket every recursion, which maxDepth bounds.
func (s *scanner) descend() {
	s.depth++
	if s.depth > maxDepth {
		s.fail()
	}
}

func (s *scanner) ascend() { s.depth-- }

func (s *scanner) leave() {
	for i := 0; i < s.nh; i++ {
		if s.hdocs[i].level >= s.level {
			s.fail()
		}
	}
	s.level--
	s.ascend()
}
