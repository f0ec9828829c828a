package codegen

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
)

// featurePlan is a plan of a command step, then a parallel group of two
// steps that run the actions given.
func featurePlan(actions ...ir.PlanAction) *ir.Plan {
	return &ir.Plan{
		Process: "p", File: "p.toml",
		Worktrees: []ir.PlanWorktree{{Name: "a", Kind: ir.Throwaway}, {Name: "b", Kind: ir.Throwaway}},
		Stages: [][]ir.PlanStep{
			{{Name: "first", Worktree: "a", Actions: []ir.PlanAction{{Kind: ir.Command, Command: "make"}}}},
			{
				{Name: "left", Worktree: "a", Parallel: "g", Actions: actions},
				{Name: "right", Worktree: "b", Parallel: "g", Actions: actions},
			},
		},
	}
}

// sessionCode is text of the runtime only a script with sessions holds:
// their functions, the harnesses' jq, and what budgets and a parallel
// group's shares of the budget need.
var sessionCode = []string{
	"run_session()", "session_prompt()", "jq_final=", "usage_plus", "jq_budget=", "budget_before()", "share_start()",
	"share_end", "step_budgets=", "harness_names=", "agent_keys[", "session_keys", "directive_trim",
}

// TestCommandScriptHoldsNoSessionCode compiles a process of command steps,
// with a parallel group: its script holds none of the code of sessions,
// their jq and budgets, nor of the features it does not use (phases,
// skills, checkouts, turn caps, settings, [notify]). A process with
// sessions holds all that its sessions need.
func TestCommandScriptHoldsNoSessionCode(t *testing.T) {
	script, diags := Bash(featurePlan(ir.PlanAction{Kind: ir.Command, Command: "echo hi"}), Inputs{})
	if len(diags) > 0 {
		t.Fatalf("Bash: %v", diags)
	}
	text := string(script)
	for _, code := range append(slices.Clone(sessionCode),
		harness.FinalJQDefs(), "kept_shell()", "install_skill()", "check_clean()", "exclude_cairn_files()", "watch_turns",
		"settings_overlay()", "notify()") {
		if strings.Contains(text, code) {
			t.Errorf("the script of command steps holds %q", code)
		}
	}

	script, diags = Bash(featurePlan(ir.PlanAction{Kind: ir.Session, Prompt: "Hi.", Harness: &ir.Setting{Value: "claude"}}), Inputs{})
	if len(diags) > 0 {
		t.Fatalf("Bash: %v", diags)
	}
	text = string(script)
	claude, _ := harness.NewRegistry(nil).Lookup("claude")
	for _, code := range append(slices.Clone(sessionCode), "run_command()", "\njq_final='\n"+harness.AdapterJQDefs([]*harness.Harness{claude})+"'\n") {
		if !strings.Contains(text, code) {
			t.Errorf("the script of sessions lacks %q", code)
		}
	}
	// Only the jq of the harnesses it runs.
	for _, code := range []string{"def codex:", "def end_gemini:", "def opencode:", "def custom:"} {
		if strings.Contains(text, code) {
			t.Errorf("the script of claude's sessions holds %q", code)
		}
	}
}

// TestFeatureTemplates holds the features to their templates: each has
// bash/NAME.sh.tmpl, and each template of bash/ is a feature's, but for the
// script's own and the job's.
func TestFeatureTemplates(t *testing.T) {
	if _, err := bashTemplate(); err != nil {
		t.Fatal(err)
	}
	files, err := fs.Glob(bashFiles, "bash/*.sh.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range features {
		if names[f.name] {
			t.Errorf("feature %q is listed twice", f.name)
		}
		names[f.name] = true
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "bash/"), ".sh.tmpl")
		if !names[name] && name != "script" && name != "job" {
			t.Errorf("%s is no feature's template: add its feature to features", f)
		}
	}
}
