package templates

import (
	"embed"
	"fmt"
	"strings"
	"sync"
	"text/template"
)

// promptFiles are the embedded templates of what cairn says to agents.
//
//go:embed session.md.tmpl judge.md.tmpl review.md.tmpl
var promptFiles embed.FS

// sessionTemplate parses session.md.tmpl once, on first use.
var sessionTemplate = sync.OnceValues(func() (*template.Template, error) {
	return template.New("session.md.tmpl").Option("missingkey=error").ParseFS(promptFiles, "session.md.tmpl")
})

// judgeTemplate parses judge.md.tmpl once, on first use.
var judgeTemplate = sync.OnceValues(func() (*template.Template, error) {
	return template.New("judge.md.tmpl").Option("missingkey=error").ParseFS(promptFiles, "judge.md.tmpl")
})

// reviewTemplate parses review.md.tmpl once, on first use.
var reviewTemplate = sync.OnceValues(func() (*template.Template, error) {
	return template.New("review.md.tmpl").Option("missingkey=error").ParseFS(promptFiles, "review.md.tmpl")
})

// EarlierResult is the result file of a step that ran before a session.
type EarlierResult struct {
	Step string
	Path string
}

// SessionData is what a session step's prompt is rendered from (§7.1).
// Skill is the skill's name and SkillPath the file the agent reads (in or
// under its worktree); Prompt is the step's inline prompt. A step has a
// skill, a prompt, or both. WorktreeKind is throwaway, checkout or
// issue-branch. Directive, IssueURL and IssueFile (the issue's text, kept
// in the worktree) are empty when the run has none. ResultFile is where
// cairn saves the session's final message. Date is the day the session
// starts (2026-01-02), by the clock of whoever runs it: an agent's own
// idea of today is its training's.
type SessionData struct {
	Process      string
	Step         string
	Date         string
	Skill        string
	SkillPath    string
	Prompt       string
	WorktreeKind string
	WorktreePath string
	Directive    string
	IssueURL     string
	IssueFile    string
	Earlier      []EarlierResult
	ResultFile   string
}

// SessionPrompt renders the prompt of a session step from
// session.md.tmpl: where the agent works and what that means, the issue,
// the earlier steps' results, the skill to follow or the inline prompt, the
// directive, and that its final message is the step's result.
func SessionPrompt(d SessionData) (string, error) {
	d.Prompt = strings.TrimSpace(d.Prompt)
	d.Directive = strings.TrimSpace(d.Directive)
	if d.SkillPath == "" && d.Prompt == "" {
		return "", fmt.Errorf("session step %q has neither a skill nor a prompt", d.Step)
	}
	t, err := sessionTemplate()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, d); err != nil {
		return "", fmt.Errorf("render the prompt of step %q: %w", d.Step, err)
	}
	return b.String(), nil
}

// JudgeData is what the prompt of a validate phase's judge is rendered
// from (§7.2): the step, the worktree it worked in, the phase's
// instructions and whys, and the step's diff since Baseline (the commit the
// step started from, "" when the repository had none). Cut says the diff
// was cut at Limit (such as "200 KiB").
type JudgeData struct {
	Process      string
	Step         string
	WorktreePath string
	Instructions []string
	Whys         []string
	Baseline     string
	Diff         string
	Cut          bool
	Limit        string
}

// JudgePrompt renders the prompt of a validate phase's judge from
// judge.md.tmpl: the criteria, why they matter, the step's whole diff, and
// the JSON verdict its final message must end with.
func JudgePrompt(d JudgeData) (string, error) {
	if len(d.Instructions) == 0 {
		return "", fmt.Errorf("the validate phase of step %q has no instructions to judge", d.Step)
	}
	t, err := judgeTemplate()
	if err != nil {
		return "", err
	}
	d.Diff = strings.TrimRight(d.Diff, "\n")
	var b strings.Builder
	if err := t.Execute(&b, struct {
		JudgeData
		Fence string
	}{d, fence(d.Diff)}); err != nil {
		return "", fmt.Errorf("render the judge prompt of step %q: %w", d.Step, err)
	}
	return b.String(), nil
}

// ReviewData is what the prompt of a review retry is rendered from (§7.2):
// which retry of how many, and what failed: a validate shell (Shell, its
// Cause such as "exit status 1", and its Output, Cut to its last Limit) or
// the judge (its Reasoning against the Instructions), with the phase's
// Whys. Original is the step's session prompt, for a harness that cannot
// resume the agent's session; empty when the session is resumed.
type ReviewData struct {
	Process      string
	Step         string
	Retry        int
	Retries      int
	Shell        string
	Cause        string
	Output       string
	Cut          bool
	Limit        string
	Reasoning    string
	Instructions []string
	Whys         []string
	Original     string
}

// ReviewPrompt renders the prompt that sends a step's run agent back to
// work after a failed validation (severity "review") from review.md.tmpl:
// the <validation-failure> block, after the original prompt when the
// session starts afresh.
func ReviewPrompt(d ReviewData) (string, error) {
	t, err := reviewTemplate()
	if err != nil {
		return "", err
	}
	d.Output = strings.TrimRight(d.Output, "\n")
	d.Reasoning = strings.TrimSpace(d.Reasoning)
	var b strings.Builder
	if err := t.Execute(&b, struct {
		ReviewData
		Fence string
	}{d, fence(d.Shell + "\n" + d.Output)}); err != nil {
		return "", fmt.Errorf("render the review prompt of step %q: %w", d.Step, err)
	}
	return b.String(), nil
}

// fence is a Markdown code fence longer than any run of backticks in s, so
// that s cannot close it.
func fence(s string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

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

// PromptsMarkdown is docs/prompts.md: every prompt cairn gives an agent,
// rendered for an example, so that users read exactly what cairn says.
func PromptsMarkdown() (string, error) {
	var b strings.Builder
	b.WriteString("# What cairn says to agents\n\n")
	b.WriteString("<!-- Generated from templates/*.md.tmpl by TestPromptsDoc; `UPDATE_GOLDEN=1 go test ./templates` rewrites it. -->\n\n")
	b.WriteString("cairn starts every session step's agent with a prompt rendered from `templates/session.md.tmpl`.\n")
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
	Whys:     []string{"Issue #42: the parser crashes on an empty file."},
	Baseline: "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
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
	fmt.Fprintf(b, "\n## A judge\n\nA validate phase's `instructions` are judged by a session of the default harness, from `templates/judge.md.tmpl`, in the step's worktree. Here the `fix` step of a `fix-issue` process committed a fix and left a new test uncommitted. cairn reads the verdict from the end of the judge's final message.\n\n````markdown\n%s````\n", judge)

	review, err := ReviewPrompt(exampleReview)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(b, "\n## A review retry, resuming the agent's session\n\nWith `severity = \"review\"`, a failed validation sends the step's agent back to work with a prompt from `templates/review.md.tmpl`. Here the judge above failed the `fix` step, whose claude session is resumed.\n\n````markdown\n%s````\n", review)

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
	fmt.Fprintf(b, "\n## A review retry in a fresh session\n\nA harness that cannot resume a session (Gemini CLI, a custom harness) gets the step's original prompt first. Here a validate shell of the `hunt-claude` step above failed, on its second and last retry.\n\n````markdown\n%s````\n", freshPrompt)
	return repairMarkdown(b)
}
