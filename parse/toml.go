package parse

import (
	"bytes"
	"fmt"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/tomldoc"
	"github.com/cairn-dev/cairn/ir"
)

// The keys of a TOML process file, from TOMLKeys, in the order suggestions
// prefer.
var (
	tomlTopKeys      = ir.KeyNames(TOMLKeys)
	tomlLimitsKeys   = ir.KeyNames(ir.SubKeys(TOMLKeys, "limits"))
	tomlGitHubKeys   = ir.KeyNames(ir.SubKeys(TOMLKeys, "github"))
	tomlWorktreeKeys = ir.KeyNames(ir.SubKeys(TOMLKeys, "worktrees"))
	tomlStepKeys     = ir.KeyNames(ir.SubKeys(TOMLKeys, "steps"))
	tomlPhaseKeys    = ir.KeyNames(tomlPhaseKeyTable)
)

// TOML reads src, the TOML process file named file, into a process. It reads
// the whole file and returns every duplicate, wrong type and unknown key it
// finds, sorted, with a process as complete as the file allows; a syntax error
// ends the file, and is then reported with the duplicates before it only.
// It checks structure only: enums, durations, names and the version's value
// are for the rules of package check. The process keeps src as its text,
// and its strings share src's bytes: src must not change once it is read.
func TOML(file string, src []byte) (*ir.Process, []ir.Diagnostic) {
	src = source.Text(src)
	p := &ir.Process{Name: NameOf(file), File: file, Format: ir.TOML, Source: src}
	steps := stepHeaders(src)
	fe := &tomlProcess{p: p, names: make(map[string]int32, steps), r: tomldoc.TOMLReader{Src: src}}
	// Each [[steps]] goes into the process as soon as it is complete, and
	// its part of the document goes: a long process is never held twice.
	doc, diags := tomldoc.ReadTOMLDocItems(file, src, "steps", func(i int, item *tomldoc.TOMLValue) {
		if p.Steps == nil {
			p.Steps = make([]ir.Step, 0, steps)
			fe.actionRoom = make([]ir.Action, steps)
		}
		fe.step(i+1, item)
	})
	fe.top(doc.Root)
	// After a syntax error the document is cut short where the parser
	// stopped: what it holds fills the process, but its refusals would be
	// guesses about a file the user has yet to fix.
	if !hasSyntaxError(diags) {
		diags = append(diags, fe.r.Diags...)
	}
	ir.SortDiagnostics(diags)
	return p, diags
}

// tomlProcess fills a process from a tomldoc.TOMLDoc.
type tomlProcess struct {
	p     *ir.Process
	r     tomldoc.TOMLReader
	names map[string]int32 // the steps' names seen, by index, for duplicates
	// actionRoom is zero actions the steps' actions are cut from: a step
	// has one action, and one allocation of an ir.Action (192 B) per
	// step would be one more allocation per step of a long file.
	actionRoom []ir.Action
}

func (fe *tomlProcess) top(t *tomldoc.TOMLTable) {
	p, r := fe.p, &fe.r
	for _, e := range t.Entries {
		switch e.Key {
		case "version":
			p.Version = r.Int(e)
		case "description":
			p.Description = r.String(e)
		case "default_worktree":
			p.DefaultWorktree = r.String(e)
		case "commit":
			p.Commit = r.Bool(e)
		case "run_expiry":
			p.RunExpiry = r.Duration(e, "d")
		case "failed_run_expiry":
			p.FailedRunExpiry = r.Duration(e, "d")
		case "access":
			p.Access = r.String(e)
		case "limits":
			fe.limits(e)
		case "github":
			fe.github(e)
		case "worktrees":
			fe.worktrees(e)
		case "steps":
			fe.steps(e)
		default:
			r.UnknownKey(t, e, "at the top level", tomlTopKeys)
		}
	}
}

func (fe *tomlProcess) limits(e *tomldoc.TOMLEntry) {
	r := &fe.r
	t := r.Table(e)
	if t == nil {
		return
	}
	l := &fe.p.Limits
	l.Header = tomldoc.HeaderOf(e)
	for _, kv := range t.Entries {
		switch kv.Key {
		case "repair_cap":
			l.RepairCap = r.Int(kv)
		case "self_merge":
			l.SelfMerge = r.Bool(kv)
		case "protected_paths":
			l.ProtectedPaths = r.Strings(kv)
		case "budget_usd":
			l.BudgetUSD = r.Budget(kv)
		case "daily_budget_usd":
			l.DailyBudgetUSD = r.Budget(kv)
		default:
			r.UnknownKey(t, kv, "in [limits]", tomlLimitsKeys)
		}
	}
}

func (fe *tomlProcess) github(e *tomldoc.TOMLEntry) {
	r := &fe.r
	t := r.Table(e)
	if t == nil {
		return
	}
	g := &fe.p.GitHub
	g.Header = tomldoc.HeaderOf(e)
	for _, kv := range t.Entries {
		switch kv.Key {
		case "runs_on":
			g.RunsOn = r.String(kv)
		case "schedule":
			g.Schedule = r.Strings(kv)
		case "timeout_minutes":
			g.TimeoutMinutes = r.Int(kv)
		case "label":
			g.Label = r.String(kv)
		case "push_token":
			g.PushToken = r.String(kv)
		default:
			r.UnknownKey(t, kv, "in [github]", tomlGitHubKeys)
		}
	}
}

func (fe *tomlProcess) worktrees(e *tomldoc.TOMLEntry) {
	r := &fe.r
	t := r.Table(e)
	if t == nil {
		return
	}
	fe.p.Worktrees = make([]ir.Worktree, 0, len(t.Entries))
	for _, we := range t.Entries {
		if we.Value.Kind != tomldoc.KindTable {
			r.Report(ir.RuleType, we.Value.Range, nil, "worktree %q must be a table, not %s", we.Key, tomldoc.Describe(we.Value))
			continue
		}
		w := ir.Worktree{Name: we.Key, Header: tomldoc.HeaderOf(we), NameRange: we.KeyRange}
		for _, kv := range we.Value.Table.Entries {
			switch kv.Key {
			case "kind":
				w.Kind = r.String(kv)
			case "copy":
				w.Copy = r.Strings(kv)
			case "setup":
				w.Setup = r.String(kv)
			case "setup_timeout":
				w.SetupTimeout = r.Duration(kv, "s")
			default:
				r.UnknownKey(we.Value.Table, kv, fmt.Sprintf("in worktree %q", we.Key), tomlWorktreeKeys)
			}
		}
		fe.p.Worktrees = append(fe.p.Worktrees, w)
	}
}

func (fe *tomlProcess) steps(e *tomldoc.TOMLEntry) {
	r := &fe.r
	if e.Value.Kind != tomldoc.KindArray {
		r.TypeError(e, "an array of tables ([[steps]])")
		return
	}
	if e.Value.TablesArray {
		// Its items went into the process as the document was read.
		return
	}
	fe.p.Steps = make([]ir.Step, 0, len(e.Value.Items))
	for i, item := range e.Value.Items {
		if item.Kind != tomldoc.KindTable {
			r.Report(ir.RuleType, item.Range, nil, "step %d must be a table, not %s", i+1, tomldoc.Describe(item))
			continue
		}
		fe.step(i+1, item)
	}
}

// newStep returns a zero step added to the process's steps, filled where it
// stays rather than built aside and copied in (an ir.Step is 360 B).
func (fe *tomlProcess) newStep() *ir.Step {
	if steps := fe.p.Steps; len(steps) < cap(steps) {
		// The room past the steps is zero: nothing is written there.
		fe.p.Steps = steps[:len(steps)+1]
	} else {
		fe.p.Steps = append(steps, ir.Step{})
	}
	return &fe.p.Steps[len(fe.p.Steps)-1]
}

func (fe *tomlProcess) step(n int, item *tomldoc.TOMLValue) {
	r := &fe.r
	t := item.Table
	s := fe.newStep()
	s.Header = item.Range
	if t.Def == tomldoc.TOMLHeader && t.Header.IsValid() {
		s.Header = t.Header
	}
	if e := t.Get("name"); e != nil {
		s.Name = r.String(e)
		if !s.Name.Bad {
			fe.uniqueName(s.Name)
		}
	}
	// The session keys are read straight into the step's first action,
	// where they stay when the step has one kind key, as it should.
	a := fe.nextAction()
	var kindsRoom [1]*tomldoc.TOMLEntry
	kinds := kindsRoom[:0]
	for _, kv := range t.Entries {
		switch kv.Key {
		case "name":
		case "description":
			s.Description = r.String(kv)
		case "worktree":
			s.Fill().Worktree = r.String(kv)
		case "parallel":
			s.Fill().Parallel = r.String(kv)
		case "needs":
			s.Fill().Needs = r.Strings(kv)
		case "when":
			s.Fill().When = r.String(kv)
		case "for_each":
			s.Fill().ForEach = r.String(kv)
		case "optional":
			s.Fill().Optional = r.Bool(kv)
		case "timeout":
			s.Fill().Timeout = r.Duration(kv, "s")
		case "env":
			s.Fill().Env = r.StringTable(kv)
		case "output_schema":
			s.Fill().OutputSchema = fe.outputSchema(kv)
		case "skill", "prompt", "command", "catalogue":
			kinds = append(kinds, kv)
		case "harness":
			a.Fill().Harness = r.String(kv)
		case "model":
			a.Fill().Model = r.String(kv)
		case "effort":
			a.Fill().Effort = r.String(kv)
		case "access":
			a.Fill().Access = r.String(kv)
		case "process":
			a.Fill().Process = r.String(kv)
		case "spec_process":
			a.Fill().SpecProcess = r.String(kv)
		case "max_turns":
			a.Fill().MaxTurns = r.Int(kv)
		case "budget_usd":
			a.Fill().BudgetUSD = r.Budget(kv)
		case "precheck":
			s.Precheck = fe.phase(ir.PrecheckPhase, kv, n, s.Name)
		case "validate":
			s.Validate = fe.phase(ir.ValidatePhase, kv, n, s.Name)
		case "id":
			// A card's step has an id; a TOML step has a name.
			r.UnknownKeySuggest(t, kv, "in "+stepLabel(n, s.Name), "name")
			s.UnknownKeys = true
		default:
			r.UnknownKey(t, kv, "in "+stepLabel(n, s.Name), tomlStepKeys)
			s.UnknownKeys = true
		}
	}
	if len(kinds) == 0 {
		// No action: the room goes to the next step as it was.
		*a = ir.Action{}
		return
	}
	s.Actions = fe.takeActions(len(kinds))
	for i, kv := range kinds {
		b := &s.Actions[i]
		if i > 0 {
			copySettings(b, &s.Actions[0])
		}
		b.Range = kv.At()
		setKind(b, kv.Key, r.String(kv))
	}
}

// nextAction returns the zero action the next step's first action is read
// into: the first of the room left.
func (fe *tomlProcess) nextAction() *ir.Action {
	if len(fe.actionRoom) == 0 {
		fe.actionRoom = make([]ir.Action, 8)
	}
	return &fe.actionRoom[0]
}

// takeActions returns the room's first n actions, the first of which
// nextAction returned, for a step.
func (fe *tomlProcess) takeActions(n int) []ir.Action {
	if n > len(fe.actionRoom) {
		a := make([]ir.Action, n)
		a[0], fe.actionRoom[0] = fe.actionRoom[0], ir.Action{}
		return a
	}
	a := fe.actionRoom[:n:n]
	fe.actionRoom = fe.actionRoom[n:]
	return a
}

// copySettings sets the session keys of dst, a zero action, to src's, as
// each action of a step has them: all but src's kind key.
func copySettings(dst, src *ir.Action) {
	if src.Written != nil && anySessionKey(src.Written) {
		k := *src.Written
		k.Skill, k.Prompt, k.Catalogue = ir.Field[string]{}, ir.Field[string]{}, ir.Field[string]{}
		dst.Written = &k
	}
}

// stepLabel names the n-th step in messages: by its name when it has one
// that was not refused, else by its number. Only a refusal needs it.
func stepLabel(n int, name ir.Field[string]) string {
	if name.Set && !name.Bad {
		return fmt.Sprintf("step %q", name.Value)
	}
	return fmt.Sprintf("step %d", n)
}

// uniqueName refuses the name of the last step read when a previous step
// already has it.
func (fe *tomlProcess) uniqueName(name ir.Field[string]) {
	if name.Value == "" {
		return
	}
	if first, ok := fe.names[name.Value]; ok {
		fe.r.Report(ir.RuleDuplicate, name.Range, []ir.Related{{Range: fe.p.Steps[first].Name.Range, Message: "first defined here"}},
			"step %q is already defined", name.Value)
		return
	}
	fe.names[name.Value] = int32(len(fe.p.Steps) - 1)
}

func (fe *tomlProcess) phase(kind ir.PhaseKind, e *tomldoc.TOMLEntry, n int, name ir.Field[string]) *ir.Phase {
	r := &fe.r
	t := r.Table(e)
	if t == nil {
		return nil
	}
	ph := &ir.Phase{Kind: kind, Header: tomldoc.HeaderOf(e)}
	for _, kv := range t.Entries {
		switch kv.Key {
		case "shells":
			ph.Shells = r.Strings(kv)
		case "instructions":
			ph.Fill().Instructions = r.Strings(kv)
		case "whys":
			ph.Whys = r.Strings(kv)
		case "severity":
			ph.Severity = r.String(kv)
		case "model":
			ph.Fill().Model = r.String(kv)
		default:
			r.UnknownKey(t, kv, fmt.Sprintf("in the %s of %s", kind, stepLabel(n, name)), tomlPhaseKeys)
		}
	}
	return ph
}

// stepHeaders counts the steps' headers as usually written, each at the
// start of a line: how many steps to make room for. One in a comment or
// after other text on its line is not counted, so that a file cannot make
// room for more steps than it holds by repeating the header along a line.
func stepHeaders(src []byte) int {
	const header = "[[steps]]"
	n := bytes.Count(src, []byte("\n"+header))
	if bytes.HasPrefix(src, []byte(header)) {
		n++
	}
	return n
}

func hasSyntaxError(ds []ir.Diagnostic) bool {
	for _, d := range ds {
		if d.Rule == ir.RuleSyntax {
			return true
		}
	}
	return false
}
