package check

import "github.com/cairn-dev/cairn/ir"

// The IDs of the rules that keep an issue branch's work from being lost.
const (
	RuleIssueBranchNeedsDelivery = "issue-branch-needs-delivery"
	RuleIssueBranchNeedsIssue    = "issue-branch-needs-issue"
)

// ruleIssueBranchNeedsDelivery refuses an issue-branch worktree whose last
// editing step is not followed, in a later stage, by a delivery step on that
// worktree: its work would never be pushed.
var ruleIssueBranchNeedsDelivery = &Rule{
	ID:       RuleIssueBranchNeedsDelivery,
	Doc:      "an issue-branch worktree with no delivery step after its last editing step",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		_, stageOf := stagesOf(p)
		for _, w := range worktreesInOrder(p) {
			if !isIssueBranch(w) {
				continue
			}
			lastEdit, delivered := -1, false
			for i := range p.Steps {
				s := &p.Steps[i]
				if name, ok := worktreeOf(p, s); !ok || name != w.Name {
					continue
				}
				switch {
				case edits(s):
					lastEdit, delivered = i, false
				case catalogueOf(s) == ir.Delivery && lastEdit >= 0 && stageOf[i] > stageOf[lastEdit]:
					delivered = true
				}
			}
			if lastEdit < 0 || delivered {
				continue
			}
			pass.ReportRelated(w.Header, []ir.Related{{Range: p.Steps[lastEdit].Header, Message: "the last step that edits it"}},
				"issue-branch worktree %q has no delivery step after its last editing %s; add a step with catalogue = %q on this worktree, or its work is never pushed",
				w.Name, stepRef(p, lastEdit), ir.Delivery)
		}
	},
}

// ruleIssueBranchNeedsIssue refuses, at run time, a process with an
// issue-branch worktree and no issue; check only warns, since the issue is
// given when the process runs.
var ruleIssueBranchNeedsIssue = &Rule{
	ID:       RuleIssueBranchNeedsIssue,
	Doc:      "an issue-branch process without an issue: an error at run time, a warning from check without one",
	Severity: ir.Error,
	Lint:     false,
	Run: func(pass *Pass) {
		if pass.Env != nil && pass.Env.Flags.Issue != nil {
			return
		}
		sev := ir.Warning
		if pass.Env != nil && pass.Env.Runtime {
			sev = ir.Error
		}
		for _, w := range worktreesInOrder(pass.Process) {
			if isIssueBranch(w) {
				pass.ReportAs(sev, w.Header, nil, "issue-branch worktree %q needs an issue; pass one with \"issue NUMBER\"", w.Name)
			}
		}
	},
}
