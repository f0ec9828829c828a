package prompts

import (
	"fmt"
	"strings"
)

// exampleSession is the session shown in docs/prompts.md: the judge of
// examples/hunt.toml, after three parallel hunts, on an issue, with a
// directive.
var exampleSession = SessionData{
	Process:      "hunt",
	Step:         "judge",
	Date:         "2026-01-01",
	Prompt:       "Read the bug reports of the earlier steps (their result files are listed\nabove). Keep only findings you can confirm in the code, merge duplicates,\nand write one report ordered by severity, each finding with file:line.\n",
	WorktreeKind: "throwaway",
	WorktreePath: "/home/ada/.cairn/worktrees/hunt_2026-01-01T090000Z/judge",
	Directive:    "Only the parser matters this week.",
	IssueURL:     "https://github.com/ada/shop/issues/42",
	IssueFile:    "/home/ada/.cairn/worktrees/hunt_2026-01-01T090000Z/judge/.cairn-issue.md",
	Earlier: []EarlierResult{
		{Step: "tests-pass", Path: "/home/ada/.cairn/runs/hunt_2026-01-01T090000Z/results/tests-pass.md"},
		{Step: "hunt-claude", Path: "/home/ada/.cairn/runs/hunt_2026-01-01T090000Z/results/hunt-claude.md"},
		{Step: "hunt-codex", Path: "/home/ada/.cairn/runs/hunt_2026-01-01T090000Z/results/hunt-codex.md"},
		{Step: "hunt-gemini", Path: "/home/ada/.cairn/runs/hunt_2026-01-01T090000Z/results/hunt-gemini.md"},
	},
	ResultFile: "/home/ada/.cairn/runs/hunt_2026-01-01T090000Z/results/judge.md",
}

// exampleSkillSession is a skill step of the same run, in the user's
// checkout, with no issue nor directive.
var exampleSkillSession = SessionData{
	Process:      "hunt",
	Step:         "hunt-claude",
	Date:         "2026-01-01",
	Skill:        "bug-hunt",
	SkillPath:    "/home/ada/src/shop/.agents/skills/bug-hunt/SKILL.md",
	WorktreeKind: "checkout",
	WorktreePath: "/home/ada/src/shop",
	Earlier: []EarlierResult{
		{Step: "tests-pass", Path: "/home/ada/.cairn/runs/hunt_2026-01-01T090000Z/results/tests-pass.md"},
	},
	ResultFile: "/home/ada/.cairn/runs/hunt_2026-01-01T090000Z/results/hunt-claude.md",
}

// promptsMarkdown is docs/prompts.md: every prompt cairn gives an agent,
// rendered for an example, so that users read exactly what cairn says.
func promptsMarkdown() (string, error) {
	var b strings.Builder
	b.WriteString("# What cairn says to agents\n\n")
	b.WriteString("<!-- Generated from step/prompts/*.md.tmpl by TestPromptsDoc; `UPDATE_GOLDEN=1 go test ./step/prompts` rewrites it. -->\n\n")
	b.WriteString("cairn starts every session step's agent with a prompt rendered from `step/prompts/session.md.tmpl`.\n")
	b.WriteString("The agent's final message becomes the step's result. Below, the prompt as rendered for examples.\n")
	for _, ex := range []struct {
		title, about string
		data         SessionData
	}{
		{
			"A session with an inline prompt",
			"The `judge` step of `examples/hunt.toml`, after three parallel hunts, in a throwaway worktree, on an issue, with `--directive`.",
			exampleSession,
		},
		{
			"A session with a skill",
			"A `hunt-claude` step whose skill is the repository's own `.agents/skills/bug-hunt/SKILL.md`, in the user's checkout, with no issue and no directive.",
			exampleSkillSession,
		},
	} {
		prompt, err := SessionPrompt(ex.data)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n```markdown\n%s```\n", ex.title, ex.about, prompt)
	}
	return judgeAndReviewMarkdown(&b)
}

// exampleJudge is the judge shown in docs/prompts.md: a fix step's
// validate instructions, after it committed one change and left another
// uncommitted.
var exampleJudge = JudgeData{
	Process:      "fix-issue",
	Step:         "fix",
	WorktreePath: "/home/ada/.cairn/worktrees/fix-issue_2026-01-01T090000Z/fix",
	Instructions: []string{
		"The fix addresses the cause of the crash, not only its symptom.",
		"A test reproduces the crash and passes with the fix.",
	},
	Whys:       []string{"Issue #42: the parser crashes on an empty file."},
	Result:     "Parse now returns an empty File for empty input (parse/parse.go:41), and TestParseEmpty covers it.\n",
	ResultFile: "/home/ada/.cairn/runs/fix-issue_2026-01-01T090000Z/results/fix.md",
	Baseline:   "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
	Diff: `diff --git a/parse/parse.go b/parse/parse.go
index 1b2c3d4..5e6f7a8 100644
--- a/parse/parse.go
+++ b/parse/parse.go
@@ -40,6 +40,9 @@ func Parse(src []byte) (*File, error) {
 	p := newParser(src)
+	if len(src) == 0 {
+		return &File{}, nil
+	}
 	return p.file()
 }
diff --git a/parse/parse_test.go b/parse/parse_test.go
new file mode 100644
index 0000000..9a8b7c6
--- /dev/null
+++ b/parse/parse_test.go
@@ -0,0 +1,8 @@
+package parse
+
+import "testing"
+
+func TestParseEmpty(t *testing.T) {
+	if _, err := Parse(nil); err != nil {
+		t.Fatal(err)
+	}
+}
`,
}

// exampleReview is a review retry of the same step after its judge failed
// it, resuming the agent's session.
var exampleReview = ReviewData{
	Process:      "fix-issue",
	Step:         "fix",
	Retry:        1,
	Retries:      2,
	Reasoning:    "The empty-file case returns early in parse/parse.go:41, but the crash comes from p.file() indexing past the end of a file holding only whitespace (parse/parser.go:88), which still crashes. TestParseEmpty covers only nil input.",
	Instructions: exampleJudge.Instructions,
	Whys:         exampleJudge.Whys,
}

// exampleFreshReview is a review retry after a validate shell failed, in a
// fresh session of a harness that cannot resume one.
var exampleFreshReview = ReviewData{
	Process: "hunt",
	Step:    "hunt-claude",
	Retry:   2,
	Retries: 2,
	Shell:   "test -s findings.md",
	Cause:   "exit status 1",
	Whys:    []string{"The judge reads findings.md; an empty report hides every finding."},
}

// judgeAndReviewMarkdown appends the judge's and the review retries'
// examples to b, and returns the page.
func judgeAndReviewMarkdown(b *strings.Builder) (string, error) {
	judge, err := JudgePrompt(exampleJudge)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(b, "\n## A judge\n\nA validate phase's `instructions` are judged by a session of the default harness, from `step/prompts/judge.md.tmpl`, in the step's worktree. Here the `fix` step of a `fix-issue` process committed a fix and left a new test uncommitted. cairn reads the verdict from the end of the judge's final message.\n\n````markdown\n%s````\n", judge)

	review, err := ReviewPrompt(exampleReview)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(b, "\n## A review retry, resuming the agent's session\n\nWith `severity = \"review\"`, a failed validation sends the step's agent back to work with a prompt from `step/prompts/review.md.tmpl`. Here the judge above failed the `fix` step, whose claude session is resumed.\n\n````markdown\n%s````\n", review)

	original, err := SessionPrompt(exampleSkillSession)
	if err != nil {
		return "", err
	}
	fresh := exampleFreshReview
	fresh.Original = original
	freshPrompt, err := ReviewPrompt(fresh)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(b, "\n## A review retry in a fresh session\n\nA harness that cannot resume a session (a custom harness) gets the step's original prompt first. Here a validate shell of the `hunt-claude` step above failed, on its second and last retry.\n\n````markdown\n%s````\n", freshPrompt)
	return repairMarkdown(b)
}
