package codegen

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/step/prompts"
)

// compose is f's text of row i and column j with vars' values for its
// slots, as the script composes it.
func compose(f factored, i, j int, vars map[string]string) string {
	var b strings.Builder
	for _, w := range []BashWord{f.Head, f.Rows[i], f.Cols[j], f.Tail} {
		for _, p := range w {
			if p.Var != "" {
				b.WriteString(vars[p.Var])
			} else {
				b.WriteString(p.Text)
			}
		}
	}
	return b.String()
}

// TestJudgePromptComposes checks that the judge's prompt the script
// composes from its parts is the prompt prompts.JudgePrompt renders, for
// each result and diff, empty, shown or cut, with and without a baseline.
func TestJudgePromptComposes(t *testing.T) {
	d := prompts.JudgeData{Process: "hunt", Step: "judge", Instructions: []string{"Every finding has a `file:line`."}, Whys: []string{"Or it is no finding."}}
	f, err := judgePrompt(d)
	if err != nil {
		t.Fatal(err)
	}
	for r, result := range []string{"", "found main.go:3\n```go\nx\n```", "cut"} {
		for c := range 6 {
			diff := []string{"", "+a\n+````b", "+cut"}[c/2]
			base := []string{"", "0123abc"}[c%2]
			want := d
			want.WorktreePath, want.ResultFile, want.Result, want.ResultCut = "/w", "/r/judge.md", result, r == 2
			want.Diff, want.Cut, want.Baseline, want.Limit, want.ResultLimit = diff, c/2 == 2, base, prompts.DiffLimit, prompts.JudgedResultLimit
			wantText, err := prompts.JudgePrompt(want)
			if err != nil {
				t.Fatal(err)
			}
			fence := func(s string) string {
				f := "```"
				for strings.Contains(s, f) {
					f += "`"
				}
				return f
			}
			got := compose(f, r, c, map[string]string{
				varWorktree: "/w", varResult: "/r/judge.md", varJudgeResult: result, varJudgeDiff: diff,
				varDiffFence: fence(diff), varResultFence: fence(result), varBaseline: base,
			})
			if got != wantText {
				t.Errorf("result %d, diff %d: the composed prompt differs:\n%s\n--- want\n%s", r, c, got, wantText)
			}
		}
	}
}

// TestReviewPromptComposes checks the same of a review retry's prompt, its
// session resumed or fresh, after a shell that wrote nothing, one whose
// output is shown or cut, or the judge.
func TestReviewPromptComposes(t *testing.T) {
	d := prompts.ReviewData{Process: "fix", Step: "fix", Whys: []string{"Tests matter."}, Instructions: []string{"It is fixed."}}
	f, err := reviewPrompt(d)
	if err != nil {
		t.Fatal(err)
	}
	for fresh := range 2 {
		for k := range 4 {
			want := d
			want.Retry, want.Retries, want.Limit = 2, ir.ReviewRetries, prompts.ShellOutputLimit
			want.Instructions = nil
			if fresh == 1 {
				want.Original = "Do the work.\n"
			}
			if k < 3 {
				want.Shell, want.Cause = "go test ./...", "exit status 1"
			} else {
				want.Reasoning, want.Instructions = "It is not fixed.", d.Instructions
			}
			if k > 0 && k < 3 {
				want.Output, want.Cut = "FAIL x", k == 2
			}
			wantText, err := prompts.ReviewPrompt(want)
			if err != nil {
				t.Fatal(err)
			}
			got := compose(f, fresh, k, map[string]string{
				varRetry: "2", varReviewShell: want.Shell, varReviewCause: want.Cause, varReviewOutput: want.Output,
				varReviewReason: want.Reasoning, varReviewPrompt: want.Original, varReviewFence: "```",
			})
			if got != wantText {
				t.Errorf("fresh %d, failure %d: the composed prompt differs:\n%s\n--- want\n%s", fresh, k, got, wantText)
			}
		}
	}
}
