package check

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/skills"
)

// notPreflighted is the Detail of a harness that was not asked whether it
// can start.
const notPreflighted = "not checked (--no-preflight)"

// BuildPlan turns a process and its resolution into the plan `cairn check`
// shows and `cairn run` carries out, with what a run or a compiled script
// takes from the config besides (its [notify], [resources], trusted
// accounts and custom harnesses). Every list of the plan is non-nil, so
// that its JSON always has the arrays (docs/design.md §10). Cancelling ctx cancels the
// harnesses' preflight.
func BuildPlan(ctx context.Context, p *ir.Process, res *Resolution, env *Env) *ir.Plan {
	if env == nil {
		env = &Env{}
	}
	if res == nil {
		res = Resolve(ctx, p, env)
	}
	plan := &ir.Plan{
		Process:         p.Name,
		File:            p.File,
		Format:          p.Format,
		Description:     stringOr(p.Description, ""),
		Commit:          p.Format == ir.Card || p.Commit.Set && !p.Commit.Bad && p.Commit.Value,
		RunExpiry:       stringOr(p.RunExpiry, ir.DefaultRunExpiry),
		FailedRunExpiry: stringOr(p.FailedRunExpiry, ir.DefaultFailedRunExpiry),
		Limits:          res.Limits,
		Worktrees:       planWorktrees(ctx, p, res, env),
		Stages:          [][]ir.PlanStep{},
		Harnesses:       planHarnesses(ctx, res, env),
	}
	cfg := configOf(env)
	plan.Notify, plan.Resources = cfg.PlanNotify(), cfg.PlanResources()
	plan.Trusted = ir.Values(cfg.Trusted)
	plan.CustomHarnesses = cfg.CustomHarnesses()
	if env.Flags.Issue != nil {
		plan.Issue = env.Flags.Issue.String()
	}
	if plan.Limits.ProtectedPaths == nil {
		plan.Limits.ProtectedPaths = []string{}
	}
	if delivers(p) {
		plan.Repair = repairSession(env)
	}
	stages, _ := stagesOf(p)
	needs := needsOf(p)
	for _, st := range stages {
		steps := make([]ir.PlanStep, 0, st.last-st.first+1)
		for i := st.first; i <= st.last; i++ {
			ps := planStep(&p.Steps[i], &res.Steps[i], env)
			ps.NeedsWritten = p.Steps[i].Keys().Needs.Set
			ps.When = stringOr(p.Steps[i].Keys().When, "")
			if ps.ForEach = stringOr(p.Steps[i].Keys().ForEach, ""); ps.ForEach != "" {
				ps.MaxItems = cfg.MaxItems()
			}
			ps.Needs = make([]string, len(needs[i]))
			for k, j := range needs[i] {
				ps.Needs[k] = p.Steps[j].Name.Value
			}
			steps = append(steps, ps)
		}
		plan.Stages = append(plan.Stages, steps)
	}
	return plan
}

// RepairSkill is the built-in skill of a delivery's repair sessions.
const RepairSkill = skills.BuiltinSkillPrefix + "repair"

// delivers reports whether a step of p is a delivery.
func delivers(p *ir.Process) bool {
	for i := range p.Steps {
		if catalogueOf(&p.Steps[i]) == ir.Delivery {
			return true
		}
	}
	return false
}

// repairSession is the session of a delivery's repair rounds: the
// built-in repair skill, resolved as a session that names no harness,
// model, effort or access (docs/design.md §6.2). It is no step of the file, so the
// process's top-level access is not its: it fixes what delivery found, and
// asks for ir.DefaultAccess, which the config and --access may lower.
func repairSession(env *Env) *ir.PlanAction {
	r := &resolver{env: env, cfg: configOf(env), reg: harnessesOf(env), seen: map[string]bool{}}
	a := &ir.Action{Kind: ir.Session}
	sess := r.session(a)
	sess.Skill = &ir.PlanSkill{Name: RepairSkill, Path: "builtin:" + strings.TrimPrefix(RepairSkill, skills.BuiltinSkillPrefix), Source: ir.SkillBuiltin}
	pa := planAction(a, sess, env)
	return &pa
}

// stringOr returns f's value, or def when the file does not set it.
func stringOr(f ir.Field[string], def string) string {
	if f.Set && !f.Bad {
		return f.Value
	}
	return def
}

// planWorktrees lists the declared worktrees in file order, then the
// implicit "default" when a step runs in it.
func planWorktrees(ctx context.Context, p *ir.Process, res *Resolution, env *Env) []ir.PlanWorktree {
	base := baseBranch(ctx, env)
	include := worktreeInclude(env)
	ws := []ir.PlanWorktree{}
	add := func(name, kind string, implicit bool) *ir.PlanWorktree {
		w := ir.PlanWorktree{Name: name, Kind: kind, Implicit: implicit, Copy: []ir.PlanCopy{}}
		if kind != ir.Checkout {
			// A checkout is used in place; it starts from nothing, and
			// holds the user's files already.
			w.Base = base
			w.Copy = append(w.Copy, include...)
		}
		if kind == ir.IssueBranch && env.Flags.Issue != nil {
			// The slug comes from the issue's title, which only a run reads.
			w.Branch = fmt.Sprintf("cairn/%d-…", env.Flags.Issue.Number)
		}
		ws = append(ws, w)
		return &ws[len(ws)-1]
	}
	for _, w := range worktreesInOrder(p) {
		pw := add(w.Name, stringOr(w.Kind, ""), false)
		if w.Copy.Set && !w.Copy.Bad && pw.Kind != ir.Checkout {
			var globs []ir.PlanCopy
			for _, g := range w.Copy.Value {
				globs = append(globs, ir.PlanCopy{Glob: g.Value, Source: ir.CopyFromFile})
			}
			pw.Copy = append(globs, pw.Copy...)
		}
		if w.Setup.Set && !w.Setup.Bad && w.Setup.Value != "" {
			pw.Setup = w.Setup.Value
			pw.SetupTimeout = stringOr(w.SetupTimeout, ir.DefaultSetupTimeout)
		}
	}
	if implicitAvailable(p) {
		for _, s := range res.Steps {
			if s.Worktree == ir.ImplicitWorktree {
				kind, _ := kindOf(p, ir.ImplicitWorktree)
				add(ir.ImplicitWorktree, kind, true)
				break
			}
		}
	}
	return ws
}

// worktreeInclude are the patterns of the repository's .worktreeinclude,
// in order: its lines but blank ones and comments, their trailing blanks
// cut as git cuts them. None outside a repository, when the file is
// missing, or when it is no regular file inside the repository of at most
// source.MaxFileSize bytes (read as a process file is: never waiting on a
// pipe or following a link out).
func worktreeInclude(env *Env) []ir.PlanCopy {
	if env.Repo == nil || env.Repo.Root == "" {
		return nil
	}
	return lookupOnce(env, "worktree-include", func() []ir.PlanCopy {
		b, err := source.ReadFileInside(filepath.Join(env.Repo.Root, ir.WorktreeInclude), env.Repo.Root)
		if err != nil {
			return nil
		}
		var out []ir.PlanCopy
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimRight(line, "\r")
			for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
				line = line[:len(line)-1]
			}
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			out = append(out, ir.PlanCopy{Glob: line, Source: ir.CopyFromInclude})
		}
		return out
	})
}

// Prefetch starts, in the background, the lookups every plan of env shares
// (the repository's base branch, a run of git unless its files answer), so
// that they overlap reading and checking the files instead of holding up the
// first plan. It returns a function that waits for them. Under --lint it
// starts nothing: no plan is built. ctx ends the lookups.
func Prefetch(ctx context.Context, env *Env) (wait func()) {
	if env.Lint || env.Repo == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		baseBranch(ctx, env)
	}()
	return func() { <-done }
}

// baseBranch is the repository's base branch, looked up once per Env, with
// the first caller's ctx; "" outside a repository or when it cannot be
// told.
func baseBranch(ctx context.Context, env *Env) string {
	if env.Repo == nil {
		return ""
	}
	return lookupOnce(env, "base-branch", func() string {
		branch, err := env.Repo.BaseBranch(ctx, wantedBase(configOf(env)))
		if err != nil {
			return ""
		}
		return branch
	})
}

// planStep is one step of the plan.
func planStep(s *ir.Step, sr *StepResolution, env *Env) ir.PlanStep {
	k := s.Keys()
	ps := ir.PlanStep{
		Name:        stringOr(s.Name, ""),
		Description: stringOr(s.Description, ""),
		Worktree:    sr.Worktree,
		Parallel:    group(s),
		Optional:    k.Optional.Set && !k.Optional.Bad && k.Optional.Value,
		Timeout:     stringOr(k.Timeout, ""),
		Env:         []ir.PlanEnv{},
		Actions:     make([]ir.PlanAction, 0, len(s.Actions)),
	}
	if k.Env.Set && !k.Env.Bad {
		for _, e := range k.Env.Value {
			ps.Env = append(ps.Env, ir.PlanEnv{Name: e.Name, Value: e.Value})
		}
	}
	for j := range s.Actions {
		var sess *SessionResolution
		if j < len(sr.Actions) {
			sess = sr.Actions[j]
		}
		ps.Actions = append(ps.Actions, planAction(&s.Actions[j], sess, env))
	}
	ps.Output, _ = outputSchema(s, repoRoot(env))
	if s.Precheck != nil {
		ps.Precheck = planPhase(s.Precheck, nil)
	}
	if s.Validate != nil {
		ps.Validate = planPhase(s.Validate, sr.Judge)
		if ps.Validate.Severity == "" {
			ps.Validate.Severity = ir.SeverityAbort
		}
	}
	return ps
}

// planAction is one action of the plan; settings are given for sessions
// only, with whether a sandbox confines the session on this machine (the
// programs a sandbox needs are looked for on env's PATH only with
// preflight).
func planAction(a *ir.Action, sess *SessionResolution, env *Env) ir.PlanAction {
	pa := ir.PlanAction{Kind: a.Kind}
	switch a.Kind {
	case ir.Command:
		pa.Command = stringOr(a.Script, "")
	case ir.Catalogue:
		k := a.Keys()
		pa.Catalogue = stringOr(k.Catalogue, "")
		pa.Process = stringOr(k.Process, "")
		pa.SpecProcess = stringOr(k.SpecProcess, "")
	case ir.Session:
		pa.Prompt = stringOr(a.Keys().Prompt, "")
		if sess == nil {
			break
		}
		if sess.Skill != nil {
			sk := *sess.Skill
			pa.Skill = &sk
		}
		harness, model, effort, access, turns := sess.Harness.Setting, sess.Model.Setting, sess.Effort.Setting, sess.Access.Setting, sess.MaxTurns
		passed(&effort, &turns, sess.Adapter)
		pa.Harness, pa.Model, pa.Effort, pa.Access, pa.MaxTurns = &harness, &model, &effort, &access, &turns
		if sess.Budget != nil {
			b := *sess.Budget
			pa.BudgetUSD = &b
		}
		if sess.Adapter != nil {
			sb := sess.Adapter.Sandbox(access.Value, env.Environ, env.Preflight)
			pa.Sandbox = &sb
		}
	}
	return pa
}

// passed sets what h's CLI is really given for a session's effort and turn
// cap where that differs from the resolved values: an effort the harness
// maps onto another value of its CLI's, a turn cap its CLI has no flag for.
func passed(effort *ir.Setting, turns *ir.IntSetting, h *harness.Harness) {
	if h == nil {
		return
	}
	if v, ok := h.Effort(effort.Value); ok && effort.Value != "" && v != "" && v != effort.Value {
		effort.Passed = v
	}
	if !h.TakesMaxTurns() {
		turns.Ignored = fmt.Sprintf("%s takes no turn cap", h.Name)
	}
}

// planPhase is a precheck or validate phase of the plan, with its judge's
// model when instructions are judged or the phase names a model, and its
// judge's harness and access when instructions are judged.
func planPhase(ph *ir.Phase, judge *JudgeResolution) *ir.PlanPhase {
	pp := &ir.PlanPhase{
		Shells:       usableValues(ph.Shells),
		Instructions: usableValues(ph.Keys().Instructions),
		Whys:         usableValues(ph.Whys),
		Severity:     stringOr(ph.Severity, ""),
	}
	if judge != nil && (judge.Runs || judge.Model.Source == ir.FromStep) {
		m := judge.Model.Setting
		pp.Model = &m
	}
	if judge != nil && judge.Runs {
		h, a := judge.Harness.Setting, judge.Access.Setting
		pp.Harness, pp.Access = &h, &a
	}
	return pp
}

// usableValues returns the values of a list the front-end accepted, never
// nil.
func usableValues(s ir.Strings) []string {
	out := []string{}
	if s.Bad {
		return out
	}
	for _, f := range s.Value {
		if !f.Bad {
			out = append(out, f.Value)
		}
	}
	return out
}

// planHarnesses is the preflight status of each distinct harness, in
// first-use order; not checked unless env asks for preflight.
func planHarnesses(ctx context.Context, res *Resolution, env *Env) []ir.HarnessStatus {
	out := make([]ir.HarnessStatus, 0, len(res.Harnesses))
	if !env.Preflight {
		for _, u := range res.Harnesses {
			out = append(out, ir.HarnessStatus{Name: u.Name, Detail: notPreflighted})
		}
		return out
	}
	return append(out, preflightAll(ctx, env, res.Harnesses)...)
}
