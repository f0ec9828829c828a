package runtime

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

func TestStepEnv(t *testing.T) {
	sc := &StepContext{
		RunDir:     "/h/runs/r",
		ResultFile: "/h/runs/r/results/test.md",
		Step:       &ir.PlanStep{Name: "test"},
		Worktree:   "/h/worktrees/r/a",
		Directive:  "be brief",
	}
	base := []string{"PATH=/bin", "CAIRN_ISSUE_URL=https://example.com/1", "GOFLAGS=-v", "CHECK_SKIP=1", "junk"}
	got := StepEnv(base, sc, "/h/runs/r/results", []ir.PlanEnv{{Name: "GOFLAGS", Value: "-count=1"}, {Name: "EXTRA", Value: "x"}})
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
		t.Errorf("StepEnv =\n%q\nwant\n%q", got, want)
	}

	sc.IssueURL = "https://example.com/2"
	got = StepEnv(base, sc, "/h/runs/r/results", nil)
	if !slices.Contains(got, "CAIRN_ISSUE_URL=https://example.com/2") {
		t.Errorf("StepEnv with an issue = %q; want its CAIRN_ISSUE_URL", got)
	}
}

func TestMergeEnv(t *testing.T) {
	tests := []struct {
		base []string
		set  []ir.PlanEnv
		drop []string
		want []string
	}{
		{nil, nil, nil, []string{}},
		{[]string{"A=1", "A=2"}, nil, nil, []string{"A=2"}},
		{[]string{"A=1", "B=2"}, []ir.PlanEnv{{Name: "A", Value: "3"}}, nil, []string{"A=3", "B=2"}},
		{[]string{"A=1", "B=2"}, nil, []string{"A"}, []string{"B=2"}},
		{[]string{"=x", "C"}, []ir.PlanEnv{{Name: "D", Value: "a=b"}}, nil, []string{"D=a=b"}},
	}
	for _, tt := range tests {
		if got := mergeEnv(tt.base, tt.set, tt.drop); !slices.Equal(got, tt.want) {
			t.Errorf("mergeEnv(%q, %v, %q) = %q; want %q", tt.base, tt.set, tt.drop, got, tt.want)
		}
	}
}
