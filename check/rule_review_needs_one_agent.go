package check

import "github.com/cairn-dev/cairn/ir"

// RuleReviewNeedsOneAgent is the ID of the rule that a review retry has one
// agent to re-invoke.
const RuleReviewNeedsOneAgent = "review-needs-one-agent"

// ruleReviewNeedsOneAgent refuses validate severity "review" on a step that
// does not run exactly one agent session: a review re-invokes that session
// with the failure.
var ruleReviewNeedsOneAgent = &Rule{
	ID:       RuleReviewNeedsOneAgent,
	Doc:      "severity = \"review\" on a step whose run phase has not exactly one agent",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		for i := range p.Steps {
			s := &p.Steps[i]
			if s.Validate == nil {
				continue
			}
			sev := s.Validate.Severity
			if !sev.Set || sev.Bad || sev.Value != ir.SeverityReview {
				continue
			}
			if n := sessions(s); n != 1 {
				pass.Report(valueRange(sev), "severity %q re-invokes the step's one agent, but %s runs %d; use %q or %q", ir.SeverityReview, stepRef(p, i), n, ir.SeverityWarn, ir.SeverityAbort)
			}
		}
	},
}
