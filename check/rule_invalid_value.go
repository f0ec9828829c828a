package check

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/internal/glob"
	"github.com/cairn-dev/cairn/ir"
)

// RuleInvalidValue is the ID of the rule about values outside their enum and
// durations that do not parse.
const RuleInvalidValue = ir.RuleInvalidValue

// The enums invalid-value knows, in the order messages list them.
var (
	worktreeKinds = ir.WorktreeKinds
	efforts       = ir.Efforts
	severities    = ir.Severities
)

// ruleInvalidValue refuses a value outside its enum, a duration that does not
// parse, a worktree's copy glob that is none or reaches out of the repository, a number out of range (a budget not above 0, or not a number), an empty script, prompt or skill, an env
// name a shell cannot export, and a [github] table no workflow could hold
// (a cron that does not parse, a value GitHub would read as an expression).
var ruleInvalidValue = &Rule{
	ID:       RuleInvalidValue,
	Doc:      "a value outside its enum or its range (a budget_usd not above 0), a duration that does not parse, a worktree's copy glob that is no glob or reaches outside the repository, a [github] schedule that is no cron, or a [github] value holding \"${{\"",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		v := &values{pass: pass, seen: map[ir.Range]bool{}}
		p := pass.Process
		v.expiry(p.RunExpiry, keyName(p, "run_expiry"))
		v.expiry(p.FailedRunExpiry, keyName(p, "failed_run_expiry"))
		v.enum(p.Access, "access", ir.Accesses)
		if rc := p.Limits.RepairCap; rc.Set && !rc.Bad && rc.Value < 0 {
			v.report(valueRange(rc), "invalid repair_cap %d; it cannot be negative", rc.Value)
		}
		v.budget(p.Limits.BudgetUSD)
		v.github(&p.GitHub)
		for _, w := range p.Worktrees {
			switch k := w.Kind; {
			case !k.Set:
				v.report(w.Header, "worktree %q has no \"kind\"; add kind = %q, %q or %q", w.Name, ir.Throwaway, ir.IssueBranch, ir.Checkout)
			case !k.Bad:
				v.enum(k, "worktree kind", worktreeKinds)
			}
			v.worktree(&w)
		}
		for i := range p.Steps {
			v.step(&p.Steps[i])
		}
	},
}

// values walks one process for ruleInvalidValue. A front-end copies a TOML or
// HCL step's keys onto each of its actions, so seen keeps one value from
// being reported once per action.
type values struct {
	pass *Pass
	seen map[ir.Range]bool
}

func (v *values) report(r ir.Range, format string, args ...any) {
	v.reportFixes(r, nil, format, args...)
}

// reportFixes is report with the fixes that resolve the finding.
func (v *values) reportFixes(r ir.Range, fixes []ir.Fix, format string, args ...any) {
	if v.seen[r] {
		return
	}
	v.seen[r] = true
	v.pass.ReportFixes(r, fixes, format, args...)
}

// enum refuses f when its value is not one of allowed.
func (v *values) enum(f ir.Field[string], what string, allowed []string) {
	if !f.Set || f.Bad || slices.Contains(allowed, f.Value) {
		return
	}
	s := ir.Suggest(f.Value, allowed)
	v.reportFixes(valueRange(f), v.pass.change(f, s), "invalid %s %q; expected %s%s", what, f.Value, ir.OneOf(allowed), ir.Meant(s))
}

// budget refuses a budget_usd that is no number above 0.
func (v *values) budget(f ir.Field[ir.Budget]) {
	if !f.Set || f.Bad {
		return
	}
	if err := ir.CheckBudget(keyName(v.pass.Process, "budget_usd"), f.Value); err != nil {
		v.report(valueRange(f), "%v", err)
	}
}

// github refuses what a [github] table holds that no workflow could: an
// empty runner, a value holding "${{" (at the "${{"), a schedule that is no
// cron GitHub Actions reads (at the schedule), a job timeout under a minute.
func (v *values) github(g *ir.GitHub) {
	p := v.pass.Process
	switch r := g.RunsOn; {
	case !r.Set || r.Bad:
	case strings.TrimSpace(r.Value) == "":
		v.report(valueRange(r), "invalid %s %q; name the runner, such as \"ubuntu-latest\"", keyName(p, "runs_on"), r.Value)
	case strings.Contains(r.Value, ghExpression):
		v.report(expressionRange(r), "invalid %s %q: GitHub Actions would read %q as an expression; name the runner, such as \"ubuntu-latest\"", keyName(p, "runs_on"), r.Value, ghExpression)
	}
	if g.Schedule.Set {
		for _, c := range g.Schedule.Value {
			if c.Bad {
				continue
			}
			if strings.Contains(c.Value, ghExpression) {
				v.report(expressionRange(c), "invalid cron %q in schedule: GitHub Actions would read %q as an expression; write five fields", c.Value, ghExpression)
				continue
			}
			if err := checkCron(c.Value); err != nil {
				v.report(valueRange(c), "invalid cron %q in schedule: %v", c.Value, err)
			}
		}
	}
	switch l := g.Label; {
	case !l.Set || l.Bad:
	case strings.TrimSpace(l.Value) == "":
		v.report(valueRange(l), "invalid %s %q; name the label that starts a run on an issue, such as %q", keyName(p, "label"), l.Value, ir.DefaultLabel)
	case strings.Contains(l.Value, ghExpression):
		v.report(expressionRange(l), "invalid %s %q: GitHub Actions would read %q as an expression; name the label, such as %q", keyName(p, "label"), l.Value, ghExpression, ir.DefaultLabel)
	}
	switch pt := g.PushToken; {
	case !pt.Set || pt.Bad:
	case !secretName().MatchString(pt.Value):
		v.report(valueRange(pt), "invalid %s %q; name a repository secret: letters, digits and _, not starting with a digit, such as \"CAIRN_PUSH_TOKEN\"", keyName(p, "push_token"), pt.Value)
	case strings.HasPrefix(strings.ToUpper(pt.Value), "GITHUB_"):
		v.report(valueRange(pt), "invalid %s %q: GitHub names no secret GITHUB_*, and the workflow's own token starts no workflow on its push; name a secret holding a token of your own, such as \"CAIRN_PUSH_TOKEN\"", keyName(p, "push_token"), pt.Value)
	}
	if tm := g.TimeoutMinutes; tm.Set && !tm.Bad && tm.Value < 1 {
		v.report(valueRange(tm), "invalid %s %d; a job needs at least 1 minute", keyName(p, "timeout_minutes"), tm.Value)
	}
}

// secretName is the name of a repository secret.
var secretName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// ghExpression opens an expression wherever GitHub Actions reads a
// workflow's value, quoted or not: a [github] value holding it would be
// evaluated, not taken as written.
const ghExpression = "${{"

// expressionRange is where f's value first holds ghExpression, as written;
// the value's whole range when its characters cannot be placed.
func expressionRange(f ir.Field[string]) ir.Range {
	r := valueRange(f)
	i := strings.Index(f.Value, ghExpression)
	if i < 0 {
		return r
	}
	if start := ir.PosAt(f.Value, f.Spans, i); start.IsValid() {
		r.Start, r.End = start, ir.PosAt(f.Value, f.Spans, i+len(ghExpression))
	}
	return r
}

// expiry refuses a run expiry that is neither a duration nor "never".
func (v *values) expiry(f ir.Field[string], key string) {
	if !f.Set || f.Bad || f.Value == ir.Never {
		return
	}
	if _, err := ir.ParseDuration(f.Value); err != nil {
		v.report(valueRange(f), "invalid %s: %v; write a duration such as \"30d\", or \"never\"", key, err)
	}
}

func (v *values) step(s *ir.Step) {
	p := v.pass.Process
	if t := s.Keys().Timeout; t.Set && !t.Bad {
		d, err := ir.ParseDuration(t.Value)
		switch {
		case err != nil:
			v.report(valueRange(t), "invalid timeout: %v; write a duration such as \"45m\" or \"1h30m\"", err)
		case d <= 0:
			v.report(valueRange(t), "invalid timeout %q; a timeout must be longer than 0s", t.Value)
		}
	}
	if env := s.Keys().Env; env.Set && !env.Bad {
		for _, e := range env.Value {
			if !validEnvName(e.Name) {
				r := e.Key
				if !r.IsValid() {
					r = e.Range
				}
				v.report(r, "invalid environment variable name %q; use letters, digits and _, not starting with a digit", e.Name)
			}
			v.nul(e.Field, fmt.Sprintf("environment variable %q", e.Name))
		}
	}
	v.outputSchema(s)
	for _, a := range s.Actions {
		switch a.Kind {
		case ir.Command:
			v.empty(a.Script, scriptKey(p))
			v.nul(a.Script, scriptKey(p))
		case ir.Session:
			k := a.Keys()
			v.empty(k.Skill, "skill")
			v.empty(k.Prompt, "prompt")
			v.nul(k.Prompt, "prompt")
			v.enum(k.Effort, "effort", efforts)
			v.enum(k.Access, "access", ir.Accesses)
			v.budget(k.BudgetUSD)
			if mt := k.MaxTurns; mt.Set && !mt.Bad && mt.Value < 1 {
				v.report(valueRange(mt), "invalid %s %d; a session needs at least 1 turn", keyName(p, "max_turns"), mt.Value)
			}
		}
	}
	for _, ph := range []*ir.Phase{s.Precheck, s.Run, s.Validate} {
		if ph == nil || !ph.Shells.Set || ph.Shells.Bad {
			continue
		}
		for _, sh := range ph.Shells.Value {
			v.nul(sh, "shell")
		}
	}
	if s.Validate != nil {
		v.enum(s.Validate.Severity, "severity", severities)
	}
}

// worktree refuses a worktree's copy globs that are no glob or reach
// outside the repository, an empty setup, and a setup_timeout that is no
// duration above 0.
func (v *values) worktree(w *ir.Worktree) {
	if c := w.Copy; c.Set && !c.Bad {
		for _, g := range c.Value {
			if err := glob.Check(g.Value); err != nil {
				v.report(valueRange(g), "invalid copy glob %q in worktree %q: %v", g.Value, w.Name, err)
			}
		}
	}
	if s := w.Setup; s.Set && !s.Bad && strings.TrimSpace(s.Value) == "" {
		v.report(valueRange(s), "empty setup in worktree %q; write the script that readies the worktree, or remove the key", w.Name)
	}
	v.nul(w.Setup, fmt.Sprintf("the setup of worktree %q", w.Name))
	if t := w.SetupTimeout; t.Set && !t.Bad {
		d, err := ir.ParseDuration(t.Value)
		switch {
		case err != nil:
			v.report(valueRange(t), "invalid setup_timeout: %v; write a duration such as \"10m\"", err)
		case d <= 0:
			v.report(valueRange(t), "invalid setup_timeout %q; it must be longer than 0s", t.Value)
		}
	}
}

// nul refuses a value holding a NUL character: no environment, command line
// or script argument can carry one, so the run would fail where check
// passed.
func (v *values) nul(f ir.Field[string], what string) {
	if f.Set && !f.Bad && strings.IndexByte(f.Value, 0) >= 0 {
		v.report(valueRange(f), "%s holds a NUL character (\\u0000), which no command line or environment can carry; remove it", what)
	}
}

// empty refuses a script, prompt or skill written as an empty string.
func (v *values) empty(f ir.Field[string], key string) {
	if f.Set && !f.Bad && strings.TrimSpace(f.Value) == "" {
		v.report(valueRange(f), "empty %s; write what the step should do, or remove the step", key)
	}
}

// scriptKey is what p's format calls a command action's script.
func scriptKey(p *ir.Process) string {
	if p.Format == ir.Card {
		return "shell"
	}
	return "command"
}

// validEnvName reports whether name matches [A-Za-z_][A-Za-z0-9_]*.
func validEnvName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
