package check

// lintRules are the rules that read the process file alone, listed in §6.1's
// order. issue-branch-needs-issue also reads the command line's issue, so its
// Lint is false and `--lint` drops it.
var lintRules = []*Rule{
	ruleVersion,
	ruleReservedName,
	ruleInvalidName,
	ruleInvalidValue,
	ruleStepKind,
	ruleMisplacedKey,
	ruleUnknownCatalogue,
	ruleUnknownWorktree,
	ruleSingleIssueBranch,
	ruleIssueBranchNeedsIssue,
	ruleIssueBranchNeedsDelivery,
	ruleSelfMergeAfterDelivery,
	ruleParallelSharedWorktree,
	ruleParallelGroupSplit,
	rulePublishedIssueNeedsSession,
	ruleReviewNeedsOneAgent,
	ruleInstructionsOutsideValidate,
	ruleShellSyntax,
	ruleUnusedWorktree,
}
