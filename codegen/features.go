package codegen

import (
	"slices"

	"github.com/cairn-dev/cairn/ir"
)

// feature is a part of the bash runtime (docs/design.md §9): the functions of
// template bash/NAME.sh.tmpl, which a script holds only when uses says its
// process needs them. Another template asks whether a script holds a
// feature with .Uses.NAME. Adding a feature is adding its file and its row
// in features.
type feature struct {
	name string
	uses func(s *script) bool
}

// features are the parts of the bash runtime, in the order a script holds
// them. In a workflow every job's script holds the features of the whole
// process (jobScript), so that they are the same in every job and defined
// once for all of them.
var features = []feature{
	{"core", always},
	{"records", always},
	{"excludes", func(s *script) bool {
		return s.hasWorktree(ir.Checkout) || s.OnIssue || len(s.Skills) > 0 || s.commits()
	}},
	{"checkout", func(s *script) bool { return s.hasWorktree(ir.Checkout) }},
	{"worktrees", always},
	{"prepare", (*script).prepares},
	{"commit", (*script).commits},
	{"skills", func(s *script) bool { return len(s.Skills) > 0 }},
	{"steps", always},
	{"processes", always},
	{"turns", func(s *script) bool {
		return slices.ContainsFunc(s.CLIs, func(c *scriptCLI) bool { return c.MaxTurns > 0 })
	}},
	{"shown", func(s *script) bool { return s.runsCommands() || s.hasPhases() }},
	{"commands", (*script).runsCommands},
	{"phases", (*script).hasPhases},
	{"sessions", func(s *script) bool { return s.HasSessions }},
	{"settings", func(s *script) bool { return s.HasSettings }},
	{"budgets", func(s *script) bool { return s.HasSessions }},
	{"resources", func(s *script) bool { return s.HasSessions && s.Resources != nil }},
	{"shares", func(s *script) bool {
		return s.HasSessions && slices.ContainsFunc(s.Stages, func(stage []int) bool { return len(stage) > 1 })
	}},
	{"job_budget", func(s *script) bool { return s.Job != nil && s.keepsRunBudget() }},
	{"outbox", func(s *script) bool {
		return s.Job != nil && slices.ContainsFunc(s.Steps, func(st *scriptStep) bool { return st.Publishes })
	}},
	{"issue", func(s *script) bool { return s.OnIssue || s.HasPublished }},
	{"fences", func(s *script) bool { return s.Repair != nil || s.hasRounds() }},
	{"rounds", (*script).hasRounds},
	{"judge", func(s *script) bool {
		return slices.ContainsFunc(s.Steps, func(st *scriptStep) bool { return st.Judge != nil })
	}},
	{"review", func(s *script) bool {
		return slices.ContainsFunc(s.Steps, func(st *scriptStep) bool { return st.Review != nil })
	}},
	{"catalogue", func(s *script) bool { return s.HasDelivery || s.HasSelfMerge || s.HasPublished }},
	{"delivery", func(s *script) bool { return s.HasDelivery || s.HasSelfMerge }},
	{"repair", func(s *script) bool { return s.Repair != nil }},
	{"published", func(s *script) bool { return s.HasPublished }},
	{"outputs", (*script).hasOutputs},
	{"stages", always},
	{"needs", func(s *script) bool { return s.Needs && s.Job == nil }},
	{"when", (*script).HasWhen},
	{"foreach", (*script).HasForEach},
	{"notify", func(s *script) bool { return s.Job == nil && len(s.Notify) > 0 }},
}

// runsCommands says whether s has an action other than a session: a
// command, or a catalogue step (whose functions the commands' share).
func (s *script) runsCommands() bool {
	return s.anyAction(func(a *scriptAction) bool { return a.Session == nil })
}

// hasPhases says whether a step of s has a precheck or validate phase.
func (s *script) hasPhases() bool {
	return slices.ContainsFunc(s.Steps, func(st *scriptStep) bool { return st.Precheck != nil || st.Validate != nil })
}

// always is the predicate of a feature every script holds.
func always(*script) bool { return true }

// useFeatures sets s's Features and Uses from what its process uses.
func (s *script) useFeatures() {
	s.Features, s.Uses = nil, map[string]bool{}
	for _, f := range features {
		s.Uses[f.name] = f.uses(s)
		if s.Uses[f.name] {
			s.Features = append(s.Features, f.name)
		}
	}
}

// commits reports whether s makes the commits of commit mode (feature
// commit).
func (s *script) commits() bool {
	return s.Commit != nil
}

// hasRounds reports whether a step of s has a judge or review retries,
// whose validate phase runs in rounds (feature rounds).
func (s *script) hasRounds() bool {
	return slices.ContainsFunc(s.Steps, func(st *scriptStep) bool { return st.Judge != nil || st.Review != nil })
}

// keepsRunBudget reports whether s keeps a run's budget over sessions,
// which a workflow keeps across its jobs (feature job_budget).
func (s *script) keepsRunBudget() bool {
	return s.HasSessions && s.Budget != ""
}

// hasWorktree reports whether a worktree of s is of kind.
func (s *script) hasWorktree(kind string) bool {
	return slices.ContainsFunc(s.Worktrees, func(w ir.PlanWorktree) bool { return w.Kind == kind })
}

// anyAction reports whether an action of a step of s is one f holds to.
func (s *script) anyAction(f func(*scriptAction) bool) bool {
	for _, st := range s.Steps {
		for i := range st.Actions {
			if f(&st.Actions[i]) {
				return true
			}
		}
	}
	return false
}

// hasIssueBranch reports whether plan has an issue-branch worktree: its
// script runs on an issue.
func hasIssueBranch(plan *ir.Plan) bool {
	return slices.ContainsFunc(plan.Worktrees, func(w ir.PlanWorktree) bool { return w.Kind == ir.IssueBranch })
}
