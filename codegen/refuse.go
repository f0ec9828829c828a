package codegen

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// places finds where, in the process file, a plan's steps and worktrees
// were written, for refusals that point at them.
type places struct {
	plan      *ir.Plan
	process   *ir.Process
	steps     map[string]*ir.Step
	worktrees map[string]*ir.Worktree
}

// newPlaces indexes p (nil: every refusal points at the file's start).
func newPlaces(plan *ir.Plan, p *ir.Process) *places {
	at := &places{plan: plan, process: p, steps: map[string]*ir.Step{}, worktrees: map[string]*ir.Worktree{}}
	if p == nil {
		return at
	}
	for i := range p.Steps {
		if s := &p.Steps[i]; s.Name.Set {
			if _, dup := at.steps[s.Name.Value]; !dup {
				at.steps[s.Name.Value] = s
			}
		}
	}
	for i := range p.Worktrees {
		w := &p.Worktrees[i]
		at.worktrees[w.Name] = w
	}
	return at
}

// file is 1:1 of the process file.
func (at *places) file() ir.Range {
	return ir.FileStart(at.plan.File)
}

// or is r when it points into the file, else fallback.
func or(r, fallback ir.Range) ir.Range {
	if r.IsValid() {
		return r
	}
	return fallback
}

// step is the header of step name.
func (at *places) step(name string) ir.Range {
	if s := at.steps[name]; s != nil {
		return or(s.Header, at.file())
	}
	return at.file()
}

// action is the j-th action of step name.
func (at *places) action(name string, j int) *ir.Action {
	if s := at.steps[name]; s != nil && j < len(s.Actions) {
		return &s.Actions[j]
	}
	return nil
}

// harness is where step name's harness was written, else its header.
func (at *places) harness(name string) ir.Range {
	if s := at.steps[name]; s != nil {
		for _, a := range s.Actions {
			if a.Keys().Harness.Set {
				return or(a.Keys().Harness.At(), at.step(name))
			}
		}
	}
	return at.step(name)
}

// model is where step name's model was written, else its harness.
func (at *places) model(name string) ir.Range {
	if s := at.steps[name]; s != nil {
		for _, a := range s.Actions {
			if a.Keys().Model.Set {
				return or(a.Keys().Model.At(), at.harness(name))
			}
		}
	}
	return at.harness(name)
}

// holding is where text first stands in a value of step name, as written:
// its script or prompt, an env value, a precheck or validate shell or why
// (the value's whole range when its characters cannot be placed); else the
// step's header, and false.
func (at *places) holding(name, text string) (ir.Range, bool) {
	s := at.steps[name]
	if s == nil {
		return at.step(name), false
	}
	var fields []ir.Field[string]
	for _, a := range s.Actions {
		fields = append(fields, a.Script, a.Keys().Prompt)
	}
	for _, p := range s.Keys().Env.Value {
		fields = append(fields, p.Field)
	}
	for _, ph := range []*ir.Phase{s.Precheck, s.Validate} {
		if ph != nil {
			fields = append(fields, ph.Shells.Value...)
			fields = append(fields, ph.Whys.Value...)
		}
	}
	for _, f := range fields {
		if r, ok := within(f, text, at.step(name)); ok {
			return r, true
		}
	}
	return at.step(name), false
}

// within is where text first stands in f's value, as written (the value's
// whole range when its characters cannot be placed, else fallback); false
// when the value does not hold it.
func within(f ir.Field[string], text string, fallback ir.Range) (ir.Range, bool) {
	i := strings.Index(f.Value, text)
	if i < 0 {
		return ir.Range{}, false
	}
	r := or(f.Range, or(f.At(), fallback))
	if start := ir.PosAt(f.Value, f.Spans, i); start.Line > 0 {
		r.Start, r.End = start, ir.PosAt(f.Value, f.Spans, i+len(text))
	}
	return r, true
}

// skill is where step name's skill was written, else its header.
func (at *places) skill(name string) ir.Range {
	if s := at.steps[name]; s != nil {
		for _, a := range s.Actions {
			if a.Keys().Skill.Set {
				return or(a.Keys().Skill.At(), at.step(name))
			}
		}
	}
	return at.step(name)
}

// notCompilable is a refusal of compile (docs/design.md §9).
func notCompilable(at ir.Range, format string, args ...any) ir.Diagnostic {
	return ir.Diagnostic{Rule: ir.RuleNotCompilable, Severity: ir.Error, Range: at, Message: fmt.Sprintf(format, args...)}
}

// refuse reports what of the plan a standalone script cannot carry (docs/design.md §9):
// a plan already on an issue (a script takes its issue on its
// command line), issue-branch worktrees for a target that carries no
// issue (targetInfo.issues), catalogue steps (but delivery and self-merge
// where the target delivers, and run-published-issue where it publishes);
// and, as a warning, the
// config's [resources] where the target's sessions do not wait for it.
func (c *compiler) refuse() []ir.Diagnostic {
	var diags []ir.Diagnostic
	plan, at := c.plan, c.at
	if plan.Issue != "" {
		diags = append(diags, notCompilable(at.file(), "a run on an issue cannot be compiled to %s: the claim, the trust checks and the delivery need cairn", c.target.name))
	}
	for _, w := range plan.Worktrees {
		if w.Kind != ir.IssueBranch || c.target.issues {
			continue
		}
		r := at.file()
		if iw := at.worktrees[w.Name]; iw != nil {
			r = or(iw.Kind.At(), or(iw.Header, r))
		}
		diags = append(diags, notCompilable(r, "worktree %q: issue-branch worktrees cannot be compiled to %s: the issue, its claim and its delivery need cairn", w.Name, c.target.name))
	}
	for _, stage := range plan.Stages {
		for _, st := range stage {
			for j, a := range st.Actions {
				if a.Kind != ir.Catalogue {
					continue
				}
				r := at.step(st.Name)
				if ia := at.action(st.Name, j); ia != nil {
					r = or(ia.Keys().Catalogue.At(), or(ia.Range, r))
				}
				switch {
				case a.Catalogue == ir.RunPublishedIssue && !c.target.publishes:
					diags = append(diags, notCompilable(r, "step %q: catalogue step %q cannot be compiled to %s: its child runs would need jobs of their own, which a %s does not make yet; compile the process to bash", st.Name, a.Catalogue, c.target.name, c.target.artifact))
				case !c.target.delivers:
					diags = append(diags, notCompilable(r, "step %q: catalogue step %q cannot be compiled to %s: its rules live inside cairn", st.Name, a.Catalogue, c.target.name))
				}
			}
		}
	}
	diags = append(diags, c.uncopied()...)
	diags = append(diags, c.nulBytes()...)
	if res := c.plan.Resources; !c.target.waits && (res.MaxLoad > 0 || res.MinFreeMemory > 0) {
		diags = append(diags, ir.Diagnostic{
			Rule: ir.RuleNotCompilable, Severity: ir.Warning, Range: res.Header,
			Message: fmt.Sprintf("the config's [resources] is not compiled: the %s's sessions do not wait for the machine's load or free memory", c.target.artifact),
		})
	}
	return diags
}

// nulBytes refuses the values of the plan that hold a NUL byte: no bash
// word can hold one, so the script could not carry them as data.
func (c *compiler) nulBytes() []ir.Diagnostic {
	var diags []ir.Diagnostic
	bad := func(s string) bool { return strings.ContainsRune(s, 0) }
	report := func(r ir.Range, what string) {
		diags = append(diags, notCompilable(r, "%s holds a NUL byte, which a bash script cannot carry", what))
	}
	at := c.at
	if bad(c.plan.Description) {
		r := at.file()
		if p := at.process; p != nil {
			r = or(p.Description.At(), r)
		}
		report(r, "the description")
	}
	for _, w := range c.plan.Worktrees {
		if bad(w.Setup) {
			r := at.file()
			if iw := at.worktrees[w.Name]; iw != nil {
				r = or(iw.Setup.At(), r)
			}
			report(r, fmt.Sprintf("worktree %q: setup", w.Name))
		}
	}
	for _, stage := range c.plan.Stages {
		for _, st := range stage {
			s := at.steps[st.Name]
			for i, e := range st.Env {
				if bad(e.Name) || bad(e.Value) {
					r := at.step(st.Name)
					if s != nil && s.Keys().Env.Set {
						env := s.Keys().Env
						r = or(env.At(), r)
						for _, p := range env.Value {
							if p.Name == e.Name {
								r = or(p.At(), r)
							}
						}
					}
					report(r, fmt.Sprintf("step %q: env[%d]", st.Name, i))
				}
			}
			for j, a := range st.Actions {
				ia := at.action(st.Name, j)
				switch {
				case bad(a.Command):
					r := at.step(st.Name)
					if ia != nil {
						r = or(ia.Script.At(), r)
					}
					report(r, fmt.Sprintf("step %q: the command", st.Name))
				case bad(a.Prompt):
					r := at.step(st.Name)
					if ia != nil {
						r = or(ia.Keys().Prompt.At(), r)
					}
					report(r, fmt.Sprintf("step %q: the prompt", st.Name))
				}
			}
			for _, ph := range []struct {
				name   string
				plan   *ir.PlanPhase
				source *ir.Phase
			}{{"precheck", st.Precheck, phaseOf(s, ir.PrecheckPhase)}, {"validate", st.Validate, phaseOf(s, ir.ValidatePhase)}} {
				if ph.plan == nil {
					continue
				}
				for _, list := range []struct {
					key    string
					values []string
					field  func(*ir.Phase) ir.Strings
				}{
					{"shells", ph.plan.Shells, func(p *ir.Phase) ir.Strings { return p.Shells }},
					{"whys", ph.plan.Whys, func(p *ir.Phase) ir.Strings { return p.Whys }},
				} {
					for i, v := range list.values {
						if !bad(v) {
							continue
						}
						r := at.step(st.Name)
						if ph.source != nil {
							f := list.field(ph.source)
							r = or(f.At(), r)
							if i < len(f.Value) {
								r = or(f.Value[i].Range, r)
							}
						}
						report(r, fmt.Sprintf("step %q: %s %s[%d]", st.Name, ph.name, list.key, i))
					}
				}
			}
		}
	}
	return diags
}

// phaseOf is s's phase of kind k, nil when s or it is missing.
func phaseOf(s *ir.Step, k ir.PhaseKind) *ir.Phase {
	if s == nil {
		return nil
	}
	switch k {
	case ir.PrecheckPhase:
		return s.Precheck
	case ir.ValidatePhase:
		return s.Validate
	}
	return nil
}

// quotable refuses what else the script would hold that no bash word can:
// a skill's text, the [notify] command, a harness's command.
func (c *compiler) quotable(s *script) []ir.Diagnostic {
	var diags []ir.Diagnostic
	for _, sk := range s.Skills {
		if strings.ContainsRune(sk.Body, 0) {
			diags = append(diags, notCompilable(c.at.file(), "a skill's SKILL.md holds a NUL byte, which a bash script cannot carry"))
		}
	}
	for _, v := range s.Notify {
		if strings.ContainsRune(v, 0) {
			diags = append(diags, notCompilable(or(c.plan.Notify.Header, c.at.file()), "the config's [notify] command holds a NUL byte, which a bash script cannot carry"))
			break
		}
	}
	return diags
}
