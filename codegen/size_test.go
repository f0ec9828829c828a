package codegen

import (
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// longPlan is a process of a stage per step in one throwaway worktree:
// kinds[i] is step i's kind, a command or a claude session with a prompt of
// its own.
func longPlan(kinds []ir.ActionKind) *ir.Plan {
	p := &ir.Plan{Process: "long", File: "long.toml", Worktrees: []ir.PlanWorktree{{Name: "default", Kind: ir.Throwaway, Implicit: true}}}
	for i, kind := range kinds {
		a := ir.PlanAction{Kind: ir.Command, Command: fmt.Sprintf("make check-%d", i)}
		if kind == ir.Session {
			a = ir.PlanAction{Kind: ir.Session, Prompt: fmt.Sprintf("Fix what check %d found.", i-1), Harness: &ir.Setting{Value: "claude"}, Model: &ir.Setting{Value: "opus"}}
		}
		p.Stages = append(p.Stages, []ir.PlanStep{{Name: fmt.Sprintf("step-%d", i), Worktree: "default", Actions: []ir.PlanAction{a}}})
	}
	return p
}

// TestLongProcess compiles a process of 100 steps, commands and sessions in
// turn, to both targets: the workflow stays under the 500 KB GitHub runs,
// and grows by at most 3 KB for each further step of a kind it already has,
// a command or a session.
func TestLongProcess(t *testing.T) {
	const steps, growth = 100, 3000
	var kinds []ir.ActionKind
	for i := range steps {
		kinds = append(kinds, []ir.ActionKind{ir.Command, ir.Session}[i%2])
	}
	compile := func(kinds []ir.ActionKind) (script, workflow []byte) {
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
	for _, kind := range []ir.ActionKind{ir.Command, ir.Session} {
		more, moreWorkflow := compile(append(kinds[:steps:steps], kind))
		t.Logf("a further %s step: the script grows by %d bytes, the workflow by %d", kind, len(more)-len(script), len(moreWorkflow)-len(workflow))
		if n := len(moreWorkflow) - len(workflow); n > growth {
			t.Errorf("a further %s step makes the workflow %d bytes longer; want at most %d", kind, n, growth)
		}
	}
}
