package check

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// src drops the leading newline of a raw string, so that its first line is
// line 1 of the file.
func src(s string) string { return strings.TrimPrefix(s, "\n") }

func TestLintClean(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "every key", src: src(`
version = 1
description = "clean"
default_worktree = "a"
run_expiry = "30d"
failed_run_expiry = "never"

[limits]
repair_cap = 2

[worktrees.a]
kind = "throwaway"
copy = [".env", "config/**/*.local"]
setup = "make deps"
setup_timeout = "5m"

[worktrees.b]
kind = "issue-branch"

[[steps]]
name = "hunt-claude"
skill = "bug-hunt"
harness = "claude"
model = "opus"
effort = "high"
max_turns = 30
parallel = "hunt"
timeout = "45m"
env = { GOFLAGS = "-count=1", _X1 = "y" }

[[steps]]
name = "fix"
prompt = "fix what the hunt found"
worktree = "b"
parallel = "hunt"

[steps.precheck]
shells = ['[ -n "$(ls inbox)" ] || exit $CHECK_SKIP']
whys = ["nothing in the inbox"]

[steps.validate]
shells = ["go test ./..."]
instructions = ["every finding names a file"]
severity = "review"
model = "balanced"

[[steps]]
name = "deliver"
catalogue = "delivery"
worktree = "b"

[[steps]]
name = "merge"
catalogue = "self-merge"
worktree = "b"
`)},
		{name: "implicit default and a published issue", src: src(`
version = 1

[[steps]]
name = "plan"
skill = "architect"
worktree = "default"

[[steps]]
name = "start"
catalogue = "run-published-issue"
process = "ticket"
spec_process = "spec"

[[steps]]
name = "tidy"
command = """
set -x
for f in *.go; do
  gofmt -l "$f"
done
"""
`)},
	})
}

func TestLintVersion(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "missing", src: src(`
description = "x"

[[steps]]
name = "a"
command = "true"
`), want: []string{"1:1 version"}, msgs: []string{`missing "version"; add version = 1 at the top`}},
		{name: "not 1", src: src(`
version = 2

[[steps]]
name = "a"
command = "true"
`), want: []string{"1:11 version"}},
	})
}

func TestLintNames(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "reserved", file: "dir/check.toml", src: src(`
version = 1

[[steps]]
name = "a"
command = "true"
`), want: []string{"1:1 reserved-name"}, msgs: []string{`process name "check" is reserved for a built-in command; rename the file`}},
		{name: "invalid process name", file: "My_Proc.toml", src: src(`
version = 1

[[steps]]
name = "a"
command = "true"
`), want: []string{"1:1 invalid-name"}, msgs: []string{`process name "My_Proc" (the file's name) does not match [a-z0-9][a-z0-9-]*; rename the file (did you mean "my-proc"?)`}},
		{name: "steps, worktrees and groups", src: src(`
version = 1

[worktrees.Big_One]
kind = "throwaway"

[[steps]]
name = "Build It"
command = "true"
worktree = "Big_One"
parallel = "G1"

[[steps]]
command = "true"
worktree = "Big_One"
`), want: []string{"3:12 invalid-name", "7:8 invalid-name", "10:12 invalid-name", "12:1 invalid-name"}, msgs: []string{
			`invalid worktree name "Big_One"; names match [a-z0-9][a-z0-9-]* (did you mean "big-one"?)`,
			`invalid step name "Build It"; names match [a-z0-9][a-z0-9-]* (did you mean "build-it"?)`,
			`invalid parallel group name "G1"; names match [a-z0-9][a-z0-9-]* (did you mean "g1"?)`,
			`step has no "name"; every step needs one, such as "build"`,
		}},
	})
}

func TestLintInvalidValue(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "every kind of value", src: src(`
version = 1
run_expiry = "30 days"
failed_run_expiry = "never"

[limits]
repair_cap = -1

[worktrees.a]
kind = "throwawy"

[worktrees.b]

[[steps]]
name = "hunt"
skill = "bug-hunt"
effort = "hihg"
max_turns = 0
timeout = "0s"
worktree = "a"
env = { "1BAD" = "x", GOOD = "y" }

[steps.validate]
severity = "block"

[[steps]]
name = "run"
command = " "
timeout = "10"
worktree = "b"
`), want: []string{
			"2:14 invalid-value",
			"6:14 invalid-value",
			"9:8 invalid-value",
			"11:1 invalid-value",
			"16:10 invalid-value",
			"17:13 invalid-value",
			"18:11 invalid-value",
			"20:9 invalid-value",
			"23:12 invalid-value",
			"27:11 invalid-value",
			"28:11 invalid-value",
		}, msgs: []string{
			`invalid run_expiry: duration "30 days": unexpected unit " " (use w, d, h, m, s, largest first); write a duration such as "30d", or "never"`,
			`invalid repair_cap -1; it cannot be negative`,
			`invalid worktree kind "throwawy"; expected throwaway, issue-branch or checkout (did you mean "throwaway"?)`,
			`worktree "b" has no "kind"; add kind = "throwaway", "issue-branch" or "checkout"`,
			`invalid effort "hihg"; expected low, medium, high, xhigh or max (did you mean "high"?)`,
			`invalid max_turns 0; a session needs at least 1 turn`,
			`invalid timeout "0s"; a timeout must be longer than 0s`,
			`invalid environment variable name "1BAD"; use letters, digits and _, not starting with a digit`,
			`invalid severity "block"; expected warn, abort or review`,
			`empty command; write what the step should do, or remove the step`,
			`invalid timeout: duration "10": 10 needs a unit (w, d, h, m or s); write a duration such as "45m" or "1h30m"`,
		}},
	})
}

func TestLintStepKind(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "none and several", src: src(`
version = 1

[[steps]]
name = "nothing"

[[steps]]
name = "both"
skill = "bug-hunt"
command = "make"
catalogue = "delivery"
`), want: []string{"3:1 step-kind", "9:1 step-kind (8:1)", "10:1 step-kind (8:1)"}, msgs: []string{
			`step "nothing" has none of skill, prompt, command or catalogue; a step does exactly one thing`,
			`step "both" has both "skill" and "command"; a step does exactly one thing`,
			`step "both" has both "skill" and "catalogue"; a step does exactly one thing`,
		}},
	})
}

func TestLintMisplacedKey(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "session keys, child processes, phase keys", src: src(`
version = 1

[[steps]]
name = "build"
command = "make"
harness = "claude"
model = "opus"
effort = "high"
max_turns = 3
process = "ticket"

[steps.precheck]
shells = ["true"]
severity = "warn"
model = "fast"
instructions = ["x"]

[steps.validate]
shells = ["true"]
model = "balanced"

[[steps]]
name = "deliver"
catalogue = "delivery"
spec_process = "spec"
model = "opus"
`), want: []string{
			"6:1 misplaced-key",
			"7:1 misplaced-key",
			"8:1 misplaced-key",
			"9:1 misplaced-key",
			"10:1 misplaced-key",
			"14:1 misplaced-key",
			"15:1 misplaced-key",
			"16:1 instructions-outside-validate",
			"20:1 misplaced-key warning",
			"25:1 misplaced-key",
			"26:1 misplaced-key",
		}, msgs: []string{
			`"harness" does not apply to a command step (step "build"); only skill and prompt steps run an agent`,
			`"model" does not apply to a command step (step "build"); only skill and prompt steps run an agent`,
			`"effort" does not apply to a command step (step "build"); only skill and prompt steps run an agent`,
			`"max_turns" does not apply to a command step (step "build"); only skill and prompt steps run an agent`,
			`"process" only applies to catalogue = "run-published-issue" (step "build")`,
			`"severity" does not apply to a precheck phase (step "build"); a precheck's shells skip or fail the step by their exit code`,
			`"model" does not apply to a precheck phase (step "build"); a precheck's shells skip or fail the step by their exit code`,
			`"instructions" in the precheck phase of step "build" are never judged; move them to the validate phase`,
			`"model" in the validate phase of step "build" has no instructions to judge; add instructions or remove it`,
			`"spec_process" only applies to catalogue = "run-published-issue" (step "deliver")`,
			`"model" does not apply to a catalogue step (step "deliver"); only skill and prompt steps run an agent`,
		}},
	})
}

func TestLintUnknownCatalogue(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "two", src: src(`
version = 1

[[steps]]
name = "ship"
catalogue = "delivry"

[[steps]]
name = "go"
catalogue = "teleport"
`), want: []string{"5:13 unknown-catalogue", "9:13 unknown-catalogue"}, msgs: []string{
			`unknown catalogue step "delivry"; expected delivery, self-merge or run-published-issue (did you mean "delivery"?)`,
			`unknown catalogue step "teleport"; expected delivery, self-merge or run-published-issue`,
		}},
	})
}

func TestLintWorktrees(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "unknown", src: src(`
version = 1
default_worktree = "mian"

[worktrees.main]
kind = "checkout"

[[steps]]
name = "a"
command = "true"
worktree = "default"

[[steps]]
name = "b"
command = "true"
worktree = "mainn"

[[steps]]
name = "c"
command = "true"
worktree = "main"
`), want: []string{"2:20 unknown-worktree", "10:12 unknown-worktree", "15:12 unknown-worktree"}, msgs: []string{
			`default_worktree names undeclared worktree "mian"; declare it under [worktrees.mian] (did you mean "main"?)`,
			`unknown worktree "default"; declare it under [worktrees.default]`,
			`unknown worktree "mainn"; declare it under [worktrees.mainn] (did you mean "main"?)`,
		}},
		{name: "single issue branch and unused", src: src(`
version = 1

[worktrees.one]
kind = "issue-branch"

[worktrees.two]
kind = "issue-branch"

[worktrees.three]
kind = "issue-branch"

[[steps]]
name = "deliver"
catalogue = "delivery"
worktree = "one"
`), want: []string{
			"6:1 unused-worktree warning",
			"7:8 single-issue-branch (4:8)",
			"9:1 unused-worktree warning",
			"10:8 single-issue-branch (4:8)",
		}, msgs: []string{
			`worktree "two" is declared but no step uses it; name it in a step's worktree or remove it`,
			`worktree "two" is a second issue-branch worktree after "one"; a process works on one issue branch`,
			`worktree "three" is declared but no step uses it; name it in a step's worktree or remove it`,
			`worktree "three" is a second issue-branch worktree after "one"; a process works on one issue branch`,
		}},
		{name: "default_worktree unused by steps naming others", src: src(`
version = 1
default_worktree = "a"

[worktrees.a]
kind = "throwaway"

[worktrees.b]
kind = "throwaway"

[[steps]]
name = "x"
command = "true"
worktree = "b"
`), want: []string{"4:1 unused-worktree warning"}},
	})
}

func TestLintIssueBranchNeedsDelivery(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "delivery elsewhere, then more edits", src: src(`
version = 1
default_worktree = "work"

[worktrees.work]
kind = "issue-branch"

[worktrees.scratch]
kind = "throwaway"

[[steps]]
name = "build"
skill = "build"

[[steps]]
name = "deliver"
catalogue = "delivery"
worktree = "scratch"

[[steps]]
name = "fix"
command = "make fix"
`), want: []string{"4:1 issue-branch-needs-delivery (19:1)"}, msgs: []string{
			`issue-branch worktree "work" has no delivery step after its last editing step "fix"; add a step with catalogue = "delivery" on this worktree, or its work is never pushed`,
		}},
		{name: "delivery in the same parallel group", src: src(`
version = 1

[worktrees.work]
kind = "issue-branch"

[[steps]]
name = "build"
skill = "build"
worktree = "work"
parallel = "g"

[[steps]]
name = "deliver"
catalogue = "delivery"
worktree = "work"
parallel = "g"
`), want: []string{"3:1 issue-branch-needs-delivery (6:1)", "15:12 parallel-shared-worktree (9:12)"}},
	})
}

func TestLintIssueBranchNeedsIssue(t *testing.T) {
	t.Parallel()
	const text = `
version = 1

[worktrees.work]
kind = "issue-branch"

[[steps]]
name = "build"
skill = "build"
worktree = "work"

[[steps]]
name = "deliver"
catalogue = "delivery"
worktree = "work"
`
	p, fe := parse.TOML("p.toml", []byte(src(text)))
	if len(fe) != 0 {
		t.Fatalf("front-end: %+v", fe)
	}
	if _, diags := Check(context.Background(), p, nil, &Env{Lint: true, Config: &config.Config{}}); len(diags) != 0 {
		t.Errorf("--lint reported %+v; issue-branch-needs-issue is not a lint rule", diags)
	}
	for _, tc := range []struct {
		name    string
		runtime bool
		issue   *ir.Issue
		want    []string
	}{
		{"check without an issue", false, nil, []string{"3:1 issue-branch-needs-issue warning"}},
		{"run without an issue", true, nil, []string{"3:1 issue-branch-needs-issue"}},
		{"with an issue", false, &ir.Issue{Number: 42}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var diags []ir.Diagnostic
			env := &Env{Config: &config.Config{}, Runtime: tc.runtime, Flags: Flags{Issue: tc.issue}}
			ruleIssueBranchNeedsIssue.Run(&Pass{Process: p, Env: env, rule: ruleIssueBranchNeedsIssue, diags: &diags, ctx: context.Background()})
			got, msgs := render(diags)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got %q; want %q", got, tc.want)
			}
			for _, m := range msgs {
				if want := `issue-branch worktree "work" needs an issue; pass one with "issue NUMBER"`; m != want {
					t.Errorf("message %q; want %q", m, want)
				}
			}
		})
	}
}

func TestLintStageOrder(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "self-merge", src: src(`
version = 1

[[steps]]
name = "merge-first"
catalogue = "self-merge"

[[steps]]
name = "deliver"
catalogue = "delivery"

[[steps]]
name = "build"
command = "make"

[[steps]]
name = "merge"
catalogue = "self-merge"
`), want: []string{"3:1 self-merge-after-delivery", "15:1 self-merge-after-delivery (11:1)"}, msgs: []string{
			`self-merge step "merge-first" does not come directly after a delivery step; put a step with catalogue = "delivery" right before it`,
			`self-merge step "merge" does not come directly after a delivery step; put a step with catalogue = "delivery" right before it`,
		}},
		{name: "self-merge in a group", src: src(`
version = 1

[[steps]]
name = "deliver"
catalogue = "delivery"

[[steps]]
name = "merge"
catalogue = "self-merge"
parallel = "g"

[[steps]]
name = "deliver-again"
catalogue = "delivery"
parallel = "g"
`), want: []string{"7:1 self-merge-after-delivery (3:1)"}, msgs: []string{
			`self-merge step "merge" runs in parallel group "g"; it must run alone, directly after a delivery step`,
		}},
		{name: "published issue", src: src(`
version = 1

[[steps]]
name = "start-early"
catalogue = "run-published-issue"

[[steps]]
name = "script"
command = "echo https://example.com/o/r/issues/1"

[[steps]]
name = "start"
catalogue = "run-published-issue"

[[steps]]
name = "plan-a"
skill = "architect"
parallel = "plan"
worktree = "x"

[[steps]]
name = "plan-b"
skill = "architect"
parallel = "plan"

[[steps]]
name = "start-b"
catalogue = "run-published-issue"

[worktrees.x]
kind = "throwaway"
`), want: []string{
			"3:1 published-issue-needs-session",
			"11:1 published-issue-needs-session (7:1)",
			"26:1 published-issue-needs-session (21:1)",
		}, msgs: []string{
			`run-published-issue step "start-early" must come directly after a single session step, whose result's last line names the issue`,
			`run-published-issue step "start" must come directly after a single session step, whose result's last line names the issue`,
			`run-published-issue step "start-b" must come directly after a single session step, whose result's last line names the issue`,
		}},
		{name: "split groups", src: src(`
version = 1

[[steps]]
name = "a"
catalogue = "delivery"
parallel = "g"

[[steps]]
name = "b"
catalogue = "delivery"
parallel = "g"

[[steps]]
name = "c"
catalogue = "delivery"

[[steps]]
name = "d"
catalogue = "delivery"
parallel = "g"

[[steps]]
name = "e"
catalogue = "delivery"
parallel = "g"

[[steps]]
name = "f"
catalogue = "delivery"
parallel = "h"

[[steps]]
name = "g"
catalogue = "delivery"
parallel = "g"
`), want: []string{"20:12 parallel-group-split (11:12)", "35:12 parallel-group-split (25:12)"}, msgs: []string{
			`parallel group "g" is split: step "d" is not next to the group's earlier steps; move the group's steps together or rename one group`,
			`parallel group "g" is split: step "g" is not next to the group's earlier steps; move the group's steps together or rename one group`,
		}},
	})
}

func TestLintParallelSharedWorktree(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "implicit and declared", src: src(`
version = 1

[worktrees.a]
kind = "throwaway"

[[steps]]
name = "one"
skill = "hunt"
parallel = "hunt"

[[steps]]
name = "two"
command = "make"
parallel = "hunt"

[[steps]]
name = "three"
skill = "hunt"
worktree = "a"
parallel = "hunt"

[[steps]]
name = "four"
catalogue = "delivery"
worktree = "a"
parallel = "hunt"

[[steps]]
name = "five"
catalogue = "delivery"
parallel = "rest"

[[steps]]
name = "six"
catalogue = "delivery"
parallel = "rest"
`), want: []string{"11:1 parallel-shared-worktree (6:1)", "25:12 parallel-shared-worktree (19:12)"}, msgs: []string{
			`step "one" and step "two" of parallel group "hunt" share worktree "default", and both edit it; give each editing step its own worktree`,
			`step "three" and step "four" of parallel group "hunt" share worktree "a", and step "three" edits it; give each editing step its own worktree`,
		}},
	})
}

func TestLintReviewNeedsOneAgent(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "command step", src: src(`
version = 1

[[steps]]
name = "test"
command = "go test ./..."

[steps.validate]
instructions = ["tests pass"]
severity = "review"

[[steps]]
name = "fix"
skill = "fix"

[steps.validate]
severity = "review"
`), want: []string{"9:12 review-needs-one-agent"}, msgs: []string{
			`severity "review" re-invokes the step's one agent, but step "test" runs 0; use "warn" or "abort"`,
		}},
	})
}

func TestLintShellSyntax(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "command, precheck and validate", src: src(`
version = 1

[[steps]]
name = "build"
command = """
for f in *.go; do
  echo "$f"
don
"""

[steps.precheck]
shells = ["true", "echo \"a\"; fi"]

[steps.validate]
shells = ['echo "unterminated']
`), want: []string{"6:1 shell-syntax", "12:32 shell-syntax", "15:17 shell-syntax"}, msgs: []string{
			"bash cannot parse this script: `for` statement must end with `done`",
			"bash cannot parse this script: `fi` can only be used to end an `if`",
			"bash cannot parse this script: reached EOF without closing quote `\"`",
		}},
	})
}

// TestLintCard holds what changes for a card: no version, any number of
// actions, and a run phase that cannot hold instructions.
func TestLintCard(t *testing.T) {
	t.Parallel()
	at := func(line, col int32) ir.Range {
		return ir.Range{File: "c.procedure.card", Start: ir.Pos{Line: line, Column: col}, End: ir.Pos{Line: line, Column: col + 1}}
	}
	str := func(v string, key, val ir.Range) ir.Field[string] {
		return ir.Field[string]{Value: v, Set: true, Key: key, Range: val}
	}
	p := &ir.Process{Name: "c", File: "c.procedure.card", Format: ir.Card, Steps: []ir.Step{{
		Header: at(3, 5),
		Name:   str("intake", at(3, 5), at(3, 9)),
		Actions: []ir.Action{
			{Kind: ir.Command, Range: at(6, 9), Script: str("true", ir.Range{}, at(6, 11))},
			{Kind: ir.Command, Range: at(7, 9), Script: str("echo (", ir.Range{}, at(7, 11))},
		},
		Run: &ir.Phase{Kind: ir.RunPhase, Header: at(4, 5),
			Written: &ir.PhaseKeys{Instructions: ir.Strings{Set: true, Key: at(8, 7)}}},
		Validate: &ir.Phase{Kind: ir.ValidatePhase, Header: at(9, 5),
			Severity: str("review", at(10, 7), at(10, 17))},
	}}}
	_, diags := Check(context.Background(), p, nil, &Env{Lint: true, Config: &config.Config{}})
	got, _ := render(diags)
	want := []string{"7:11 shell-syntax", "8:7 instructions-outside-validate", "10:17 review-needs-one-agent"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q; want %q", got, want)
	}
}
