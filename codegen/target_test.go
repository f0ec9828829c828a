package codegen

import (
	"regexp"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// TestTargets walks the registry of compile targets: names unique and
// kebab-case, the default among them, an unknown name found by none.
func TestTargets(t *testing.T) {
	names := TargetNames()
	kebab := regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	for i, n := range names {
		if !kebab.MatchString(n) {
			t.Errorf("target %q is not kebab-case", n)
		}
		if slices.Contains(names[:i], n) {
			t.Errorf("target %q is registered twice", n)
		}
		tg, ok := LookupTarget(n)
		if !ok || tg.Name() != n {
			t.Errorf("LookupTarget(%q) = %v, %v", n, tg, ok)
		}
	}
	if _, ok := LookupTarget("bash"); !ok {
		t.Error("the default target \"bash\" is not registered")
	}
	if tg, ok := LookupTarget("gha"); ok {
		t.Errorf("LookupTarget(%q) found %q", "gha", tg.Name())
	}
}

// TestTargetsRefuseIssueRuns refuses a plan of a run on an issue in every
// target, naming it: the claim, the trust checks and the delivery need
// cairn.
func TestTargetsRefuseIssueRuns(t *testing.T) {
	plan := &ir.Plan{
		Process: "p", File: "p.toml", Issue: "42",
		Worktrees: []ir.PlanWorktree{{Name: "default", Kind: ir.Throwaway, Implicit: true}},
		Stages:    [][]ir.PlanStep{{{Name: "a", Worktree: "default", Actions: []ir.PlanAction{{Kind: ir.Command, Command: "true"}}}}},
	}
	for _, n := range TargetNames() {
		tg, _ := LookupTarget(n)
		out, diags := tg.Compile(plan, Inputs{})
		want := "a run on an issue cannot be compiled to " + n + ": the claim, the trust checks and the delivery need cairn"
		if out.Artifact != nil || !slices.ContainsFunc(diags, func(d ir.Diagnostic) bool {
			return d.Rule == ir.RuleNotCompilable && d.Severity == ir.Error && d.Message == want
		}) {
			t.Errorf("target %s: %d bytes, diagnostics %v; want none and %q", n, len(out.Artifact), diags, want)
		}
	}
}
