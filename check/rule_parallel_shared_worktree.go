package check

import "github.com/cairn-dev/cairn/ir"

// RuleParallelSharedWorktree is the ID of the rule that keeps parallel steps
// from editing one worktree together.
const RuleParallelSharedWorktree = "parallel-shared-worktree"

// ruleParallelSharedWorktree refuses two steps that may run at the same
// time (one parallel group, or neither waiting for the other through
// needs) in the same worktree when either edits it (the implicit "default"
// counts).
var ruleParallelSharedWorktree = &Rule{
	ID:       RuleParallelSharedWorktree,
	Doc:      "two steps that may run at the same time (one parallel group, or neither needing the other) sharing a worktree that one of them edits (session and command steps edit; the implicit default counts)",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		if writesNeeds(p) {
			sharedByNeeds(pass)
			return
		}
		stages, _ := stagesOf(p)
		for _, st := range stages {
			for i := st.first + 1; i <= st.last; i++ {
				for j := st.first; j < i; j++ {
					if reportShared(pass, j, i, nil) {
						break
					}
				}
			}
		}
	},
}

// sharedByNeeds refuses, for each step, the first step above it that may
// run beside it (it does not wait for it) in a worktree one of them edits.
// A step whose needs rule unknown-step refuses is left out: what it waits
// for is not known.
func sharedByNeeds(pass *Pass) {
	p := pass.Process
	anc := newAncestry(needsOf(p))
	index := stepIndex(p)
	bad := make([]bool, len(p.Steps))
	for i := range p.Steps {
		bad[i] = badNeeds(p.Steps[i].Keys().Needs, index, i)
	}
	for i := range p.Steps {
		if bad[i] {
			continue
		}
		for j := range i {
			if !bad[j] && !anc.waits(i, j) && reportShared(pass, j, i, anc) {
				break
			}
		}
	}
}

// reportShared refuses steps j and i (j above i), which may run at the same
// time, when they share a worktree that one of them edits, and reports
// whether it did. anc is nil for the steps of one parallel group.
func reportShared(pass *Pass, j, i int, anc *ancestry) bool {
	p := pass.Process
	later, earlier := &p.Steps[i], &p.Steps[j]
	wt, ok := worktreeOf(p, later)
	if !ok {
		return false
	}
	if w, ok := worktreeOf(p, earlier); !ok || w != wt || !editsOwn(later) && !editsOwn(earlier) {
		return false
	}
	var who string
	switch {
	case editsOwn(later) && editsOwn(earlier):
		who = "both edit it"
	case editsOwn(later):
		who = stepRef(p, i) + " edits it"
	default:
		who = stepRef(p, j) + " edits it"
	}
	related := []ir.Related{{Range: sharedAt(earlier), Message: "the other step"}}
	if g := group(later); anc == nil || g != "" && g == group(earlier) {
		pass.ReportRelated(sharedAt(later), related,
			"%s and %s of parallel group %q share worktree %q, and %s; give each editing step its own worktree",
			stepRef(p, j), stepRef(p, i), g, wt, who)
		return true
	}
	pass.ReportRelated(sharedAt(later), related,
		"%s and %s may run at the same time (neither needs the other) and share worktree %q, and %s; give each editing step its own worktree, or add one to the other's needs",
		stepRef(p, j), stepRef(p, i), wt, who)
	return true
}

// sharedAt is where a step says which worktree it runs in: its worktree
// value, or its header when it names none.
func sharedAt(s *ir.Step) ir.Range {
	if s.Keys().Worktree.Set {
		return valueRange(s.Keys().Worktree)
	}
	return s.Header
}
