package lsp

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/cairn-dev/cairn/ir"
)

// at finds the position of the "|" in text and returns text without it.
func at(t *testing.T, text string) (string, protocol.Position) {
	t.Helper()
	i := strings.Index(text, "|")
	if i < 0 {
		t.Fatalf("no | in %q", text)
	}
	before := text[:i]
	line := strings.Count(before, "\n")
	col := utf16Len(before[strings.LastIndex(before, "\n")+1:])
	return text[:i] + text[i+1:], protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(col)}
}

func TestPositions(t *testing.T) {
	d := newDocument("file:///p/x.toml", 1, "a = 1\r\nb = \"😀é\" x\n", "/home")
	// Column 6 (characters from 1) is after 😀 and é: 😀 is two UTF-16
	// units, é one.
	if got := d.position(ir.Pos{Line: 2, Column: 8}); got != (protocol.Position{Line: 1, Character: 8}) {
		t.Errorf("position: %+v", got)
	}
	p := protocol.Position{Line: 1, Character: 8}
	if got := d.pos(p); got.Line != 2 || got.Column != 8 {
		t.Errorf("pos: %+v", got)
	}
	if got := d.byteCol(p); got != len(`b = "😀é`) {
		t.Errorf("byteCol: %d", got)
	}
	if got := d.offset(protocol.Position{Line: 1, Character: 0}); got != len("a = 1\r\n") {
		t.Errorf("offset after CRLF: %d", got)
	}
	if got := d.position(ir.Pos{Line: 9, Column: 1}); got != (protocol.Position{Line: 2, Character: 0}) {
		t.Errorf("position past the end: %+v", got)
	}
	// A position past the document is its end, however far.
	if got := d.clamp(protocol.Position{Line: 2_000_000_000, Character: 7}); got != (protocol.Position{Line: 2, Character: 0}) {
		t.Errorf("clamp past the end: %+v", got)
	}
	if got := d.offset(protocol.Position{Line: 4_000_000_000}); got != len(d.text) {
		t.Errorf("offset past the end: %d", got)
	}
	if got := pathOf(uriOf("/a b/c.toml")); got != "/a b/c.toml" {
		t.Errorf("uri round trip: %q", got)
	}
}

// TestIndexedText: a document's lines, found from the starts it records
// every lineStride lines, are the lines of its text split at each newline,
// without a carriage return before it, across many strides.
func TestIndexedText(t *testing.T) {
	var b strings.Builder
	for i := range 5*lineStride + 3 {
		b.WriteString(strings.Repeat("x", i%7))
		if i%5 == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	for _, text := range []string{"", "a", "a\n", "\n\n", b.String(), b.String() + "last"} {
		want := strings.Split(text, "\n")
		x := indexText(text)
		if x.lines != len(want) {
			t.Errorf("%q: %d lines; want %d", text, x.lines, len(want))
		}
		for i, w := range want {
			w = strings.TrimSuffix(w, "\r")
			if got := x.line(i); got != w {
				t.Errorf("%q: line %d is %q; want %q", text, i, got, w)
			}
		}
		for _, i := range []int{-1, len(want), 1 << 30} {
			if got := x.line(i); got != "" {
				t.Errorf("%q: line %d is %q; want none", text, i, got)
			}
		}
		var got []string
		for i, l := range x.linesBefore(len(want) + 5) {
			if i != len(got) {
				t.Errorf("%q: linesBefore numbers line %d %d", text, len(got), i)
			}
			got = append(got, l)
		}
		if len(got) != len(want) || len(want) > 0 && got[len(got)-1] != strings.TrimSuffix(want[len(want)-1], "\r") {
			t.Errorf("%q: linesBefore yields %q", text, got)
		}
	}
}

func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		path, text string
		want       docKind
	}{
		{"/r/hunt.toml", "version = 1\n", kindTOML},
		{"/r/hunt.toml", "steps = [{ name = \"a\" }]\n", kindTOML},
		{"/r/Cargo.toml", "[package]\nversion = \"1\"\n", kindNone},
		{"/h/processes/new.toml", "", kindTOML},
		{"/r/hunt.hcl", "version = 1\n", kindHCL},
		{"/r/terragrunt.hcl", "include \"root\" {}\n", kindNone},
		{"/r/a.procedure.card", "", kindCard},
		{"/r/hunt.stubs.toml", "version = 1\n", kindStubs},
		{"/r/hunt.test.toml", "", kindTest},
		{"/h/config.toml", "", kindConfig},
	} {
		if got := kindOf(tc.path, tc.text, "/h"); got != tc.want {
			t.Errorf("kindOf(%q, %q) = %d; want %d", tc.path, tc.text, got, tc.want)
		}
	}
}

// completions are the labels the server offers at the | of text, in a
// document at path.
func completions(t *testing.T, path, text string) []string {
	t.Helper()
	text, p := at(t, text)
	s := newServer(context.Background(), Options{Env: os.Environ()})
	uri := uriOf(path)
	s.docs[uri] = newDocument(uri, 1, text, "/nonexistent")
	res, err := s.completion(nil, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: p,
	}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range res.([]protocol.CompletionItem) {
		out = append(out, it.Label)
	}
	return out
}

func TestCompletion(t *testing.T) {
	toml := "version = 1\n[worktrees.a]\nkind = \"throwaway\"\n[worktrees.b]\nkind = \"checkout\"\n"
	for _, tc := range []struct {
		name, path, text string
		want             []string
	}{
		{"toml top keys", "/r/x.toml", "version = 1\nde|", []string{"version", "description", "default_worktree", "commit", "run_expiry", "failed_run_expiry", "access", "limits", "github", "worktrees", "steps"}},
		{"toml limits keys", "/r/x.toml", "version = 1\n[limits]\n|", []string{"repair_cap", "self_merge", "protected_paths", "budget_usd"}},
		{"toml phase keys", "/r/x.toml", "version = 1\n[[steps]]\nname = \"a\"\n[steps.validate]\n|", []string{"shells", "instructions", "whys", "severity", "model"}},
		{"toml header tables", "/r/x.toml", "version = 1\n[[steps]]\n[steps.|", []string{"precheck", "validate"}},
		{"toml severity", "/r/x.toml", "version = 1\n[[steps]]\nvalidate.severity = |", []string{"warn", "abort", "review"}},
		{"toml kind", "/r/x.toml", "version = 1\n[worktrees.a]\nkind = \"|\"", []string{"throwaway", "issue-branch", "checkout"}},
		{"toml worktrees", "/r/x.toml", toml + "[[steps]]\nworktree = \"|", []string{"a", "b"}},
		{"toml harness", "/r/x.toml", "version = 1\n[[steps]]\nharness = |", []string{"claude", "codex", "gemini", "opencode"}},
		{"toml access", "/r/x.toml", "version = 1\naccess = |", []string{"read", "write", "full"}},
		{"toml catalogue", "/r/x.toml", "version = 1\n[[steps]]\ncatalogue = \"d|\"", []string{"delivery", "self-merge", "run-published-issue"}},
		{"toml in a multi-line string", "/r/x.toml", "version = 1\n[[steps]]\ncommand = '''\n|", nil},
		{"toml map level", "/r/x.toml", "version = 1\n[worktrees]\n|", nil},
		{"hcl step attrs", "/r/x.hcl", "version = 1\nstep \"a\" {\n  eff|\n}\n", []string{"description", "skill", "prompt", "command", "catalogue", "harness", "model", "effort", "access", "max_turns", "budget_usd", "worktree", "parallel", "needs", "when", "for_each", "optional", "timeout", "env", "output_schema", "process", "spec_process", "precheck", "validate"}},
		{"hcl top blocks", "/r/x.hcl", "version = 1\n|", []string{"version", "description", "default_worktree", "commit", "run_expiry", "failed_run_expiry", "access", "limits", "github", "worktree", "step"}},
		{"hcl effort", "/r/x.hcl", "version = 1\nstep \"a\" {\n  prompt = <<EOT\n  }\nEOT\n  effort = \"|\"\n}\n", []string{"low", "medium", "high", "xhigh", "max"}},
		{"hcl phase", "/r/x.hcl", "version = 1\nstep \"a\" {\n  env = { A = \"b\" }\n  validate {\n    severity = |\n  }\n}\n", []string{"warn", "abort", "review"}},
		{"card top", "/r/x.procedure.card", "---\n|\n---\n", []string{"description", "run-expiry", "failed-run-expiry", "access", "budget-usd", "github", "steps"}},
		{"card step", "/r/x.procedure.card", "---\nsteps:\n  - id: a\n    |\n---\n", []string{"id", "description", "needs", "when", "for-each", "output-schema", "precheck", "run", "validate"}},
		{"toml needs", "/r/x.toml", "version = 1\n[[steps]]\nname = \"triage\"\ncommand = \"true\"\n[[steps]]\nname = \"fix\"\nneeds = [\"|", []string{"triage", "fix"}},
		{"hcl needs", "/r/x.hcl", "version = 1\nstep \"triage\" {\n  command = \"true\"\n}\nstep \"fix\" {\n  needs = [|]\n}\n", []string{"triage", "fix"}},
		{"card agent", "/r/x.procedure.card", "---\nsteps:\n  - id: a\n    run:\n      agents:\n        - prompt: x\n          m|\n---\n", []string{"prompt", "model", "access", "max-turns", "budget-usd"}},
		{"card agent model", "/r/x.procedure.card", "---\nsteps:\n  - id: a\n    run:\n      agents:\n        - model: |\n---\n", []string{"efficient", "balanced", "strong", "strongest"}},
		{"card body", "/r/x.procedure.card", "---\n---\n|", nil},
		{"stubs verdict", "/r/x.stubs.toml", "[stubs.a]\nverdict = |", []string{"pass", "fail", "none"}},
		{"test expect", "/r/x.test.toml", "process = \"a\"\n[expect]\nstatus = |", []string{"succeeded", "failed", "inconclusive", "interrupted"}},
		{"config notify", "/nonexistent/config.toml", "[notify]\n|", []string{"command", "on"}},
		{"not cairn's", "/r/Cargo.toml", "[package]\n|", nil},
	} {
		got := completions(t, tc.path, tc.text)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.want)
		}
	}
}

func TestCompletionQuotes(t *testing.T) {
	text, p := at(t, "version = 1\naccess = |")
	s := newServer(context.Background(), Options{Env: os.Environ()})
	uri := uriOf("/r/x.toml")
	s.docs[uri] = newDocument(uri, 1, text, "/nonexistent")
	res, _ := s.completion(nil, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: p,
	}})
	items := res.([]protocol.CompletionItem)
	if items[0].Label != "read" || items[0].InsertText == nil || *items[0].InsertText != `"read"` {
		t.Errorf("a value with no quote typed: %+v", items[0])
	}
}

// hoverAt is the hover the server gives at the | of text.
func hoverAt(t *testing.T, path, text string) string {
	t.Helper()
	text, p := at(t, text)
	s := newServer(context.Background(), Options{Env: os.Environ()})
	uri := uriOf(path)
	d := newDocument(uri, 1, text, "/nonexistent")
	s.docs[uri] = d
	s.published[uri] = s.diagnose(d, false)
	h, err := s.hover(nil, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: p,
	}})
	if err != nil || h == nil {
		return ""
	}
	return h.Contents.(protocol.MarkupContent).Value
}

func TestHover(t *testing.T) {
	for _, tc := range []struct{ name, path, text, want string }{
		{"toml key", "/r/x.toml", "version = 1\n[[steps]]\ntim|eout = \"5m\"\n", "**`timeout`** · string"},
		{"toml header", "/r/x.toml", "version = 1\n[[steps]]\n[steps.vali|date]\n", "**`validate`** · table"},
		{"toml worktree kind", "/r/x.toml", "version = 1\n[worktrees.a]\nkind = \"thr|owaway\"\n", "One of: `throwaway`, `issue-branch`, `checkout`."},
		{"toml rule", "/r/x.toml", "version = 1\ncomm|nd = 1\n", "**`unknown-key`** · error · kept by `--lint`"},
		{"hcl block", "/r/x.hcl", "version = 1\nste|p \"a\" {\n}\n", "**`steps`** · array of tables"},
		{"card key", "/r/x.procedure.card", "---\nsteps:\n  - id: a\n    validate:\n      sever|ity: warn\n---\n", "**`severity`**"},
		{"test process", "/r/x.test.toml", "pro|cess = \"a\"\n", "required"},
		{"toml when field", "/r/x.toml", "version = 1\n[[steps]]\nname = \"lint\"\ncommand = \"x\"\n[[steps]]\nname = \"fix\"\ncommand = \"y\"\nwhen = 'steps.lint.out|come == \"failed\"'\n", "`steps.lint.outcome`: a string"},
		{"toml for_each", "/r/x.toml", "version = 1\n[[steps]]\nname = \"plan\"\ncommand = \"x\"\noutput_schema = { type = \"object\", properties = { tickets = { type = \"array\", items = { type = \"string\" } } } }\n[[steps]]\nname = \"fix\"\ncommand = \"y\"\nfor_each = 'steps.plan.output.tic|kets'\n", "`steps.plan.output.tickets`: a list"},
		{"toml item", "/r/x.toml", "version = 1\n[[steps]]\nname = \"fix\"\ncommand = \"y\"\nfor_each = '[\"a\"]'\nwhen = 'it|em == \"a\"'\n", "`item`: a string"},
		{"hcl when", "/r/x.hcl", "version = 1\nstep \"lint\" {\n  command = \"x\"\n}\nstep \"fix\" {\n  command = \"y\"\n  when = steps.lint.outcome == \"failed\" |&& true\n}\n", "`when`: a boolean"},
	} {
		if got := hoverAt(t, tc.path, tc.text); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q; want it to hold %q", tc.name, got, tc.want)
		}
	}
}

// TestCodeAction holds the quick fixes to the diagnostics' fixes, their
// ranges in the editor's UTF-16 columns of a CRLF document, and to none
// once the document has changed since its diagnostics.
func TestCodeAction(t *testing.T) {
	text := strings.Join([]string{
		"version = 1",
		`worktrees = { "😀x" = { knd = "throwaway" } }`,
		"",
		"[[steps]]",
		`name = "s"`,
		`prompt = "é"`,
		"effort = 'hgh'",
		`modle = "balanced"`,
		"",
	}, "\r\n")
	s := newServer(context.Background(), Options{})
	uri := uriOf("/r/x.toml")
	d := newDocument(uri, 1, text, "/nonexistent")
	s.docs[uri] = d
	s.published[uri] = s.diagnose(d, false)
	s.publishedOf[uri] = d
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	var titles []string
	for _, x := range s.published[uri] {
		res, err := s.codeAction(nil, &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uri},
			Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d.diagnostic(x)}},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range res.([]protocol.CodeAction) {
			titles = append(titles, a.Title)
			if a.IsPreferred == nil || !*a.IsPreferred || len(a.Edit.Changes[uri]) == 0 {
				t.Errorf("%s: %+v", a.Title, a)
			}
			for _, e := range a.Edit.Changes[uri] {
				edits = append(edits, edit{d.offset(e.Range.Start), d.offset(e.Range.End), e.NewText})
			}
		}
	}
	if want := []string{`Rename worktree "😀x" to "x"`, `Change "knd" to "kind"`, `Change "hgh" to "high"`, `Change "modle" to "model"`}; !slices.Equal(titles, want) {
		t.Errorf("titles %q; want %q", titles, want)
	}
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	fixed := text
	for _, e := range edits {
		fixed = fixed[:e.start] + e.text + fixed[e.end:]
	}
	if want := strings.NewReplacer("😀x", "x", "knd", "kind", "hgh", "high", "modle", "model").Replace(text); fixed != want {
		t.Errorf("fixed:\n%q\nwant:\n%q", fixed, want)
	}

	x := d.diagnostic(s.published[uri][0])
	s.docs[uri] = newDocument(uri, 2, text+"\r\n", "/nonexistent")
	res, _ := s.codeAction(nil, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri},
		Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{x}},
	})
	if got := res.([]protocol.CodeAction); len(got) != 0 {
		t.Errorf("a changed document: %+v", got)
	}
}

func TestSymbolsAndDefinition(t *testing.T) {
	text := "version = 1\n[worktrees.judge]\nkind = \"throwaway\"\n\n[[steps]]\nname = \"hunt\"\nprompt = \"x\"\nworktree = \"judge\"\n\n[[steps]]\ncommand = \"true\"\n"
	s := newServer(context.Background(), Options{Env: os.Environ()})
	uri := uriOf("/r/x.toml")
	s.docs[uri] = newDocument(uri, 1, text, "/nonexistent")
	res, _ := s.documentSymbol(nil, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}})
	var names []string
	for _, sym := range res.([]protocol.DocumentSymbol) {
		names = append(names, sym.Name)
		if before(sym.SelectionRange.Start, sym.Range.Start) || before(sym.Range.End, sym.SelectionRange.End) {
			t.Errorf("symbol %q: selection %+v outside %+v", sym.Name, sym.SelectionRange, sym.Range)
		}
	}
	if !slices.Equal(names, []string{"judge", "hunt", "step 2"}) {
		t.Errorf("symbols: %q", names)
	}
	def, _ := s.definition(nil, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: 7, Character: 13},
	}})
	loc, ok := def.(protocol.Location)
	if !ok || loc.Range.Start != (protocol.Position{Line: 1, Character: 11}) {
		t.Errorf("definition: %+v", def)
	}

	// A step name in needs, and in a when, leads to the step's name.
	text = "version = 1\n[[steps]]\nname = \"lint\"\ncommand = \"x\"\n[[steps]]\nname = \"fix\"\ncommand = \"y\"\nneeds = [\"lint\"]\nwhen = 'steps.lint.outcome == \"failed\"'\n"
	s.docs[uri] = newDocument(uri, 2, text, "/nonexistent")
	for _, p := range []protocol.Position{{Line: 7, Character: 11}, {Line: 8, Character: 15}} {
		def, _ = s.definition(nil, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: p,
		}})
		if loc, ok := def.(protocol.Location); !ok || loc.Range.Start != (protocol.Position{Line: 2, Character: 7}) {
			t.Errorf("definition at %+v: %+v; want the step lint's name at 3:8", p, def)
		}
	}
}

// TestDiagnoseTooLarge: a document larger than cairn reads of a file gets
// the refusal cairn check gives such a file, at its start, and no parse.
func TestDiagnoseTooLarge(t *testing.T) {
	s := newServer(context.Background(), Options{Env: os.Environ()})
	text := "version = 1\n" + strings.Repeat("# padding\n", 2<<20)
	d := newDocument("file:///p/big.toml", 1, text, "/nonexistent")
	diags := s.diagnose(d, false)
	if len(diags) != 1 || diags[0].Rule != ir.RuleSyntax || diags[0].Range.Start.Line != 1 ||
		!strings.Contains(diags[0].Message, "larger than 16 MiB") {
		t.Errorf("diagnostics %+v; want the one refusal of a file over 16 MiB", diags)
	}
}
