package step

import (
	"strconv"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
)

// SkipCode is the exit status with which a precheck shell skips its step:
// automake's skip code, given to every shell as $CHECK_SKIP (docs/design.md §7.2).
const SkipCode = 77

// The variables of docs/design.md §7.1 that cairn sets for every shell of a step.
const (
	EnvRun       = "CAIRN_RUN"
	EnvResults   = "CAIRN_RESULTS"
	EnvResult    = "CAIRN_RESULT"
	EnvStep      = "CAIRN_STEP"
	EnvWorktree  = "CAIRN_WORKTREE"
	EnvIssueURL  = "CAIRN_ISSUE_URL"
	EnvDirective = "CAIRN_DIRECTIVE"
	EnvCheckSkip = "CHECK_SKIP"
	// EnvOutput is the file a step with an output schema writes its
	// output to; EnvOutputs the folder of the earlier steps' outputs,
	// STEP.json (docs/design.md §7.1).
	EnvOutput  = "CAIRN_OUTPUT"
	EnvOutputs = "CAIRN_OUTPUTS"
	// EnvItem is the item, JSON, of a run of a step with for_each;
	// EnvItemIndex its place in the list, from 0.
	EnvItem      = "CAIRN_ITEM"
	EnvItemIndex = "CAIRN_ITEM_INDEX"
)

// Env is the environment of a step's shells and sessions (docs/design.md §7.1): base
// (the user's own, as main read it), then the CAIRN_* variables and CHECK_SKIP,
// then the step's own env, each name once, a later value replacing an
// earlier one in place. CAIRN_ISSUE_URL is set only when there is an issue;
// one inherited from base is dropped otherwise, so a run started from a
// step of another never sees its parent's issue.
func Env(base []string, sc *Context, resultsDir string, stepEnv []ir.PlanEnv) []string {
	set := []string{
		EnvRun + "=" + sc.RunDir,
		EnvResults + "=" + resultsDir,
		EnvResult + "=" + sc.ResultFile,
		EnvStep + "=" + stepName(sc),
		EnvWorktree + "=" + sc.Worktree,
	}
	if sc.IssueURL != "" {
		set = append(set, EnvIssueURL+"="+sc.IssueURL)
	}
	if sc.Item != nil {
		set = append(set, EnvItem+"="+string(sc.Item), EnvItemIndex+"="+strconv.Itoa(sc.ItemIndex))
	}
	set = append(set,
		EnvDirective+"="+sc.Directive,
		EnvCheckSkip+"=77",
	)
	for _, e := range stepEnv {
		set = append(set, e.Name+"="+e.Value)
	}
	var drop []string
	if sc.IssueURL == "" {
		drop = append(drop, EnvIssueURL)
	}
	if sc.Item == nil {
		drop = append(drop, EnvItem, EnvItemIndex)
	}
	return proc.MergeEnv(base, set, drop)
}

// stepEnv is the env of sc's step, none when it has no step.
func stepEnv(sc *Context) []ir.PlanEnv {
	if sc.Step == nil {
		return nil
	}
	return sc.Step.Env
}

// stepName is the name of sc's step, "" when it has none.
func stepName(sc *Context) string {
	if sc.Step == nil {
		return ""
	}
	return sc.Step.Name
}

// ShellEnv is the environment of a step's shells (its commands, precheck
// and validate) from env, the step's Env: without the agent CLIs' keys
// (harness.KeyVariables), which reach a session's CLI alone, so that what a
// shell prints, which the run folder keeps, cannot show one; but those the
// step's own env (stepEnv) sets, as written.
func ShellEnv(env []string, stepEnv []ir.PlanEnv) []string {
	set := make([]string, len(stepEnv))
	for i, e := range stepEnv {
		set[i] = e.Name + "=" + e.Value
	}
	return proc.MergeEnv(env, set, harness.KeyVariables)
}
