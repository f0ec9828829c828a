package check

import "github.com/cairn-dev/cairn/ir"

// RuleHarnessNotLoggedIn is the ID of the rule about harnesses whose CLI
// cannot authenticate.
const RuleHarnessNotLoggedIn = "harness-not-logged-in"

// ruleHarnessNotLoggedIn reports a harness that starts but whose CLI says it
// is not logged in (its own status command, or no key variable it reads):
// every session on it would fail. It warns from `cairn check`, which may run
// where the agents do not (a CI linter), and refuses in `cairn run`, before
// anything starts. A harness whose answer is unknown (a custom one) passes.
var ruleHarnessNotLoggedIn = &Rule{
	ID:       RuleHarnessNotLoggedIn,
	Doc:      "a harness whose CLI is not logged in (warning from check, error from run)",
	Severity: ir.Warning,
	Run: func(pass *Pass) {
		if pass.Resolution == nil || pass.Env == nil || !pass.Env.Preflight {
			return
		}
		sev := pass.rule.Severity
		if pass.Env.Runtime {
			sev = ir.Error
		}
		uses := pass.Resolution.Harnesses
		statuses := preflightAll(pass.ctx, pass.Env, uses)
		for i, u := range uses {
			st := statuses[i]
			if u.Adapter == nil || !st.OK || st.LoggedIn == nil || *st.LoggedIn {
				continue
			}
			pass.ReportAs(sev, u.At, nil, "harness %q is not logged in: %s", u.Name, st.Login)
		}
	},
}
