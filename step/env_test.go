package step

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

func TestEnv(t *testing.T) {
	t.Parallel()
	sc := &Context{
		RunDir:     "/h/runs/r",
		ResultFile: "/h/runs/r/results/test.md",
		Step:       &ir.PlanStep{Name: "test"},
		Worktree:   "/h/worktrees/r/a",
		Directive:  "be brief",
	}
	base := []string{"PATH=/bin", "CAIRN_ISSUE_URL=https://example.com/1", "GOFLAGS=-v", "CHECK_SKIP=1", "junk"}
	got := Env(base, sc, "/h/runs/r/results", []ir.PlanEnv{{Name: "GOFLAGS", Value: "-count=1"}, {Name: "EXTRA", Value: "x"}})
	want := []string{
		"PATH=/bin",
		"GOFLAGS=-count=1",
		"CHECK_SKIP=77",
		"CAIRN_RUN=/h/runs/r",
		"CAIRN_RESULTS=/h/runs/r/results",
		"CAIRN_RESULT=/h/runs/r/results/test.md",
		"CAIRN_STEP=test",
		"CAIRN_WORKTREE=/h/worktrees/r/a",
		"CAIRN_DIRECTIVE=be brief",
		"EXTRA=x",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Env =\n%q\nwant\n%q", got, want)
	}

	sc.IssueURL = "https://example.com/2"
	got = Env(base, sc, "/h/runs/r/results", nil)
	if !slices.Contains(got, "CAIRN_ISSUE_URL=https://example.com/2") {
		t.Errorf("Env with an issue = %q; want its CAIRN_ISSUE_URL", got)
	}
}

// TestShellEnv: a step's shells get its environment less the agents' keys
// the user's environment holds, but with those its own env sets.
func TestShellEnv(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=/bin", "ANTHROPIC_API_KEY=user", "GEMINI_API_KEY=user", "CODEX_API_KEY=", "CAIRN_STEP=s", "OPENROUTER_API_KEY=step", "NOTE=x"}
	got := ShellEnv(env, []ir.PlanEnv{{Name: "OPENROUTER_API_KEY", Value: "step"}, {Name: "NOTE", Value: "x"}})
	want := []string{"PATH=/bin", "CAIRN_STEP=s", "NOTE=x", "OPENROUTER_API_KEY=step"}
	if !slices.Equal(got, want) {
		t.Errorf("ShellEnv =\n%q\nwant\n%q", got, want)
	}
}
