package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/expr"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/parse"
	"github.com/cairn-dev/cairn/skills"
)

// doc returns the open document uri, nil when it is not open.
func (s *server) doc(uri protocol.DocumentUri) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[uri]
}

// env is the check environment of a document's folder, for the names
// lookup finds (skills, processes, harnesses).
func (s *server) env(d *document) *check.Env {
	return load.Open(s.ctx, filepath.Dir(d.path), load.Options{Lint: true, NoPreflight: true, Env: s.opts.Env}).Env
}

// process is a process file's process as its front-end reads it, nil for
// another document.
func (d *document) process() *ir.Process {
	var p *ir.Process
	switch d.kind {
	case kindTOML:
		p, _ = parse.TOML(d.path, d.bytes())
	case kindHCL:
		p, _ = parse.HCL(d.path, d.bytes())
	case kindCard:
		p, _ = parse.Card(d.path, d.bytes())
	}
	return p
}

// typeWords name a key's type in a hover.
var typeWords = map[ir.KeyType]string{
	ir.KeyString:    "string",
	ir.KeyInt:       "integer",
	ir.KeyNumber:    "number",
	ir.KeyBool:      "boolean",
	ir.KeyStrings:   "array of strings",
	ir.KeyStringMap: "table of strings",
	ir.KeyTable:     "table",
	ir.KeyTables:    "array of tables",
	ir.KeyTableMap:  "table of named tables",
	ir.KeyJSON:      "JSON Schema",
}

// keyDoc is a key's hover: its name, type, doc and closed values.
func keyDoc(k ir.Key) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**`%s`** · %s", k.Name, typeWords[k.Type])
	if k.Or != "" {
		fmt.Fprintf(&b, " or %s", typeWords[k.Or])
	}
	if k.Required {
		b.WriteString(" · required")
	}
	fmt.Fprintf(&b, "\n\n%s", k.Doc)
	if len(k.Values) > 0 {
		quoted := make([]string, len(k.Values))
		for i, v := range k.Values {
			quoted[i] = "`" + v + "`"
		}
		word := "One of"
		if k.Names != "" {
			word = "Among others"
		}
		fmt.Fprintf(&b, "\n\n%s: %s.", word, strings.Join(quoted, ", "))
	}
	return b.String()
}

// ruleDoc is a rule's hover, nil when id names no rule.
func ruleDoc(id string) (string, bool) {
	for _, r := range load.Rules() {
		if r.ID == id {
			lint := "not kept by `--lint`"
			if r.Lint {
				lint = "kept by `--lint`"
			}
			return fmt.Sprintf("**`%s`** · %s · %s\n\nRefuses %s.", r.ID, r.Severity, lint, r.Doc), true
		}
	}
	return "", false
}

func (s *server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	var parts []string
	var rng *protocol.Range
	if pl := d.placeAt(p.Position); pl.key != nil {
		parts = append(parts, keyDoc(*pl.key))
		if !pl.inValue {
			rng = &pl.keyRange
		}
	}
	pos := d.pos(p.Position)
	if proc := d.process(); proc != nil {
		for i, st := range proc.Steps {
			for _, e := range []struct {
				f      ir.Field[string]
				typeAt func(*ir.Process, int, int, string) (string, string, bool)
			}{{st.Keys().When, check.WhenTypeAt}, {st.Keys().ForEach, check.ForEachTypeAt}} {
				if !e.f.Set || e.f.Bad || !contains(e.f.Range, pos) {
					continue
				}
				if off, ok := valueOffset(e.f, pos); ok {
					if what, typ, ok := e.typeAt(proc, i, off, repoOf(s.env(d))); ok {
						parts = append(parts, fmt.Sprintf("`%s`: %s", what, typ))
					}
				}
			}
		}
	}
	s.mu.Lock()
	published := s.published[d.uri]
	s.mu.Unlock()
	seen := map[string]bool{}
	for _, x := range published {
		if seen[x.Rule] || !contains(x.Range, pos) {
			continue
		}
		seen[x.Rule] = true
		if doc, ok := ruleDoc(x.Rule); ok {
			parts = append(parts, doc)
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return &protocol.Hover{
		Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: strings.Join(parts, "\n\n---\n\n")},
		Range:    rng,
	}, nil
}

func (s *server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	d := s.doc(p.TextDocument.URI)
	if d == nil || d.kind == kindNone {
		return []protocol.CompletionItem{}, nil
	}
	pl := d.placeAt(p.Position)
	items := []protocol.CompletionItem{}
	switch {
	case pl.inValue && pl.key != nil:
		kind := protocol.CompletionItemKindValue
		if len(pl.key.Values) > 0 {
			kind = protocol.CompletionItemKindEnumMember
		}
		for _, v := range s.valuesOf(d, *pl.key) {
			item := protocol.CompletionItem{Label: v, Kind: &kind}
			if quote := d.kind != kindCard && !pl.quoted && stringy(*pl.key) && v != "true" && v != "false"; quote {
				text := strconv.Quote(v)
				item.InsertText = &text
			}
			items = append(items, item)
		}
	case pl.wantKey:
		for _, k := range pl.keys {
			if pl.tablesOnly && !k.Type.HasKeys() {
				continue
			}
			label, kind := k.Name, protocol.CompletionItemKindProperty
			if k.Type.HasKeys() {
				kind = protocol.CompletionItemKindModule
				if pl.blocks {
					label = parse.HCLBlock(k)
				}
			}
			detail := typeWords[k.Type]
			items = append(items, protocol.CompletionItem{
				Label:         label,
				Kind:          &kind,
				Detail:        &detail,
				Documentation: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: k.Doc},
			})
		}
	}
	return items, nil
}

// stringy reports whether k's values are written as strings.
func stringy(k ir.Key) bool {
	switch k.Type {
	case ir.KeyString, ir.KeyStrings, ir.KeyStringMap:
		return true
	}
	return false
}

// valuesOf are the values offered for k in d: its closed values, the
// names its open set holds (the file's worktrees, the harnesses, skills
// and processes lookup finds), true and false for a boolean.
func (s *server) valuesOf(d *document, k ir.Key) []string {
	vals := slices.Clone(k.Values)
	if k.Type == ir.KeyBool {
		vals = []string{"true", "false"}
	}
	switch k.Names {
	case ir.NamesWorktree:
		if p := d.process(); p != nil {
			for _, w := range p.Worktrees {
				vals = append(vals, w.Name)
			}
		}
	case ir.NamesStep:
		// A process's own steps, for needs.
		if p := d.process(); p != nil {
			for _, st := range p.Steps {
				if st.Name.Set && !st.Name.Bad && st.Name.Value != "" {
					vals = append(vals, st.Name.Value)
				}
			}
		}
	case ir.NamesHarness:
		vals = append(vals, s.env(d).Harnesses.Names()...)
	case ir.NamesSkill:
		vals = append(vals, skillNames(s.ctx, s.env(d))...)
	case ir.NamesProcess:
		found, _ := check.List(s.env(d))
		for _, f := range found {
			vals = append(vals, f.Name)
		}
	}
	out := vals[:0]
	seen := map[string]bool{}
	for _, v := range vals {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// skillNames are the skills lookup finds: the folders of the places it
// looks in (the repository's skill folders, $CAIRN_HOME/skills) that
// check.FindSkill finds, and the built-in ones.
func skillNames(ctx context.Context, env *check.Env) []string {
	var dirs []string
	if env.Repo != nil {
		dirs = append(dirs, filepath.Join(env.Repo.Root, ".agents", "skills"), filepath.Join(env.Repo.Root, ".claude", "skills"))
	}
	if env.Home != "" {
		dirs = append(dirs, filepath.Join(env.Home, "skills"))
	}
	var names []string
	for _, dir := range dirs {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if _, err := check.FindSkill(ctx, env, e.Name()); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	slices.Sort(names)
	for _, b := range skills.Names() {
		names = append(names, skills.BuiltinSkillPrefix+b)
	}
	return names
}

// valueOffset is the byte offset in f's value of file position pos, found
// through the value's spans; false when no byte of the value is there.
func valueOffset(f ir.Field[string], pos ir.Pos) (int, bool) {
	for off := range len(f.Value) + 1 {
		if p := ir.PosAt(f.Value, f.Spans, off); p.Line == pos.Line && p.Column == pos.Column {
			return off, true
		}
	}
	return 0, false
}

func (s *server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	proc := d.process()
	if proc == nil {
		return nil, nil
	}
	pos := d.pos(p.Position)
	worktree := func(name string) any {
		for _, w := range proc.Worktrees {
			if w.Name == name {
				r := w.NameRange
				if !r.IsValid() {
					r = w.Header
				}
				return protocol.Location{URI: d.uri, Range: d.rng(r)}
			}
		}
		return nil
	}
	if f := proc.DefaultWorktree; f.Set && contains(f.Range, pos) {
		return worktree(f.Value), nil
	}
	step := func(name string) any {
		for _, st := range proc.Steps {
			if st.Name.Set && st.Name.Value == name {
				r := st.Name.Range
				if !r.IsValid() {
					r = st.Header
				}
				return protocol.Location{URI: d.uri, Range: d.rng(r)}
			}
		}
		return nil
	}
	for _, st := range proc.Steps {
		k := st.Keys()
		for _, n := range k.Needs.Value {
			if contains(n.Range, pos) {
				return step(n.Value), nil
			}
		}
		for _, w := range []ir.Field[string]{k.When, k.ForEach} {
			if !w.Set || w.Bad || !contains(w.Range, pos) {
				continue
			}
			if off, ok := valueOffset(w, pos); ok {
				if x, errs := expr.Parse(w.Value); len(errs) == 0 {
					if name, ok := x.StepAt(off); ok {
						return step(name), nil
					}
				}
			}
		}
	}
	for _, st := range proc.Steps {
		if f := st.Keys().Worktree; f.Set && contains(f.Range, pos) {
			return worktree(f.Value), nil
		}
		for _, a := range st.Actions {
			k := a.Keys()
			switch {
			case k.Skill.Set && contains(k.Skill.Range, pos):
				return skillLocation(s.ctx, s.env(d), k.Skill.Value), nil
			case k.Process.Set && contains(k.Process.Range, pos):
				return processLocation(s.env(d), k.Process.Value), nil
			case k.SpecProcess.Set && contains(k.SpecProcess.Range, pos):
				return processLocation(s.env(d), k.SpecProcess.Value), nil
			}
		}
	}
	return nil, nil
}

// skillLocation is the SKILL.md a skill's lookup finds, nil for a
// built-in skill or one not found.
func skillLocation(ctx context.Context, env *check.Env, name string) any {
	sk, err := check.FindSkill(ctx, env, name)
	if err != nil || sk.Source == ir.SkillBuiltin || sk.Path == "" {
		return nil
	}
	path := sk.Path
	if !filepath.IsAbs(path) && env.Repo != nil {
		path = filepath.Join(env.Repo.Root, filepath.FromSlash(path))
	}
	return protocol.Location{URI: uriOf(path)}
}

// processLocation is the file a process name's lookup finds.
func processLocation(env *check.Env, name string) any {
	file, diags := check.Find(env, name)
	if file == "" || ir.HasErrors(diags) {
		return nil
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(env.Dir, file)
	}
	return protocol.Location{URI: uriOf(file)}
}

func (s *server) documentSymbol(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	d := s.doc(p.TextDocument.URI)
	out := []protocol.DocumentSymbol{}
	if d == nil {
		return out, nil
	}
	proc := d.process()
	if proc == nil {
		return out, nil
	}
	for _, w := range proc.Worktrees {
		detail := "worktree"
		if w.Kind.Set {
			detail = w.Kind.Value + " worktree"
		}
		out = append(out, d.symbol(w.Name, detail, protocol.SymbolKindNamespace, w.Header, w.NameRange))
	}
	for i, st := range proc.Steps {
		name := fmt.Sprintf("step %d", i+1)
		if st.Name.Set && st.Name.Value != "" {
			name = st.Name.Value
		}
		out = append(out, d.symbol(name, "step", protocol.SymbolKindFunction, st.Header, st.Name.Range))
	}
	return out, nil
}

// symbol is a document symbol over whole and the name's range sel (whole
// is widened to hold it).
func (d *document) symbol(name, detail string, kind protocol.SymbolKind, whole, sel ir.Range) protocol.DocumentSymbol {
	if !sel.IsValid() {
		sel = whole
	}
	if !whole.IsValid() {
		whole = sel
	}
	r, s := d.rng(whole), d.rng(sel)
	if before(s.Start, r.Start) {
		r.Start = s.Start
	}
	if before(r.End, s.End) {
		r.End = s.End
	}
	return protocol.DocumentSymbol{Name: name, Detail: &detail, Kind: kind, Range: r, SelectionRange: s}
}

func before(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

func (s *server) codeAction(_ *glsp.Context, p *protocol.CodeActionParams) (any, error) {
	out := []protocol.CodeAction{}
	s.mu.Lock()
	d, of, published := s.docs[p.TextDocument.URI], s.publishedOf[p.TextDocument.URI], s.published[p.TextDocument.URI]
	s.mu.Unlock()
	// Fixes are edits of the text they were found in: none is offered
	// for an older text than the editor's.
	if d == nil || d != of {
		return out, nil
	}
	quickfix := protocol.CodeActionKindQuickFix
	for _, x := range p.Context.Diagnostics {
		found := d.published(published, x)
		if found == nil {
			continue
		}
		for i, f := range found.Fixes {
			edits, ok := d.edits(f)
			if !ok {
				continue
			}
			preferred := i == 0
			out = append(out, protocol.CodeAction{
				Title:       upperFirst(f.Message),
				Kind:        &quickfix,
				Diagnostics: []protocol.Diagnostic{x},
				IsPreferred: &preferred,
				Edit:        &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{d.uri: edits}},
			})
		}
	}
	return out, nil
}

// published returns the diagnostic of published that x, as a client sends
// it back, is: the one of x's message and range, and of its rule when x's
// code reads as one (glsp decodes a code into nothing).
func (d *document) published(published []ir.Diagnostic, x protocol.Diagnostic) *ir.Diagnostic {
	code := ""
	if x.Code != nil {
		code, _ = x.Code.Value.(string)
	}
	for i := range published {
		if y := &published[i]; (code == "" || y.Rule == code) && y.Message == x.Message && d.rng(y.Range) == x.Range {
			return y
		}
	}
	return nil
}

// edits are f's edits in d's positions; false when one is of another file
// (whose positions d cannot convert).
func (d *document) edits(f ir.Fix) ([]protocol.TextEdit, bool) {
	out := make([]protocol.TextEdit, 0, len(f.Edits))
	for _, e := range f.Edits {
		if e.Range.File != d.path {
			return nil, false
		}
		out = append(out, protocol.TextEdit{Range: d.rng(e.Range), NewText: e.NewText})
	}
	return out, true
}

// upperFirst is s with its first letter upper case: a fix's message as an
// editor's menu titles are written.
func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// repoOf is the root of env's repository, "" outside one.
func repoOf(env *check.Env) string {
	if env == nil || env.Repo == nil {
		return ""
	}
	return env.Repo.Root
}
