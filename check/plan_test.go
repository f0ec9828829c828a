package check

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
)

const planSrc = `version = 1
description = "Three families hunt bugs; one judges"
run_expiry = "7d"

[limits]
repair_cap = 2
self_merge = false

[worktrees.a]
kind = "throwaway"
[worktrees.b]
kind = "throwaway"
[worktrees.fix]
kind = "issue-branch"

[[steps]]
name = "gather"
command = "ls"

[[steps]]
name = "hunt-claude"
description = "Hunt for bugs"
prompt = "hunt"
model = "opus"
effort = "high"
worktree = "a"
parallel = "hunt"
optional = true
timeout = "45m"
env = { GOFLAGS = "-count=1" }

[[steps]]
name = "hunt-codex"
prompt = "hunt"
harness = "codex"
worktree = "b"
parallel = "hunt"

[[steps]]
name = "judge"
prompt = "judge"
worktree = "fix"
[steps.precheck]
shells = ["true"]
[steps.validate]
instructions = ["every finding names a file"]

[[steps]]
name = "deliver"
catalogue = "delivery"
worktree = "fix"
`

func TestBuildPlan(t *testing.T) {
	t.Parallel()
	p := mustTOML(t, "review.toml", planSrc)
	issue, _ := ir.ParseIssue("42")
	env := &Env{Home: t.TempDir(), Config: &config.Config{}, Flags: Flags{Issue: issue}}
	plan, diags := Check(context.Background(), p, nil, env)
	if plan == nil {
		t.Fatalf("no plan: %+v", diags)
	}
	if plan.Process != "review" || plan.File != "review.toml" || plan.Format != ir.TOML || plan.Issue != "42" || plan.Commit ||
		plan.Description != "Three families hunt bugs; one judges" || plan.RunExpiry != "7d" || plan.FailedRunExpiry != "90d" {
		t.Errorf("plan header %+v", plan)
	}
	if l := plan.Limits; l.RepairCap != (ir.IntSetting{Value: 2, Source: ir.FromFile}) || l.SelfMerge || l.Merge.Value != "false" {
		t.Errorf("limits %+v", l)
	}

	var stages []string
	for _, st := range plan.Stages {
		var names []string
		for _, s := range st {
			names = append(names, s.Name+"@"+s.Worktree)
		}
		stages = append(stages, strings.Join(names, "+"))
	}
	if want := []string{"gather@default", "hunt-claude@a+hunt-codex@b", "judge@fix", "deliver@fix"}; !slices.Equal(stages, want) {
		t.Errorf("stages %q; want %q", stages, want)
	}

	var worktrees []string
	for _, w := range plan.Worktrees {
		worktrees = append(worktrees, fmt.Sprintf("%s %s base=%q branch=%q implicit=%v", w.Name, w.Kind, w.Base, w.Branch, w.Implicit))
	}
	wantWorktrees := []string{
		`a throwaway base="" branch="" implicit=false`,
		`b throwaway base="" branch="" implicit=false`,
		`fix issue-branch base="" branch="cairn/42-…" implicit=false`,
		`default throwaway base="" branch="" implicit=true`,
	}
	if !slices.Equal(worktrees, wantWorktrees) {
		t.Errorf("worktrees\n%s\nwant\n%s", strings.Join(worktrees, "\n"), strings.Join(wantWorktrees, "\n"))
	}

	gather, hunt, codex, judge, deliver := plan.Stages[0][0], plan.Stages[1][0], plan.Stages[1][1], plan.Stages[2][0], plan.Stages[3][0]
	if a := gather.Actions[0]; a.Kind != ir.Command || a.Command != "ls" || a.Harness != nil || a.MaxTurns != nil {
		t.Errorf("command action %+v", a)
	}
	a := hunt.Actions[0]
	if a.Kind != ir.Session || a.Prompt != "hunt" || *a.Harness != (ir.Setting{Value: "claude", Source: ir.FromDefault}) ||
		*a.Model != (ir.Setting{Value: "opus", Source: ir.FromStep, Tier: "strong", TierMap: ir.TierBuiltin}) || *a.Effort != (ir.Setting{Value: "high", Source: ir.FromStep}) ||
		*a.MaxTurns != (ir.IntSetting{Value: 20, Source: ir.FromDefault}) {
		t.Errorf("session action %+v", a)
	}
	if hunt.Description != "Hunt for bugs" || hunt.Parallel != "hunt" || !hunt.Optional || hunt.Timeout != "45m" ||
		!slices.Equal(hunt.Env, []ir.PlanEnv{{Name: "GOFLAGS", Value: "-count=1"}}) {
		t.Errorf("step %+v", hunt)
	}
	if *codex.Actions[0].Harness != (ir.Setting{Value: "codex", Source: ir.FromStep}) {
		t.Errorf("codex harness %+v", codex.Actions[0].Harness)
	}
	if judge.Precheck == nil || !slices.Equal(judge.Precheck.Shells, []string{"true"}) || judge.Precheck.Model != nil {
		t.Errorf("precheck %+v", judge.Precheck)
	}
	if v := judge.Validate; v == nil || v.Severity != ir.SeverityAbort || v.Model == nil ||
		*v.Model != (ir.Setting{Value: "sonnet", Source: ir.FromDefault, Tier: "balanced", TierMap: ir.TierBuiltin}) {
		t.Errorf("validate %+v", judge.Validate)
	}
	if a := deliver.Actions[0]; a.Kind != ir.Catalogue || a.Catalogue != ir.Delivery || a.Harness != nil {
		t.Errorf("catalogue action %+v", a)
	}

	var names []string
	for _, h := range plan.Harnesses {
		names = append(names, h.Name)
	}
	if !slices.Equal(names, []string{"claude", "codex"}) {
		t.Errorf("harnesses %q; want claude then codex", names)
	}

	// Every list is an array in JSON, never null.
	out, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"protected_paths":[]`, `"env":[]`, `"instructions":[]`, `"whys":[]`} {
		if !strings.Contains(string(out), key) {
			t.Errorf("JSON lacks %s: %s", key, out)
		}
	}
	rest := strings.NewReplacer(`"precheck":null`, "", `"validate":null`, "", `"logged_in":null`, "").Replace(string(out))
	if strings.Contains(rest, ":null") {
		t.Errorf("JSON holds a null other than an absent phase or an unknown login: %s", out)
	}
}

func TestBuildPlanEmpty(t *testing.T) {
	t.Parallel()
	p := mustTOML(t, "empty.toml", "version = 1\n")
	plan, diags := Check(context.Background(), p, nil, &Env{Home: t.TempDir(), Config: &config.Config{}})
	if plan == nil {
		t.Fatalf("no plan: %+v", diags)
	}
	out, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"worktrees":[]`, `"stages":[]`, `"harnesses":[]`, `"protected_paths":[]`, `"issue":""`, `"run_expiry":"30d"`} {
		if !strings.Contains(string(out), key) {
			t.Errorf("JSON lacks %s: %s", key, out)
		}
	}
}

func TestBuildPlanCard(t *testing.T) {
	t.Parallel()
	p := &ir.Process{
		Name: "intake", File: "intake.procedure.card", Format: ir.Card,
		Steps: []ir.Step{{
			Name:    ir.Field[string]{Value: "sort", Set: true},
			Actions: []ir.Action{{Kind: ir.Command, Script: ir.Field[string]{Value: "true", Set: true}}},
		}},
	}
	env := &Env{Home: t.TempDir(), Config: &config.Config{}}
	plan := BuildPlan(context.Background(), p, Resolve(context.Background(), p, env), env)
	if !plan.Commit {
		t.Error("a card's plan does not commit")
	}
	want := []ir.PlanWorktree{{Name: ir.ImplicitWorktree, Kind: ir.Checkout, Implicit: true, Copy: []ir.PlanCopy{}}}
	if !reflect.DeepEqual(plan.Worktrees, want) {
		t.Errorf("worktrees %+v; want %+v", plan.Worktrees, want)
	}
}

func TestBuildPlanBase(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "trunk"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "init"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repo, err := git.Discover(context.Background(), git.New(os.Environ()), dir)
	if err != nil {
		t.Fatal(err)
	}
	// The repository's .worktreeinclude adds its patterns to every worktree
	// but the checkout, after the file's own.
	if err := os.WriteFile(filepath.Join(dir, ir.WorktreeInclude), []byte("# local files\n.env\n\nconfig/*.local  \r\n!keep\\ \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := mustTOML(t, "p.toml", "version = 1\n[worktrees.w]\nkind = \"checkout\"\nsetup = \"make\"\n[worktrees.t]\nkind = \"throwaway\"\ncopy = [\"secrets/**\"]\nsetup = \"npm ci\"\n"+
		"[[steps]]\nname = \"a\"\ncommand = \"true\"\n[[steps]]\nname = \"b\"\ncommand = \"true\"\nworktree = \"w\"\n[[steps]]\nname = \"c\"\ncommand = \"true\"\nworktree = \"t\"\n")
	env := &Env{Home: t.TempDir(), Config: &config.Config{}, Repo: repo}
	plan := BuildPlan(context.Background(), p, Resolve(context.Background(), p, env), env)
	include := []ir.PlanCopy{{Glob: ".env", Source: ir.CopyFromInclude}, {Glob: "config/*.local", Source: ir.CopyFromInclude}, {Glob: "!keep\\ ", Source: ir.CopyFromInclude}}
	want := []ir.PlanWorktree{
		{Name: "w", Kind: ir.Checkout, Copy: []ir.PlanCopy{}, Setup: "make", SetupTimeout: ir.DefaultSetupTimeout},
		{Name: "t", Kind: ir.Throwaway, Base: "trunk", Copy: append([]ir.PlanCopy{{Glob: "secrets/**", Source: ir.CopyFromFile}}, include...), Setup: "npm ci", SetupTimeout: ir.DefaultSetupTimeout},
		{Name: ir.ImplicitWorktree, Kind: ir.Throwaway, Base: "trunk", Implicit: true, Copy: include},
	}
	if !reflect.DeepEqual(plan.Worktrees, want) {
		t.Errorf("worktrees %+v; want %+v", plan.Worktrees, want)
	}
}
