package check

// envRules are the rules that consult the config, the repository, the
// harnesses or other process files.
var envRules = []*Rule{
	ruleIssueBranchNeedsIssue,
	ruleUnknownHarness,
	ruleUnknownEffort,
	ruleUnmappedTier,
	ruleLoosenedLimit,
	ruleFlagAboveLimit,
	ruleBudgetUnmeasured,
	ruleHarnessCannotStart,
	ruleHarnessNotLoggedIn,
}
