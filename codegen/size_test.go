package codegen

import (
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// A step of longPlan is a command, a claude session, or a claude session
// of access full, which publishes what it asks gh to (a publish job after
// its own in a workflow).
const (
	longCommand = "command"
	longSession = "session"
	longPublish = "publishing session"
)

// longPlan is a process of a stage per step in one throwaway worktree:
// kinds[i] is step i's kind, a command or a claude session with a prompt of
// its own, of access full for longPublish.
func longPlan(kinds []string) *ir.Plan {
	p := &ir.Plan{Process: "long", File: "long.toml", Worktrees: []ir.PlanWorktree{{Name: "default", Kind: ir.Throwaway, Implicit: true}}}
	for i, kind := range kinds {
		a := ir.PlanAction{Kind: ir.Command, Command: fmt.Sprintf("make check-%d", i)}
		if kind != longCommand {
			a = ir.PlanAction{Kind: ir.Session, Prompt: fmt.Sprintf("Fix what check %d found.", i-1), Harness: &ir.Setting{Value: "claude"}, Model: &ir.Setting{Value: "opus"}}
		}
		if kind == longPublish {
			a.Access = &ir.Setting{Value: ir.AccessFull}
		}
		p.Stages = append(p.Stages, []ir.PlanStep{{Name: fmt.Sprintf("step-%d", i), Worktree: "default", Actions: []ir.PlanAction{a}}})
	}
	return p
}

// TestLongProcess compiles a process of 100 steps, commands, sessions and
// publishing sessions in turn, to both targets: the workflow stays under
// the 500 KB GitHub runs, and grows by at most 3 KB for each further step
// of a kind it already has; a publishing session's, by at most 3 KB for its
// own job and as much again for its publish job.
func TestLongProcess(t *testing.T) {
	const steps, growth = 100, 3000
	var kinds []string
	for i := range steps {
		kinds = append(kinds, []string{longCommand, longSession, longPublish}[i%3])
	}
	compile := func(kinds []string) (script, workflow []byte) {
		t.Helper()
		script, diags := Bash(longPlan(kinds), Inputs{})
		if len(diags) > 0 {
			t.Fatalf("Bash: %v", diags)
		}
		workflow, diags = Actions(longPlan(kinds), Inputs{})
		if len(diags) > 0 {
			t.Fatalf("Actions: %v", diags)
		}
		return script, workflow
	}
	script, workflow := compile(kinds)
	t.Logf("%d steps: a script of %d bytes, a workflow of %d", steps, len(script), len(workflow))
	if len(workflow) >= maxWorkflowBytes {
		t.Errorf("the workflow of %d steps is %d bytes; GitHub runs none over %d", steps, len(workflow), maxWorkflowBytes)
	}
	for _, kind := range []string{longCommand, longSession, longPublish} {
		more, moreWorkflow := compile(append(kinds[:steps:steps], kind))
		t.Logf("a further %s step: the script grows by %d bytes, the workflow by %d", kind, len(more)-len(script), len(moreWorkflow)-len(workflow))
		want := growth
		if kind == longPublish {
			want = 2 * growth
		}
		if n := len(moreWorkflow) - len(workflow); n > want {
			t.Errorf("a further %s step makes the workflow %d bytes longer; want at most %d", kind, n, want)
		}
	}
}
