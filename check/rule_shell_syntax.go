package check

import (
	"errors"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cairn-dev/cairn/internal/shscan"
	"github.com/cairn-dev/cairn/ir"
)

// RuleShellSyntax is the ID of the rule that every script parses as bash.
const RuleShellSyntax = "shell-syntax"

// ruleShellSyntax refuses a command, precheck or validate script that bash
// cannot parse, pointing at the file's own line and column of the error.
var ruleShellSyntax = &Rule{
	ID:       RuleShellSyntax,
	Doc:      "a command, precheck or validate script, or a worktree's setup, that bash cannot parse, at the exact line and column in the file",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		var parser lazyParser
		defer parser.put()
		// By index: a step and an action are large to copy.
		steps := pass.Process.Steps
		for i := range steps {
			s := &steps[i]
			if s.Precheck != nil {
				shellsSyntax(pass, &parser, &s.Precheck.Shells)
			}
			for j := range s.Actions {
				if a := &s.Actions[j]; a.Kind == ir.Command {
					scriptSyntax(pass, &parser, &a.Script)
				}
			}
			if s.Validate != nil {
				shellsSyntax(pass, &parser, &s.Validate.Shells)
			}
		}
		for i := range pass.Process.Worktrees {
			if w := &pass.Process.Worktrees[i]; w.Setup.Set && !w.Setup.Bad {
				scriptSyntax(pass, &parser, &w.Setup)
			}
		}
	},
}

// lazyParser takes a bash parser from the pool at the first script the
// recognizer is not sure of: most files have none.
type lazyParser struct{ p *shellParser }

func (l *lazyParser) get() *shellParser {
	if l.p == nil {
		l.p = shellParsers.Get().(*shellParser)
	}
	return l.p
}

func (l *lazyParser) put() {
	if l.p != nil {
		shellParsers.Put(l.p)
	}
}

// shellParser is a bash parser and the reader it parses from, kept between
// files: files are checked on one worker per CPU, and each worker takes one.
type shellParser struct {
	*syntax.Parser
	src strings.Reader
}

var shellParsers = sync.Pool{New: func() any {
	return &shellParser{Parser: syntax.NewParser(syntax.Variant(syntax.LangBash))}
}}

func shellsSyntax(pass *Pass, parser *lazyParser, shells *ir.Strings) {
	if !shells.Set || shells.Bad {
		return
	}
	for i := range shells.Value {
		scriptSyntax(pass, parser, &shells.Value[i])
	}
}

// scriptSyntax parses one script and reports its first error, if any, at the
// character the parser names. A script the recognizer (shscan) says
// certainly parses skips the parser and its syntax tree.
func scriptSyntax(pass *Pass, lazy *lazyParser, f *ir.Field[string]) {
	if !f.Set || f.Bad || shscan.Parses(f.Value) {
		return
	}
	parser := lazy.get()
	parser.src.Reset(f.Value)
	_, err := parser.Parse(&parser.src, "")
	if err == nil {
		return
	}
	var pos syntax.Pos
	text := err.Error()
	var pe syntax.ParseError
	var le syntax.LangError
	switch {
	case errors.As(err, &pe):
		pos, text = pe.Pos, pe.Text
	case errors.As(err, &le):
		pos = le.Pos
		text = strings.TrimPrefix(err.Error(), le.Pos.String()+": ")
	}
	pass.Report(scriptRange(*f, pos), "bash cannot parse this script: %s", text)
}

// scriptRange maps a parser position inside f's value to a one-character
// range in the file, or f's value when the value has no spans.
func scriptRange(f ir.Field[string], pos syntax.Pos) ir.Range {
	if len(f.Spans) == 0 || !pos.IsValid() {
		return valueRange(f)
	}
	start := ir.PosAt(f.Value, f.Spans, int(pos.Offset()))
	if !start.IsValid() {
		return valueRange(f)
	}
	end := start
	end.Column++
	end.Offset++
	return ir.Range{File: valueRange(f).File, Start: start, End: end}
}
