package check

// lintRules are the rules that read the process file alone, listed in docs/design.md §6.1's
// order.
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
	ruleIssueBranchNeedsDelivery,
	ruleSelfMergeAfterDelivery,
	ruleParallelSharedWorktree,
	ruleUnknownStep,
	ruleInvalidWhen,
	ruleInvalidForEach,
	ruleParallelGroupSplit,
	rulePublishedIssueNeedsSession,
	ruleReviewNeedsOneAgent,
	ruleInstructionsOutsideValidate,
	ruleShellSyntax,
	ruleUnusedWorktree,
	ruleFullAccessCheckout,
}
