package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckJSONSchema runs `cairn check --format json` on a refused file, a
// valid file with every kind of action, and a diagnostic of no file. Each
// output must equal golden/output/check/NAME.json, which the schema
// package's tests hold to docs/check-output.schema.json: the JSON Schema
// library stays out of this package, whose test binary is every cairn the
// tests start.
func TestCheckJSONSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".agents/skills/bug-hunt/SKILL.md": "Hunt for bugs.\n",
		"refused.toml":                     "version = 2\n\n[[steps]]\nname = \"x\"\ncommnd = \"true\"\n",
		"home/processes/child.toml":        "version = 1\n\n[[steps]]\nname = \"work\"\nprompt = \"Work the issue.\"\n",
		"every.toml":                       everyAction,
	})
	gitRepo(t, dir)

	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		plans    int
		noFile   bool
		problems bool
		fixes    bool
	}{
		{name: "refused file", args: []string{"refused.toml"}, code: 1, problems: true, fixes: true},
		{name: "every kind of action", args: []string{"every.toml", "issue", "42"}, plans: 1},
		{name: "no file", args: []string{"no-such-process"}, code: 1, noFile: true, problems: true},
		{name: "bad issue", args: []string{"every.toml", "issue", "x"}, code: 1, noFile: true, problems: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"check", "--no-preflight", "--format", "json"}, tc.args...)
			out, stderr, code := cairnIn(t, dir, args...)
			if code != tc.code {
				t.Fatalf("exit %d; want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, stderr)
			}
			compareGolden(t, filepath.Join("..", "..", "golden", "output", "check", strings.ReplaceAll(tc.name, " ", "-")+".json"), out)
			var got struct {
				Diagnostics []struct {
					File  string
					Line  int
					Fixes []struct {
						Message string
						Edits   []struct {
							NewText string `json:"new_text"`
						}
					}
				}
				Plans []struct {
					Stages [][]struct {
						Actions []struct {
							Kind, Catalogue string
							Skill           *struct{ Source string }
						}
					}
				}
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Plans) != tc.plans {
				t.Errorf("%d plans; want %d", len(got.Plans), tc.plans)
			}
			if (len(got.Diagnostics) > 0) != tc.problems {
				t.Errorf("diagnostics: %+v", got.Diagnostics)
			}
			fixes := 0
			for _, d := range got.Diagnostics {
				fixes += len(d.Fixes)
			}
			if (fixes > 0) != tc.fixes {
				t.Errorf("fixes: %+v", got.Diagnostics)
			}
			if tc.noFile && (len(got.Diagnostics) == 0 || got.Diagnostics[0].File != "" || got.Diagnostics[0].Line != 0) {
				t.Errorf("want a first diagnostic of no file; got %+v", got.Diagnostics)
			}
			if tc.plans == 0 {
				return
			}
			kinds := map[string]bool{}
			for _, stage := range got.Plans[0].Stages {
				for _, s := range stage {
					for _, a := range s.Actions {
						kinds[a.Kind+" "+a.Catalogue] = true
						if a.Skill != nil {
							kinds["skill "+a.Skill.Source] = true
						}
					}
				}
			}
			for _, k := range []string{"session ", "skill repo", "command ", "catalogue delivery", "catalogue self-merge", "catalogue run-published-issue"} {
				if !kinds[k] {
					t.Errorf("the plan has no %q action; it has %v", k, kinds)
				}
			}
		})
	}
}

// everyAction is a process with every kind of action: sessions from a skill
// and from a prompt, a command with precheck and validate, and the three
// catalogue steps.
const everyAction = `version = 1
description = "Every kind of action"

[limits]
repair_cap = 2
protected_paths = ["migrations/**"]
budget_usd = 10

[worktrees.fix]
kind = "issue-branch"

[worktrees.look]
kind = "throwaway"

[worktrees.scan]
kind = "throwaway"

[[steps]]
name = "hunt"
skill = "bug-hunt"
model = "opus"
effort = "high"
worktree = "look"
parallel = "look"

[[steps]]
name = "scan"
command = "grep -rn TODO . || true"
worktree = "scan"
parallel = "look"
env = { LC_ALL = "C" }

[[steps]]
name = "fix"
prompt = "Fix the issue."
worktree = "fix"
max_turns = 40
budget_usd = 2.50
timeout = "1h"

[steps.precheck]
shells = ["test -f go.mod || exit $CHECK_SKIP"]
whys = ["Only Go repositories"]

[steps.validate]
shells = ["go test ./..."]
instructions = ["Every change has a test."]
whys = ["Untested fixes come back"]
severity = "review"

[[steps]]
name = "deliver"
catalogue = "delivery"
worktree = "fix"

[[steps]]
name = "merge"
catalogue = "self-merge"
worktree = "fix"

[[steps]]
name = "plan"
prompt = "Publish a plan as an issue; end with its URL."
worktree = "look"

[[steps]]
name = "follow"
catalogue = "run-published-issue"
process = "child"
worktree = "look"
`
