package views

import (
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

func TestDescribeStep(t *testing.T) {
	st := &ir.PlanStep{Name: "hunt", Worktree: "claude", Actions: []ir.PlanAction{{
		Kind:    ir.Session,
		Harness: &ir.Setting{Value: "claude"},
		Model:   &ir.Setting{Value: "opus"},
		Effort:  &ir.Setting{Value: ""},
	}}}
	if got, want := DescribeStep(st), "session, claude opus, worktree claude"; got != want {
		t.Errorf("describe = %q; want %q", got, want)
	}
	st.Actions = []ir.PlanAction{{Kind: ir.Command}}
	if got, want := DescribeStep(st), "command, worktree claude"; got != want {
		t.Errorf("describe = %q; want %q", got, want)
	}
}
