package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaFile is the JSON Schema of `cairn check --format json`.
var schemaFile = filepath.Join("..", "..", "docs", "check-output.schema.json")

// TestCheckJSONSchema holds real `cairn check --format json` output to
// docs/check-output.schema.json: for a refused file, a valid file with every
// kind of action, and a diagnostic of no file.
func TestCheckJSONSchema(t *testing.T) {
	t.Parallel()
	schema := checkSchema(t)

	for _, bad := range []string{
		`{"version":1,"diagnostics":null,"plans":[]}`,
		`{"version":1,"diagnostics":[],"plans":[],"extra":true}`,
		`{"version":1,"diagnostics":[{"file":"","line":0,"column":0,"end_line":0,"end_column":0,"severity":"fatal","rule":"x","message":"m","related":[],"fixes":[]}],"plans":[]}`,
		`{"version":1,"diagnostics":[{"file":"f","line":1,"column":1,"end_line":1,"end_column":2,"severity":"error","rule":"x","message":"m","related":[],"fixes":[{"message":"m","edits":[]}]}],"plans":[]}`,
	} {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(bad)))
		if err != nil {
			t.Fatal(err)
		}
		if schema.Validate(inst) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}

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
			validateJSON(t, schema, out)
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

// checkSchema compiles docs/check-output.schema.json.
func checkSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("check-output.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("check-output.schema.json")
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	return schema
}

// validateJSON fails t unless out is JSON that schema accepts.
func validateJSON(t *testing.T, schema *jsonschema.Schema, out []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("does not match %s: %v\n%s", schemaFile, err, out)
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
