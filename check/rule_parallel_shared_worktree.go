package check

import "github.com/cairn-dev/cairn/ir"

// RuleParallelSharedWorktree is the ID of the rule that keeps parallel steps
// from editing one worktree together.
const RuleParallelSharedWorktree = "parallel-shared-worktree"

// ruleParallelSharedWorktree refuses two steps of one parallel group that run
// in the same worktree when either edits it (the implicit "default" counts).
var ruleParallelSharedWorktree = &Rule{
	ID:       RuleParallelSharedWorktree,
	Doc:      "steps of one parallel group sharing a worktree that one of them edits (session and command steps edit; the implicit default counts)",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		stages, _ := stagesOf(p)
		for _, st := range stages {
			for i := st.first + 1; i <= st.last; i++ {
				later := &p.Steps[i]
				wt, ok := worktreeOf(p, later)
				if !ok {
					continue
				}
				for j := st.first; j < i; j++ {
					earlier := &p.Steps[j]
					if w, ok := worktreeOf(p, earlier); !ok || w != wt || !edits(later) && !edits(earlier) {
						continue
					}
					var who string
					switch {
					case edits(later) && edits(earlier):
						who = "both edit it"
					case edits(later):
						who = stepRef(p, i) + " edits it"
					default:
						who = stepRef(p, j) + " edits it"
					}
					pass.ReportRelated(sharedAt(later), []ir.Related{{Range: sharedAt(earlier), Message: "the other step"}},
						"%s and %s of parallel group %q share worktree %q, and %s; give each editing step its own worktree",
						stepRef(p, j), stepRef(p, i), group(later), wt, who)
					break
				}
			}
		}
	},
}

// sharedAt is where a step says which worktree it runs in: its worktree
// value, or its header when it names none.
func sharedAt(s *ir.Step) ir.Range {
	if s.Keys().Worktree.Set {
		return valueRange(s.Keys().Worktree)
	}
	return s.Header
}
