package check

import (
	"context"
	"slices"
	"strconv"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
)

// Resolution is a process resolved against its environment (docs/design.md §6.2): each
// step's worktree and each session's harness, model, effort, access, turn
// cap and skill, with where each came from, and the effective limits
// (docs/design.md §6.3). The env rules read it; BuildPlan turns it into the plan. It is
// computed before the rules run, so it tolerates what they refuse (an
// unknown harness, a skill found nowhere, a field the front-end refused).
type Resolution struct {
	// Steps is parallel to Process.Steps.
	Steps  []StepResolution
	Limits ir.PlanLimits
	// Harnesses are the distinct harnesses the process starts (its
	// sessions' and its instruction judges'), in first-use order.
	Harnesses []HarnessUse
}

// StepResolution is one step resolved.
type StepResolution struct {
	// Worktree is the name of the worktree the step runs in: its own
	// worktree, else default_worktree, else the implicit "default" (the
	// checkout, for a card).
	Worktree string
	// Actions is parallel to Step.Actions: a session's resolution, nil for
	// other actions.
	Actions []*SessionResolution
	// Judge is the validate phase's instruction judge; nil without a
	// validate phase, or when the phase has no instructions to judge and
	// names no model for a judge: then there is nothing to say about one.
	Judge *JudgeResolution
}

// Resolved is one resolved setting with where it was written: the step's or
// the config's value for FromStep and FromConfig, no range for a flag or a
// default. Unmapped marks a model tier (or alias) that neither the config
// nor the harness maps: Value is then the tier as written.
type Resolved struct {
	ir.Setting
	Range    ir.Range
	Unmapped bool
}

// SessionResolution is a session action resolved.
type SessionResolution struct {
	Harness Resolved
	// Adapter is the harness Harness names; nil when there is none of that
	// name (rule unknown-harness).
	Adapter *harness.Harness
	Model   Resolved
	// Effort is the effort the session runs with; DroppedEffort is the flag's
	// or the config's effort that the harness cannot take, left out of the
	// plan (rule unknown-effort notes it). An effort set on the step is
	// kept even when the harness cannot take it: the rule refuses it.
	Effort        Resolved
	DroppedEffort *Resolved
	// Access is what the session's agent may do: see resolver.access.
	Access   Resolved
	MaxTurns ir.IntSetting
	// Budget is the step's budget_usd, the most the step's sessions may
	// spend (besides the run's budget); nil when the step sets none.
	Budget *ir.FloatSetting
	// Skill is the skill file a skill session found; SkillErr is why none
	// was (it wraps skills.ErrSkillNotFound or skills.ErrSkillEscapes).
	Skill    *ir.PlanSkill
	SkillErr error
}

// JudgeResolution is a validate phase's instruction judge: the process's
// default harness (flag, config, claude), the phase's model, default tier
// "balanced", and ir.JudgeAccess, read: a judge reads the work and must not
// change it. Runs is true when the phase has instructions to judge.
type JudgeResolution struct {
	Harness Resolved
	Adapter *harness.Harness
	Model   Resolved
	Access  Resolved
	Runs    bool
}

// HarnessUse is the first use of a distinct harness: its name, the source
// that chose it, the step using it (index into Process.Steps), and where a
// diagnostic about it points (the step's harness value, the config's, the
// step's header or validate phase for a default, no range for a flag).
type HarnessUse struct {
	Name    string
	Source  ir.Source
	Step    int
	At      ir.Range
	Adapter *harness.Harness
}

// configOf returns env's config, or an empty one.
func configOf(env *Env) *config.Config {
	if env == nil || env.Config == nil {
		return &config.Config{}
	}
	return env.Config
}

// wantedBase is the config's base_branch, "" when it sets none (or a bad
// one): Repo.Base then falls back to origin's default branch, else HEAD's.
func wantedBase(cfg *config.Config) string {
	if cfg != nil && cfg.BaseBranch.Set && !cfg.BaseBranch.Bad {
		return cfg.BaseBranch.Value
	}
	return ""
}

// harnessesOf returns env's harness registry, making one from the config
// (once per Env) when env has none.
func harnessesOf(env *Env) *harness.Registry {
	if env.Harnesses != nil {
		return env.Harnesses
	}
	return lookupOnce(env, "harnesses", func() *harness.Registry {
		return harness.NewRegistry(configOf(env).CustomHarnesses()).WithPrices(configOf(env).PriceOverrides())
	})
}

// usable reports whether f holds a usable, non-empty value.
func usable(f ir.Field[string]) bool { return f.Set && !f.Bad && f.Value != "" }

// Resolve resolves p against env (docs/design.md §6.2, §6.3). It never fails: what cannot
// be resolved is left for the rules to refuse.
func Resolve(ctx context.Context, p *ir.Process, env *Env) *Resolution {
	if env == nil {
		env = &Env{}
	}
	r := &resolver{ctx: ctx, env: env, cfg: configOf(env), reg: harnessesOf(env), proc: p, seen: map[string]bool{}}
	res := &Resolution{Steps: make([]StepResolution, len(p.Steps)), Limits: r.limits(p), Harnesses: []HarnessUse{}}
	r.res = res
	for i := range p.Steps {
		s := &p.Steps[i]
		sr := &res.Steps[i]
		sr.Worktree = stepWorktree(p, s)
		sr.Actions = make([]*SessionResolution, len(s.Actions))
		for j := range s.Actions {
			a := &s.Actions[j]
			if a.Kind == ir.Catalogue && a.Keys().Catalogue.Value == ir.Delivery {
				// A delivery's repair sessions run on the default
				// harness, which must start too.
				h := r.defaultHarness()
				adapter, _ := r.reg.Lookup(h.Value)
				r.use(h, adapter, i, s.Header)
			}
			if a.Kind != ir.Session {
				continue
			}
			sess := r.session(a)
			sr.Actions[j] = sess
			at := sess.Harness.Range
			if sess.Harness.Source == ir.FromDefault {
				at = s.Header
			}
			r.use(sess.Harness, sess.Adapter, i, at)
		}
		if s.Validate != nil && judged(s.Validate) {
			sr.Judge = r.judge(s.Validate)
			if sr.Judge.Runs {
				at := sr.Judge.Harness.Range
				if sr.Judge.Harness.Source == ir.FromDefault {
					at = s.Validate.Header
				}
				r.use(sr.Judge.Harness, sr.Judge.Adapter, i, at)
			}
		}
	}
	return res
}

// stepWorktree is the name of the worktree s runs in, as far as it can be
// known.
func stepWorktree(p *ir.Process, s *ir.Step) string {
	name, _ := worktreeOf(p, s)
	return name
}

// resolver holds what resolving one process needs. proc is the process
// whose sessions it resolves, nil for a session no process file describes
// (a delivery's repair session).
type resolver struct {
	// ctx ends the lookups resolving runs (a skill's, in git).
	ctx  context.Context
	env  *Env
	cfg  *config.Config
	reg  *harness.Registry
	proc *ir.Process
	res  *Resolution
	seen map[string]bool
}

// use records the first use of a harness.
func (r *resolver) use(h Resolved, adapter *harness.Harness, step int, at ir.Range) {
	if r.seen[h.Value] {
		return
	}
	r.seen[h.Value] = true
	if h.Source == ir.FromFlag {
		at = ir.Range{}
	}
	r.res.Harnesses = append(r.res.Harnesses, HarnessUse{Name: h.Value, Source: h.Source, Step: step, At: at, Adapter: adapter})
}

// configHarness is the harness the config's model and effort apply to: its
// harness, else the built-in default.
func (r *resolver) configHarness() string {
	if usable(r.cfg.Harness) {
		return r.cfg.Harness.Value
	}
	return ir.DefaultHarness
}

// defaultHarness is the harness of a step that names none: the flag's, the
// config's, else claude.
func (r *resolver) defaultHarness() Resolved {
	if r.env.Flags.Harness != "" {
		return Resolved{Setting: ir.Setting{Value: r.env.Flags.Harness, Source: ir.FromFlag}}
	}
	if usable(r.cfg.Harness) {
		return Resolved{Setting: ir.Setting{Value: r.cfg.Harness.Value, Source: ir.FromConfig}, Range: valueRange(r.cfg.Harness)}
	}
	return Resolved{Setting: ir.Setting{Value: ir.DefaultHarness, Source: ir.FromDefault}}
}

func stepSetting(f ir.Field[string]) Resolved {
	return Resolved{Setting: ir.Setting{Value: f.Value, Source: ir.FromStep}, Range: valueRange(f)}
}

// session resolves one session action.
func (r *resolver) session(a *ir.Action) *SessionResolution {
	s := &SessionResolution{}
	k := a.Keys()
	if usable(k.Harness) {
		s.Harness = stepSetting(k.Harness)
	} else {
		s.Harness = r.defaultHarness()
	}
	s.Adapter, _ = r.reg.Lookup(s.Harness.Value)
	onConfigHarness := s.Harness.Value == r.configHarness()

	switch {
	case usable(k.Model):
		s.Model = stepSetting(k.Model)
	case r.env.Flags.Model != "":
		s.Model = Resolved{Setting: ir.Setting{Value: r.env.Flags.Model, Source: ir.FromFlag}}
	case onConfigHarness && usable(r.cfg.Model):
		s.Model = Resolved{Setting: ir.Setting{Value: r.cfg.Model.Value, Source: ir.FromConfig}, Range: valueRange(r.cfg.Model)}
	default:
		s.Model = r.harnessDefaultModel(s.Harness.Value)
	}
	s.Model = r.mapTier(s.Model, s.Harness.Value, s.Adapter)

	switch {
	case usable(k.Effort):
		s.Effort = stepSetting(k.Effort)
	case r.env.Flags.Effort != "":
		s.Effort = Resolved{Setting: ir.Setting{Value: r.env.Flags.Effort, Source: ir.FromFlag}}
	case onConfigHarness && usable(r.cfg.Effort):
		s.Effort = Resolved{Setting: ir.Setting{Value: r.cfg.Effort.Value, Source: ir.FromConfig}, Range: valueRange(r.cfg.Effort)}
	default:
		s.Effort = Resolved{Setting: ir.Setting{Source: ir.FromDefault}}
	}
	if s.Effort.Value != "" && s.Effort.Source != ir.FromStep && s.Adapter != nil {
		if _, ok := s.Adapter.Effort(s.Effort.Value); !ok {
			dropped := s.Effort
			s.DroppedEffort = &dropped
			s.Effort = Resolved{Setting: ir.Setting{Source: ir.FromDefault}}
		}
	}

	s.Access = r.access(k.Access)
	if usd, ok := ir.BudgetOf(k.BudgetUSD); ok {
		s.Budget = &ir.FloatSetting{Value: usd, Source: ir.FromStep}
	}

	if mt := k.MaxTurns; mt.Set && !mt.Bad {
		s.MaxTurns = ir.IntSetting{Value: mt.Value, Source: ir.FromStep}
	} else {
		s.MaxTurns = ir.IntSetting{Value: ir.DefaultMaxTurns, Source: ir.FromDefault}
	}

	if usable(k.Skill) {
		if sk, err := FindSkill(r.ctx, r.env, k.Skill.Value); err != nil {
			s.SkillErr = err
		} else {
			s.Skill = &sk
		}
	}
	return s
}

// knownAccess reports whether f holds an access level; a value that is
// none is left to rule invalid-value.
func knownAccess(f ir.Field[string]) bool { return usable(f) && ir.AccessLevel(f.Value) >= 0 }

// access resolves a session's access (docs/design.md §6.3). The session asks for its
// step's access (source step), else the process's top-level access
// (process), else ir.DefaultAccess, write (default); limitAccess then
// lowers it to the ceilings.
func (r *resolver) access(step ir.Field[string]) Resolved {
	switch {
	case knownAccess(step):
		return r.limitAccess(stepSetting(step))
	case r.proc != nil && knownAccess(r.proc.Access):
		return r.limitAccess(Resolved{Setting: ir.Setting{Value: r.proc.Access.Value, Source: ir.FromProcess}, Range: valueRange(r.proc.Access)})
	}
	return r.limitAccess(Resolved{Setting: ir.Setting{Value: ir.DefaultAccess, Source: ir.FromDefault}})
}

// limitAccess lowers a, the access a session asks for, to two ceilings,
// which never raise it: the config's [limits] access (source config), then
// --access (flag). The access is the least of the three, and its source is
// the one that set it: a ceiling at or above the asked-for access lowers
// nothing and names nothing, so on a tie the request keeps its source; when
// the config and the flag are both below the request and equal, the config,
// applied first, sets it, and the flag finds nothing left to lower. An
// explicit key above the config's ceiling is refused by loosened-limit; it
// is lowered here all the same, so no resolution holds more than the
// ceiling.
func (r *resolver) limitAccess(a Resolved) Resolved {
	if c, ok := r.cfg.AccessCeiling(); ok && ir.AccessLevel(c.Value) < ir.AccessLevel(a.Value) {
		a = Resolved{Setting: ir.Setting{Value: c.Value, Source: ir.FromConfig}, Range: valueRange(c)}
	}
	if f := r.env.Flags.Access; ir.AccessLevel(f) >= 0 && ir.AccessLevel(f) < ir.AccessLevel(a.Value) {
		a = Resolved{Setting: ir.Setting{Value: f, Source: ir.FromFlag}}
	}
	return a
}

// budget resolves the run's budget (docs/design.md §6.3), the least of the config's
// [limits] budget_usd (source config), the file's (file) and --budget
// (flag): each may only lower the one before, and on a tie the later one
// names it, as with the repair cap. A file's budget above the config's is
// refused by loosened-limit; the config's holds all the same. It returns
// nil when none sets a budget, and where the one that won was written (no
// range for the flag).
func (r *resolver) budget(p *ir.Process) (*ir.FloatSetting, ir.Range) {
	var b *ir.FloatSetting
	var at ir.Range
	lower := func(usd float64, src ir.Source, where ir.Range) {
		if b == nil || usd <= b.Value {
			b, at = &ir.FloatSetting{Value: usd, Source: src}, where
		}
	}
	if c, ok := r.cfg.BudgetCeiling(); ok {
		lower(c.Value.USD, ir.FromConfig, c.At())
	}
	if usd, ok := ir.BudgetOf(p.Limits.BudgetUSD); ok {
		lower(usd, ir.FromFile, p.Limits.BudgetUSD.At())
	}
	if f := r.env.Flags.Budget; f > 0 {
		lower(f, ir.FromFlag, ir.Range{})
	}
	return b, at
}

// harnessDefaultModel is the model of a step on harness h that neither the
// step, the flag nor the config's model sets: [models.h] default, else the
// CLI's own choice.
func (r *resolver) harnessDefaultModel(h string) Resolved {
	if pair, ok := r.cfg.ModelFor(h, "default"); ok && pair.Set && !pair.Bad {
		return Resolved{Setting: ir.Setting{Value: pair.Value, Source: ir.FromConfig}, Range: valueRange(pair.Field)}
	}
	return Resolved{Setting: ir.Setting{Source: ir.FromDefault}}
}

// mapTier maps a model written as a tier or tier alias onto harness h's
// model: [models.h] TIER, else h's built-in default. Any other model is a
// concrete name and passes through. An unmapped tier keeps its written value
// and is marked, unless h is unknown (rule unknown-harness says so).
func (r *resolver) mapTier(m Resolved, h string, adapter *harness.Harness) Resolved {
	tier, ok := ir.TierOf(m.Value)
	if !ok {
		return m
	}
	m.Tier = tier
	if pair, ok := r.cfg.ModelFor(h, tier); ok && pair.Set && !pair.Bad {
		m.Value, m.TierMap = pair.Value, ir.TierFromConfig
		return m
	}
	if adapter != nil {
		if model, ok := adapter.TierModel(tier); ok {
			m.Value, m.TierMap = model, ir.TierBuiltin
			return m
		}
		m.Unmapped = true
	}
	return m
}

// judged reports whether a validate phase has a judge to resolve: it has
// instructions, or it names the judge's model (which rules still check and
// the plan shows).
func judged(ph *ir.Phase) bool {
	k := ph.Keys()
	return len(k.Instructions.Value) > 0 || usable(k.Model)
}

// judge resolves a validate phase's instruction judge.
func (r *resolver) judge(ph *ir.Phase) *JudgeResolution {
	k := ph.Keys()
	j := &JudgeResolution{Harness: r.defaultHarness(), Runs: len(k.Instructions.Value) > 0}
	j.Adapter, _ = r.reg.Lookup(j.Harness.Value)
	if usable(k.Model) {
		j.Model = stepSetting(k.Model)
	} else {
		j.Model = Resolved{Setting: ir.Setting{Value: ir.DefaultValidateTier, Source: ir.FromDefault}}
	}
	j.Model = r.mapTier(j.Model, j.Harness.Value, j.Adapter)
	// A judge's access is not the step's nor the process's: no key of the
	// file sets it.
	j.Access = r.limitAccess(Resolved{Setting: ir.Setting{Value: ir.JudgeAccess, Source: ir.FromDefault}})
	return j
}

// limits resolves the effective limits (docs/design.md §6.3): the least repair cap of the
// flag, the file and the config (ties go to the first of those), a
// self-merge unless the file forbids it, a merge only when the flag or the
// config asks, and every protected path of the flag, the config and the
// file.
func (r *resolver) limits(p *ir.Process) ir.PlanLimits {
	var l ir.PlanLimits
	src := ir.FromDefault
	if r.cfg.RepairCap.Set && !r.cfg.RepairCap.Bad {
		src = ir.FromConfig
	}
	l.RepairCap = ir.IntSetting{Value: r.cfg.EffectiveRepairCap(), Source: src}
	if rc := p.Limits.RepairCap; rc.Set && !rc.Bad && rc.Value <= l.RepairCap.Value {
		l.RepairCap = ir.IntSetting{Value: rc.Value, Source: ir.FromFile}
	}
	if n := r.env.Flags.RepairCap; n > 0 && n <= l.RepairCap.Value {
		l.RepairCap = ir.IntSetting{Value: n, Source: ir.FromFlag}
	}

	sm := p.Limits.SelfMerge
	l.SelfMerge = !(sm.Set && !sm.Bad && !sm.Value)

	switch ma := r.cfg.MergeAlways; {
	case r.env.Flags.Merge:
		l.Merge = ir.Setting{Value: "true", Source: ir.FromFlag}
	case ma.Set && !ma.Bad:
		l.Merge = ir.Setting{Value: strconv.FormatBool(ma.Value), Source: ir.FromConfig}
	default:
		l.Merge = ir.Setting{Value: "false", Source: ir.FromDefault}
	}

	l.BudgetUSD, l.BudgetAt = r.budget(p)
	if d, ok := r.cfg.DailyBudget(); ok {
		l.DailyBudgetUSD = &ir.FloatSetting{Value: d.Value.USD, Source: ir.FromConfig}
	}

	l.ProtectedPaths = []string{}
	add := func(paths ...string) {
		for _, g := range paths {
			if g != "" && !slices.Contains(l.ProtectedPaths, g) {
				l.ProtectedPaths = append(l.ProtectedPaths, g)
			}
		}
	}
	add(r.env.Flags.Protect...)
	for _, pp := range []ir.Strings{r.cfg.ProtectedPaths, p.Limits.ProtectedPaths} {
		if pp.Bad {
			continue
		}
		for _, g := range pp.Value {
			if !g.Bad {
				add(g.Value)
			}
		}
	}
	return l
}
