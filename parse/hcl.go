package parse

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/ir"
)

// The attributes and blocks of an HCL process file (docs/design.md §4.2), in the order
// suggestions prefer: the keys of TOMLKeys, a table written as a block
// (HCLBlock) and a step's name as its label.
var (
	hclTopAttrs      = hclAttrs(TOMLKeys)
	hclTopBlocks     = hclBlocks(TOMLKeys)
	hclLimitsAttrs   = tomlLimitsKeys
	hclGitHubAttrs   = tomlGitHubKeys
	hclWorktreeAttrs = tomlWorktreeKeys
	hclStepAttrs     = slices.DeleteFunc(hclAttrs(ir.SubKeys(TOMLKeys, "steps")), func(k string) bool { return k == "name" })
	hclStepBlocks    = hclBlocks(ir.SubKeys(TOMLKeys, "steps"))
	hclPhaseAttrs    = tomlPhaseKeys
)

// hclAttrs are the names of the keys that are no tables: an HCL body's
// attributes.
func hclAttrs(keys []ir.Key) []string {
	var out []string
	for _, k := range keys {
		if !k.Type.HasKeys() {
			out = append(out, k.Name)
		}
	}
	return out
}

// hclBlocks are the block types of the keys that are tables.
func hclBlocks(keys []ir.Key) []string {
	var out []string
	for _, k := range keys {
		if k.Type.HasKeys() {
			out = append(out, HCLBlock(k))
		}
	}
	return out
}

// hclRedefined is the summary hclsyntax gives an attribute set twice in one
// body, which cairn reports as a duplicate rather than a syntax error.
const hclRedefined = "Attribute redefined"

// HCL reads src, the HCL process file named file, into a process: the same
// process its TOML twin yields, with ranges into this file. It reads the whole
// file and returns every duplicate, wrong type, unknown attribute or block and
// non-literal expression it finds, sorted. After a syntax error it returns
// that error and the duplicates before it only, with a process filled from
// what hclsyntax could still read. A file nested deeper than MaxNesting is
// refused, at the token that goes too deep, before hclsyntax reads it (see
// hclDepth). Like TOML, it checks structure only.
func HCL(file string, src []byte) (*ir.Process, []ir.Diagnostic) {
	src = source.Text(src)
	p := &ir.Process{Name: NameOf(file), File: file, Format: ir.HCL, Source: src}
	if d := hclDepth(src, MaxNesting); d.over {
		return p, []ir.Diagnostic{tooDeep(file, src, d, "nested more than %d levels deep; a process file needs only a few")}
	}
	fe := &hclProcess{
		hclFile:   hclFile{file: file, src: src, lines: source.LineStarts(src)},
		p:         p,
		names:     map[string]ir.Field[string]{},
		worktrees: map[string]ir.Range{},
	}
	f, parsed := hclsyntax.ParseConfig(src, file, hcl.InitialPos)
	var body *hclsyntax.Body
	if f != nil {
		body, _ = f.Body.(*hclsyntax.Body)
	}
	failed := fe.parserDiags(parsed, body)
	parserDiags := fe.diags
	fe.diags = nil
	if body != nil {
		fe.top(body)
	}
	diags := parserDiags
	// Like TOML's, the refusals of a file hclsyntax could not read would
	// be guesses about a file the user has yet to fix.
	if !failed {
		diags = append(diags, fe.diags...)
	}
	ir.SortDiagnostics(diags)
	return p, diags
}

// hclProcess fills a process from hclsyntax's tree of a file.
type hclProcess struct {
	hclFile
	p         *ir.Process
	names     map[string]ir.Field[string] // step names seen, for duplicates
	worktrees map[string]ir.Range         // worktree labels seen, for duplicates
}

// parserDiags turns hclsyntax's diagnostics into cairn's: an attribute set
// twice is a duplicate, with the first as related; anything else is a syntax
// error. Like the TOML front-end, it keeps the first syntax error and the
// duplicates before it only: what hclsyntax says after a syntax error is
// often about the same mistake. It reports whether there was a syntax error.
func (fe *hclProcess) parserDiags(ds hcl.Diagnostics, body *hclsyntax.Body) bool {
	var first *hcl.Diagnostic
	for _, d := range ds {
		if d.Severity == hcl.DiagError && d.Summary != hclRedefined && (first == nil || before(d, first)) {
			first = d
		}
	}
	for _, d := range ds {
		if d.Severity != hcl.DiagError || d.Summary != hclRedefined || d.Subject == nil || body == nil {
			continue
		}
		if first == nil || before(d, first) {
			fe.redefined(*d.Subject, body)
		}
	}
	if first == nil {
		return false
	}
	at := ir.FileStart(fe.file)
	if first.Subject != nil {
		at = fe.rng(*first.Subject)
	}
	fe.report(ir.RuleSyntax, at, nil, "%s", hclMessage(first))
	return true
}

// before reports whether a points before b; a diagnostic with no subject
// points at the start of the file.
func before(a, b *hcl.Diagnostic) bool {
	return subjectStart(a) < subjectStart(b)
}

func subjectStart(d *hcl.Diagnostic) int {
	if d.Subject == nil {
		return 0
	}
	return d.Subject.Start.Byte
}

// redefined reports the attribute at subject, set a second time in the
// innermost body that holds it.
func (fe *hclProcess) redefined(subject hcl.Range, top *hclsyntax.Body) {
	name := string(fe.text(subject))
	body := innermostBody(top, subject.Start.Byte)
	where := "in this block"
	if body == top {
		where = "at the top level"
	}
	var related []ir.Related
	if first, ok := body.Attributes[name]; ok && first.NameRange.Start.Byte != subject.Start.Byte {
		related = []ir.Related{{Range: fe.rng(first.NameRange), Message: "first defined here"}}
	}
	fe.report(ir.RuleDuplicate, fe.rng(subject), related, "attribute %q is already defined %s", name, where)
}

// innermostBody returns the body, b or one of its blocks' at any depth, that
// most closely holds byte offset off.
func innermostBody(b *hclsyntax.Body, off int) *hclsyntax.Body {
	for _, bl := range b.Blocks {
		if in := bl.Body; in != nil && in.SrcRange.Start.Byte <= off && off < in.SrcRange.End.Byte {
			return innermostBody(in, off)
		}
	}
	return b
}

// hclMessage words an hclsyntax diagnostic the way cairn's read: one
// lowercase line, its summary and the first sentence of its detail.
func hclMessage(d *hcl.Diagnostic) string {
	msg := lowerFirst(strings.TrimSuffix(d.Summary, "."))
	detail := strings.Join(strings.Fields(d.Detail), " ")
	if i := strings.Index(detail, ". "); i >= 0 {
		detail = detail[:i]
	}
	if detail = strings.TrimSuffix(detail, "."); detail != "" {
		msg += ": " + lowerFirst(detail)
	}
	return msg
}

// lowerFirst lowercases the first letter of s unless it starts an acronym
// ("HCL").
func lowerFirst(s string) string {
	if len(s) >= 2 && s[0] >= 'A' && s[0] <= 'Z' && !(s[1] >= 'A' && s[1] <= 'Z') {
		return string(s[0]+'a'-'A') + s[1:]
	}
	return s
}

// hclItem is one attribute or block of a body.
type hclItem struct {
	attr  *hclsyntax.Attribute
	block *hclsyntax.Block
}

// start is the byte offset where the item starts.
func (it hclItem) start() int {
	if it.attr != nil {
		return it.attr.SrcRange.Start.Byte
	}
	return it.block.TypeRange.Start.Byte
}

// hclItems returns the attributes and blocks of b in file order: a step's
// actions are listed in the order its kind keys are written.
func hclItems(b *hclsyntax.Body) []hclItem {
	if b == nil {
		return nil
	}
	items := make([]hclItem, 0, len(b.Attributes)+len(b.Blocks))
	for _, a := range b.Attributes {
		items = append(items, hclItem{attr: a})
	}
	for _, bl := range b.Blocks {
		items = append(items, hclItem{block: bl})
	}
	slices.SortFunc(items, func(x, y hclItem) int { return x.start() - y.start() })
	return items
}

func (fe *hclProcess) top(b *hclsyntax.Body) {
	p := fe.p
	var limits, github *hclsyntax.Block
	for _, it := range hclItems(b) {
		if a := it.attr; a != nil {
			switch a.Name {
			case "version":
				p.Version = fe.Int(a)
			case "description":
				p.Description = fe.String(a)
			case "default_worktree":
				p.DefaultWorktree = fe.String(a)
			case "commit":
				p.Commit = fe.Bool(a)
			case "run_expiry":
				p.RunExpiry = fe.Duration(a, "d")
			case "failed_run_expiry":
				p.FailedRunExpiry = fe.Duration(a, "d")
			case "access":
				p.Access = fe.String(a)
			case "limits", "github", "worktree", "step":
				fe.wantBlock(a)
			default:
				fe.unknown("attribute", a.Name, a.NameRange, "at the top level", b, hclTopAttrs, hclTopBlocks)
			}
			continue
		}
		bl := it.block
		switch bl.Type {
		case "limits":
			if fe.once(&limits, bl) {
				fe.limits(bl)
			}
		case "github":
			if fe.once(&github, bl) {
				fe.github(bl)
			}
		case "worktree":
			fe.worktree(bl)
		case "step":
			fe.step(bl)
		default:
			if slices.Contains(hclTopAttrs, bl.Type) {
				fe.wantAttr(bl)
				continue
			}
			fe.unknown("block", bl.Type, bl.TypeRange, "at the top level", b, hclTopAttrs, hclTopBlocks)
		}
	}
}

// once reports whether bl is the first block of its type in its body, first
// pointing at the first; a second is refused as a duplicate.
func (fe *hclProcess) once(first **hclsyntax.Block, bl *hclsyntax.Block) bool {
	if *first == nil {
		*first = bl
		return true
	}
	fe.report(ir.RuleDuplicate, fe.rng(bl.TypeRange),
		[]ir.Related{{Range: fe.rng((*first).TypeRange), Message: "first defined here"}},
		"block %q is already defined", bl.Type)
	return false
}

// labels refuses the labels of bl beyond want (0 or 1), and a missing one
// when want is 1. It reports whether bl has the label it wants.
func (fe *hclProcess) labels(bl *hclsyntax.Block, want int) bool {
	n := len(bl.Labels)
	switch {
	case n > want && want == 0:
		fe.report(ir.RuleType, fe.rng(bl.LabelRanges[0]), nil, "a %s block takes no label: %s", bl.Type, blockSpelling(bl.Type))
	case n > want:
		fe.report(ir.RuleType, fe.rng(bl.LabelRanges[want]), nil, "a %s block takes one label, its name: %s", bl.Type, blockSpelling(bl.Type))
	case n < want:
		fe.report(ir.RuleType, fe.rng(bl.TypeRange), nil, "a %s block needs a label, its name: %s", bl.Type, blockSpelling(bl.Type))
		return false
	}
	return true
}

// blockSpelling shows how a block of type is written.
func blockSpelling(typ string) string {
	if typ == "worktree" || typ == "step" {
		return typ + ` "NAME" { … }`
	}
	return typ + " { … }"
}

// label returns the first label of bl as a field: its value with the
// label's range and spans.
func (fe *hclProcess) label(bl *hclsyntax.Block) ir.Field[string] {
	r := bl.LabelRanges[0]
	return ir.Field[string]{
		Value: bl.Labels[0],
		Set:   true,
		Range: fe.rng(r),
		Spans: fe.labelSpans(r, bl.Labels[0]),
	}
}

// wantBlock refuses a, an attribute where a block of its name belongs.
func (fe *hclProcess) wantBlock(a *hclsyntax.Attribute) {
	fe.report(ir.RuleType, fe.rng(a.NameRange), nil, "%q must be a block, %s, not an attribute", a.Name, blockSpelling(a.Name))
}

// wantAttr refuses bl, a block where an attribute of its type belongs.
func (fe *hclProcess) wantAttr(bl *hclsyntax.Block) {
	fe.report(ir.RuleType, fe.rng(bl.TypeRange), nil, "%q must be an attribute, %s = …, not a block", bl.Type, bl.Type)
}

// unknown refuses an attribute or block (what) called name, which is none of
// known, at its name; where says where it is ("in step \"test\""), and a
// known name close to it is suggested. known is the body's attribute names,
// then its block types, if any: the suggestion is offered as a fix when it
// is of name's kind, and body (the body name is in) holds no attribute, or
// no block that may be there only once, of that name.
func (fe *hclProcess) unknown(what, name string, at hcl.Range, where string, body *hclsyntax.Body, known ...[]string) {
	s := ir.Suggest(name, slices.Concat(known...))
	if s == "" {
		fe.report(ir.RuleUnknownKey, fe.rng(at), nil, "unknown %s %q %s", what, name, where)
		return
	}
	r := fe.rng(at)
	var fixes []ir.Fix
	if hclFixable(what, s, body, known) {
		fixes = ir.Change(fe.src, r, name, s)
	}
	fe.reportFixes(ir.RuleUnknownKey, r, fixes, "unknown %s %q %s; did you mean %q?", what, name, where, s)
}

// hclFixable reports whether a misspelt attribute or block (what) may be
// renamed s in body: s is a name of its kind among known (attribute names,
// then block types), and renaming it defines nothing twice (steps and
// worktrees are many blocks of one type).
func hclFixable(what, s string, body *hclsyntax.Body, known [][]string) bool {
	if body == nil {
		return false
	}
	switch {
	case what == "attribute" && slices.Contains(known[0], s):
		return body.Attributes[s] == nil
	case what == "block" && len(known) > 1 && slices.Contains(known[1], s):
		if s == "step" || s == "worktree" {
			return true
		}
		return !slices.ContainsFunc(body.Blocks, func(b *hclsyntax.Block) bool { return b.Type == s })
	}
	return false
}

func (fe *hclProcess) limits(bl *hclsyntax.Block) {
	fe.labels(bl, 0)
	l := &fe.p.Limits
	l.Header = fe.rng(bl.DefRange())
	for _, it := range hclItems(bl.Body) {
		if a := it.attr; a != nil {
			switch a.Name {
			case "repair_cap":
				l.RepairCap = fe.Int(a)
			case "self_merge":
				l.SelfMerge = fe.Bool(a)
			case "protected_paths":
				l.ProtectedPaths = fe.Strings(a)
			case "budget_usd":
				l.BudgetUSD = fe.Budget(a)
			case "daily_budget_usd":
				l.DailyBudgetUSD = fe.Budget(a)
			default:
				fe.unknown("attribute", a.Name, a.NameRange, "in limits", bl.Body, hclLimitsAttrs)
			}
			continue
		}
		fe.blockInside(it.block, "in limits", hclLimitsAttrs)
	}
}

func (fe *hclProcess) github(bl *hclsyntax.Block) {
	fe.labels(bl, 0)
	g := &fe.p.GitHub
	g.Header = fe.rng(bl.DefRange())
	for _, it := range hclItems(bl.Body) {
		if a := it.attr; a != nil {
			switch a.Name {
			case "runs_on":
				g.RunsOn = fe.String(a)
			case "schedule":
				g.Schedule = fe.Strings(a)
			case "timeout_minutes":
				g.TimeoutMinutes = fe.Int(a)
			case "label":
				g.Label = fe.String(a)
			case "push_token":
				g.PushToken = fe.String(a)
			default:
				fe.unknown("attribute", a.Name, a.NameRange, "in github", bl.Body, hclGitHubAttrs)
			}
			continue
		}
		fe.blockInside(it.block, "in github", hclGitHubAttrs)
	}
}

// blockInside refuses bl in a body that takes only the attributes attrs.
func (fe *hclProcess) blockInside(bl *hclsyntax.Block, where string, attrs []string) {
	if slices.Contains(attrs, bl.Type) {
		fe.wantAttr(bl)
		return
	}
	fe.unknown("block", bl.Type, bl.TypeRange, where, nil, attrs)
}

func (fe *hclProcess) worktree(bl *hclsyntax.Block) {
	named := fe.labels(bl, 1)
	var w ir.Worktree
	where := "in this worktree"
	if named {
		name := fe.label(bl)
		w = ir.Worktree{Name: name.Value, Header: fe.rng(bl.DefRange()), NameRange: name.Range}
		where = fmt.Sprintf("in worktree %q", name.Value)
	}
	for _, it := range hclItems(bl.Body) {
		if a := it.attr; a != nil {
			switch a.Name {
			case "kind":
				w.Kind = fe.String(a)
			case "copy":
				w.Copy = fe.Strings(a)
			case "setup":
				w.Setup = fe.String(a)
			case "setup_timeout":
				w.SetupTimeout = fe.Duration(a, "s")
			default:
				fe.unknown("attribute", a.Name, a.NameRange, where, bl.Body, hclWorktreeAttrs)
			}
			continue
		}
		fe.blockInside(it.block, where, hclWorktreeAttrs)
	}
	if !named {
		return
	}
	if first, ok := fe.worktrees[w.Name]; ok {
		fe.report(ir.RuleDuplicate, w.NameRange, []ir.Related{{Range: first, Message: "first defined here"}},
			"worktree %q is already defined", w.Name)
		return
	}
	fe.worktrees[w.Name] = w.NameRange
	fe.p.Worktrees = append(fe.p.Worktrees, w)
}

func (fe *hclProcess) step(bl *hclsyntax.Block) {
	s := ir.Step{Header: fe.rng(bl.DefRange())}
	label := fmt.Sprintf("step %d", len(fe.p.Steps)+1)
	if fe.labels(bl, 1) {
		s.Name = fe.label(bl)
		label = fmt.Sprintf("step %q", s.Name.Value)
		fe.uniqueName(s.Name)
	} else {
		// Refused already: no rule should also call the step nameless.
		s.Name = ir.Field[string]{Set: true, Bad: true, Range: fe.rng(bl.TypeRange)}
	}
	// set holds the step's session keys, copied onto each action.
	var set ir.ActionKeys
	var kinds []hclItem
	var precheck, validate *hclsyntax.Block
	for _, it := range hclItems(bl.Body) {
		if a := it.attr; a != nil {
			switch a.Name {
			case "description":
				s.Description = fe.String(a)
			case "worktree":
				s.Fill().Worktree = fe.String(a)
			case "parallel":
				s.Fill().Parallel = fe.String(a)
			case "needs":
				s.Fill().Needs = fe.Strings(a)
			case "when":
				s.Fill().When = fe.Expression(a)
			case "for_each":
				s.Fill().ForEach = fe.Expression(a)
			case "optional":
				s.Fill().Optional = fe.Bool(a)
			case "timeout":
				s.Fill().Timeout = fe.Duration(a, "s")
			case "env":
				s.Fill().Env = fe.StringMap(a)
			case "output_schema":
				s.Fill().OutputSchema = fe.outputSchema(a)
			case "skill", "prompt", "command", "catalogue":
				kinds = append(kinds, it)
			case "harness":
				set.Harness = fe.String(a)
			case "model":
				set.Model = fe.String(a)
			case "effort":
				set.Effort = fe.String(a)
			case "access":
				set.Access = fe.String(a)
			case "process":
				set.Process = fe.String(a)
			case "spec_process":
				set.SpecProcess = fe.String(a)
			case "max_turns":
				set.MaxTurns = fe.Int(a)
			case "budget_usd":
				set.BudgetUSD = fe.Budget(a)
			case "precheck", "validate":
				fe.wantBlock(a)
			case "name":
				fe.report(ir.RuleUnknownKey, fe.rng(a.NameRange), nil,
					"unknown attribute \"name\" in %s; a step's name is its block's label: %s", label, blockSpelling("step"))
				s.UnknownKeys = true
			default:
				fe.unknown("attribute", a.Name, a.NameRange, "in "+label, bl.Body, hclStepAttrs, hclStepBlocks)
				s.UnknownKeys = true
			}
			continue
		}
		b := it.block
		switch b.Type {
		case "precheck":
			if fe.once(&precheck, b) {
				s.Precheck = fe.phase(ir.PrecheckPhase, b, label)
			}
		case "validate":
			if fe.once(&validate, b) {
				s.Validate = fe.phase(ir.ValidatePhase, b, label)
			}
		case "skill", "prompt", "command", "catalogue":
			// Present but refused, as a TOML kind key of the wrong
			// type is: the step still has its one action.
			fe.wantAttr(b)
			kinds = append(kinds, it)
		default:
			if slices.Contains(hclStepAttrs, b.Type) {
				fe.wantAttr(b)
				continue
			}
			fe.unknown("block", b.Type, b.TypeRange, "in "+label, bl.Body, hclStepAttrs, hclStepBlocks)
			s.UnknownKeys = true
		}
	}
	if len(kinds) > 0 {
		s.Actions = make([]ir.Action, 0, len(kinds))
	}
	for _, it := range kinds {
		s.Actions = append(s.Actions, fe.action(it, set))
	}
	fe.p.Steps = append(fe.p.Steps, s)
}

// action is the action a kind attribute (skill, prompt, command, catalogue)
// makes, with the step's session keys as written; a kind written as a block
// makes an action whose value is refused.
func (fe *hclProcess) action(it hclItem, set ir.ActionKeys) ir.Action {
	var a ir.Action
	if anySessionKey(&set) {
		a.Written = &set
	}
	var key string
	var v ir.Field[string]
	if it.attr != nil {
		key = it.attr.Name
		a.Range = fe.rng(it.attr.SrcRange)
		v = fe.String(it.attr)
	} else {
		key = it.block.Type
		a.Range = fe.rng(it.block.Range())
		v = ir.Field[string]{Set: true, Bad: true, Key: fe.rng(it.block.TypeRange), Range: a.Range}
	}
	setKind(&a, key, v)
	return a
}

// uniqueName refuses a step name a previous step already has: hclsyntax
// takes two step "a" blocks silently.
func (fe *hclProcess) uniqueName(name ir.Field[string]) {
	if name.Value == "" {
		return
	}
	if first, ok := fe.names[name.Value]; ok {
		fe.report(ir.RuleDuplicate, name.Range, []ir.Related{{Range: first.Range, Message: "first defined here"}},
			"step %q is already defined", name.Value)
		return
	}
	fe.names[name.Value] = name
}

func (fe *hclProcess) phase(kind ir.PhaseKind, bl *hclsyntax.Block, step string) *ir.Phase {
	fe.labels(bl, 0)
	ph := &ir.Phase{Kind: kind, Header: fe.rng(bl.DefRange())}
	where := fmt.Sprintf("in the %s of %s", kind, step)
	for _, it := range hclItems(bl.Body) {
		if a := it.attr; a != nil {
			switch a.Name {
			case "shells":
				ph.Shells = fe.Strings(a)
			case "instructions":
				ph.Fill().Instructions = fe.Strings(a)
			case "whys":
				ph.Whys = fe.Strings(a)
			case "severity":
				ph.Severity = fe.String(a)
			case "model":
				ph.Fill().Model = fe.String(a)
			default:
				fe.unknown("attribute", a.Name, a.NameRange, where, bl.Body, hclPhaseAttrs)
			}
			continue
		}
		fe.blockInside(it.block, where, hclPhaseAttrs)
	}
	return ph
}
