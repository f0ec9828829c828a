// Package prompts renders what cairn says to agents: the prompts of session
// steps, judges, reviews and repair sessions, from embedded text/template
// files, for `cairn run` and the compiled scripts alike.
package prompts

import (
	"embed"
	"fmt"
	"regexp"
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

// What of a step's result and of a failed shell's output the prompts
// hold, for cairn run and the compiled artifacts alike.
const (
	// MaxJudgedResult is how much of a step's result, its start, a judge's
	// prompt holds; the judge reads the result file for the rest.
	MaxJudgedResult = 64 << 10
	// JudgedResultLimit words MaxJudgedResult for that prompt.
	JudgedResultLimit = "64 KiB"
	// MaxShellOutput is how much of a failed shell's output, its end, a
	// review retry's prompt holds.
	MaxShellOutput = 16 << 10
	// ShellOutputLimit words MaxShellOutput for that prompt.
	ShellOutputLimit = "16 KiB"
	// MaxDiff is how much of a step's diff a judge's prompt holds; the
	// prompt says when the diff was cut.
	MaxDiff = 200 << 10
	// DiffLimit words MaxDiff for that prompt.
	DiffLimit = "200 KiB"
	// MaxCheckLog is how much of a failing check's log, its end, a repair
	// session's prompt holds.
	MaxCheckLog = 16 << 10
	// CheckLogLimit words MaxCheckLog for that prompt.
	CheckLogLimit = "16 KiB"
)

// EarlierResult is the result file of a step that ran before a session.
type EarlierResult struct {
	Step string
	Path string
}

// SessionData is what a session step's prompt is rendered from (docs/design.md §7.1).
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
	// OutputSchema is the JSON Schema the session's output must match,
	// when its step declares one and its CLI takes no schema of its own:
	// the prompt asks for the output in a ```json fence.
	OutputSchema string
	// Outputs is set when a step of the process declares a typed output:
	// the list of earlier results says where outputs are saved.
	Outputs bool
	// Item is the item, JSON, of a run of a step with for_each; "" for
	// any other step.
	Item string
}

// itemSlot is what WithItem replaces: {{ item }}, with any blanks inside
// the braces.
var itemSlot = regexp.MustCompile(`\{\{\s*item\s*\}\}`)

// WithItem is prompt with each {{ item }} replaced by item, the JSON of a
// for_each's item; prompt as it is when item is nil.
func WithItem(prompt string, item []byte) string {
	if item == nil {
		return prompt
	}
	return itemSlot.ReplaceAllLiteralString(prompt, string(item))
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
// from (docs/design.md §7.2): the step, the worktree it worked in, the phase's
// instructions and whys, the step's diff since Baseline (the commit the
// step started from, "" when the repository had none), and its result (its
// agent's final message or its command's output) with the file that holds
// it. Cut says the diff was cut at Limit (such as "200 KiB"); ResultCut
// that the result was cut at ResultLimit. Fence and ResultFence are the
// code fences around Diff and Result; empty, each is longer than any run of
// backticks in what it fences.
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
	Result       string
	ResultFile   string
	ResultCut    bool
	ResultLimit  string
	Fence        string
	ResultFence  string
}

// JudgePrompt renders the prompt of a validate phase's judge from
// judge.md.tmpl: the criteria, why they matter, the step's result and its
// whole diff, and the JSON verdict its final message must end with.
func JudgePrompt(d JudgeData) (string, error) {
	if len(d.Instructions) == 0 {
		return "", fmt.Errorf("the validate phase of step %q has no instructions to judge", d.Step)
	}
	t, err := judgeTemplate()
	if err != nil {
		return "", err
	}
	d.Diff = strings.TrimRight(d.Diff, "\n")
	d.Result = strings.TrimRight(d.Result, "\n")
	if d.Fence == "" {
		d.Fence = fence(d.Diff)
	}
	if d.ResultFence == "" {
		d.ResultFence = fence(d.Result)
	}
	var b strings.Builder
	if err := t.Execute(&b, d); err != nil {
		return "", fmt.Errorf("render the judge prompt of step %q: %w", d.Step, err)
	}
	return b.String(), nil
}

// ReviewData is what the prompt of a review retry is rendered from (docs/design.md §7.2):
// which retry of how many, and what failed: a validate shell (Shell, its
// Cause such as "exit status 1", and its Output, Cut to its last Limit) or
// the judge (its Reasoning against the Instructions), with the phase's
// Whys. Original is the step's session prompt, for a harness that cannot
// resume the agent's session; empty when the session is resumed. Fence is
// the code fence around the shell and its output; empty, it is longer than
// any run of backticks in them.
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
	Fence        string
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
	if d.Fence == "" {
		d.Fence = fence(d.Shell + "\n" + d.Output)
	}
	var b strings.Builder
	if err := t.Execute(&b, d); err != nil {
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
