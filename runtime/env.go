package runtime

import (
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// SkipCode is the exit status with which a precheck shell skips its step:
// automake's skip code, given to every shell as $CHECK_SKIP (§7.2).
const SkipCode = 77

// The variables of §7.1 that cairn sets for every shell of a step.
const (
	EnvRun       = "CAIRN_RUN"
	EnvResults   = "CAIRN_RESULTS"
	EnvResult    = "CAIRN_RESULT"
	EnvStep      = "CAIRN_STEP"
	EnvWorktree  = "CAIRN_WORKTREE"
	EnvIssueURL  = "CAIRN_ISSUE_URL"
	EnvDirective = "CAIRN_DIRECTIVE"
	EnvCheckSkip = "CHECK_SKIP"
)

// StepEnv is the environment of a step's shells and sessions (§7.1): base
// (the user's own, os.Environ()), then the CAIRN_* variables and CHECK_SKIP,
// then the step's own env, each name once, a later value replacing an
// earlier one in place. CAIRN_ISSUE_URL is set only when there is an issue;
// one inherited from base is dropped otherwise, so a run started from a
// step of another never sees its parent's issue.
func StepEnv(base []string, sc *StepContext, resultsDir string, stepEnv []ir.PlanEnv) []string {
	set := []ir.PlanEnv{
		{Name: EnvRun, Value: sc.RunDir},
		{Name: EnvResults, Value: resultsDir},
		{Name: EnvResult, Value: sc.ResultFile},
		{Name: EnvStep, Value: stepName(sc)},
		{Name: EnvWorktree, Value: sc.Worktree},
	}
	if sc.IssueURL != "" {
		set = append(set, ir.PlanEnv{Name: EnvIssueURL, Value: sc.IssueURL})
	}
	set = append(set,
		ir.PlanEnv{Name: EnvDirective, Value: sc.Directive},
		ir.PlanEnv{Name: EnvCheckSkip, Value: "77"},
	)
	set = append(set, stepEnv...)
	var drop []string
	if sc.IssueURL == "" {
		drop = append(drop, EnvIssueURL)
	}
	return mergeEnv(base, set, drop)
}

// stepName is the name of sc's step, "" when it has none.
func stepName(sc *StepContext) string {
	if sc.Step == nil {
		return ""
	}
	return sc.Step.Name
}

// mergeEnv returns base with each of set applied in order (replacing the
// variable where base has it, else appended) and the names in drop removed.
func mergeEnv(base []string, set []ir.PlanEnv, drop []string) []string {
	out := make([]string, 0, len(base)+len(set))
	at := make(map[string]int, len(base)+len(set))
	dropped := make(map[string]bool, len(drop))
	for _, d := range drop {
		dropped[d] = true
	}
	put := func(name, kv string) {
		if i, ok := at[name]; ok {
			out[i] = kv
			return
		}
		at[name] = len(out)
		out = append(out, kv)
	}
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || dropped[name] {
			continue
		}
		put(name, kv)
	}
	for _, e := range set {
		put(e.Name, e.Name+"="+e.Value)
	}
	return out
}
