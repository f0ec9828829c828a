package runtime

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

func TestUnsupported(t *testing.T) {
	plan := &ir.Plan{
		Worktrees: []ir.PlanWorktree{{Name: "a", Kind: ir.Throwaway}, {Name: "b", Kind: ir.IssueBranch}},
		Stages: [][]ir.PlanStep{
			{{Name: "build", Actions: []ir.PlanAction{{Kind: ir.Command, Command: "make"}},
				Validate: &ir.PlanPhase{Shells: []string{"true"}, Severity: ir.SeverityAbort}}},
			{{Name: "review", Actions: []ir.PlanAction{{Kind: ir.Session, Prompt: "x"}},
				Validate: &ir.PlanPhase{Instructions: []string{"good"}, Severity: ir.SeverityReview}}},
			{{Name: "ship", Actions: []ir.PlanAction{{Kind: ir.Catalogue, Catalogue: ir.Delivery}}}},
		},
	}
	want := []string{
		`worktree "b": issue-branch worktrees are not supported yet`,
		`step "ship": catalogue step "delivery" is not supported yet`,
	}
	if got := Unsupported(plan); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	plan.Worktrees, plan.Stages = plan.Worktrees[:1], plan.Stages[:2]
	if got := Unsupported(plan); len(got) != 0 {
		t.Errorf("a plan of commands, shells, a judge and review retries: got %q, want nothing", got)
	}
}
