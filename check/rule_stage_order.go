package check

import "github.com/cairn-dev/cairn/ir"

// The IDs of the rules about the order of stages.
const (
	RuleSelfMergeAfterDelivery     = "self-merge-after-delivery"
	RulePublishedIssueNeedsSession = "published-issue-needs-session"
	RuleParallelGroupSplit         = "parallel-group-split"
)

// previousStep returns the related range of the step before stage st, if any.
func previousStep(p *ir.Process, stages []stage, st int) []ir.Related {
	if st == 0 {
		return nil
	}
	return []ir.Related{{Range: p.Steps[stages[st-1].last].Header, Message: "the previous step"}}
}

// ruleSelfMergeAfterDelivery refuses a self-merge step that does not run
// alone, directly after a stage that is a single delivery step: it merges the
// pull request that delivery opened.
var ruleSelfMergeAfterDelivery = &Rule{
	ID:       RuleSelfMergeAfterDelivery,
	Doc:      "a self-merge step not directly after a delivery step",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		stages, stageOf := stagesOf(p)
		needs := needsOf(p)
		for i := range p.Steps {
			s := &p.Steps[i]
			if catalogueOf(s) != ir.SelfMerge {
				continue
			}
			st := stageOf[i]
			if stages[st].first != stages[st].last {
				pass.ReportRelated(s.Header, previousStep(p, stages, st),
					"self-merge %s runs in parallel group %q; it must run alone, directly after a delivery step", stepRef(p, i), group(s))
				continue
			}
			if prev := needs[i]; len(prev) == 1 && catalogueOf(&p.Steps[prev[0]]) == ir.Delivery {
				continue
			}
			pass.ReportRelated(s.Header, previousStep(p, stages, st),
				"self-merge %s does not come directly after a delivery step; put a step with catalogue = %q right before it", stepRef(p, i), ir.Delivery)
		}
	},
}

// rulePublishedIssueNeedsSession refuses a run-published-issue step whose
// previous stage is not one session step: the issue it starts is the one the
// last line of that session's result names.
var rulePublishedIssueNeedsSession = &Rule{
	ID:       RulePublishedIssueNeedsSession,
	Doc:      "run-published-issue whose previous stage is not a single session step",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		stages, stageOf := stagesOf(p)
		needs := needsOf(p)
		for i := range p.Steps {
			s := &p.Steps[i]
			if catalogueOf(s) != ir.RunPublishedIssue {
				continue
			}
			st := stageOf[i]
			if prev := needs[i]; len(prev) == 1 && len(p.Steps[prev[0]].Actions) == 1 && p.Steps[prev[0]].Actions[0].Kind == ir.Session {
				continue
			}
			pass.ReportRelated(s.Header, previousStep(p, stages, st),
				"run-published-issue %s must come directly after a single session step, whose result's last line names the issue", stepRef(p, i))
		}
	},
}

// ruleParallelGroupSplit refuses a parallel group whose steps are not
// consecutive: a group is one stage.
var ruleParallelGroupSplit = &Rule{
	ID:       RuleParallelGroupSplit,
	Doc:      "one group name on steps that are not consecutive",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		lastOf := map[string]int{} // group → its latest step so far
		for i := range p.Steps {
			g := group(&p.Steps[i])
			if g == "" {
				continue
			}
			if last, seen := lastOf[g]; seen && last != i-1 {
				pass.ReportRelated(valueRange(p.Steps[i].Keys().Parallel), []ir.Related{{Range: valueRange(p.Steps[last].Keys().Parallel), Message: "the group's earlier step"}},
					"parallel group %q is split: %s is not next to the group's earlier steps; move the group's steps together or rename one group", g, stepRef(p, i))
			}
			lastOf[g] = i
		}
	},
}
