package check

import (
	"testing"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// TestShellSyntaxSpans holds the mapping from a parser's position inside a
// script to the file when the front-end split the value into spans (an
// escape sequence decoded, indentation skipped).
func TestShellSyntaxSpans(t *testing.T) {
	t.Parallel()
	// The file holds, from line 7 column 12:  "echo \"hi\"\nfoo; fi"
	// decoded to: echo "hi"<newline>if then
	// Spans start at each decoded escape.
	value := "echo \"hi\"\nfoo; fi"
	at := func(line, col, off int32) ir.Pos { return ir.Pos{Line: line, Column: col, Offset: off} }
	spans := []ir.Span{
		{Offset: 0, Start: at(7, 12, 100)},  // echo
		{Offset: 5, Start: at(7, 17, 105)},  // \"  → "
		{Offset: 6, Start: at(7, 19, 107)},  // hi
		{Offset: 8, Start: at(7, 21, 109)},  // \"  → "
		{Offset: 9, Start: at(7, 23, 111)},  // \n  → newline
		{Offset: 10, Start: at(7, 25, 113)}, // foo; fi
	}
	p := &ir.Process{Name: "p", File: "p.toml", Format: ir.TOML, Steps: []ir.Step{{
		Actions: []ir.Action{{Kind: ir.Command, Script: ir.Field[string]{
			Value: value, Set: true, Spans: spans,
			Range: ir.Range{File: "p.toml", Start: at(7, 11, 99), End: at(7, 34, 122)},
		}}},
	}}}
	var diags []ir.Diagnostic
	pass := &Pass{Process: p, Env: &Env{Lint: true}, rule: ruleShellSyntax, diags: &diags}
	ruleShellSyntax.Run(pass)
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics, want 1: %+v", len(diags), diags)
	}
	d := diags[0]
	// bash stops at "fi" (offset 15 of the value): the file's 7:30.
	if d.Range.Start.Line != 7 || d.Range.Start.Column != 30 || d.Range.End.Column != 31 || d.Range.File != "p.toml" {
		t.Errorf("range %v–%d:%d; want p.toml:7:30–7:31", d.Range, d.Range.End.Line, d.Range.End.Column)
	}
	if want := "bash cannot parse this script: `fi` can only be used to end an `if`"; d.Message != want {
		t.Errorf("message %q; want %q", d.Message, want)
	}
}

// TestShellSyntaxFastPath holds that checking the scripts of bench/check.sh's
// corpora allocates nothing: every script is one the recognizer (shscan)
// knows parses, so no bash parser and no syntax tree is made.
func TestShellSyntaxFastPath(t *testing.T) {
	for _, k := range corpus.Kinds {
		p, diags := parse.TOML("p.toml", corpus.Process(k, 7, 50))
		if len(diags) > 0 {
			t.Fatalf("%s: %v", k, diags)
		}
		var got []ir.Diagnostic
		pass := &Pass{Process: p, Env: &Env{Lint: true}, rule: ruleShellSyntax, diags: &got}
		if n := testing.AllocsPerRun(5, func() { ruleShellSyntax.Run(pass) }); n != 0 {
			t.Errorf("%s: %v allocations per file; want 0", k, n)
		}
		if len(got) > 0 {
			t.Errorf("%s: %d diagnostics; want none: %+v", k, len(got), got[0])
		}
	}
}
