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
//go:embed session.md.tmpl
var promptFiles embed.FS

// sessionTemplate parses session.md.tmpl once, on first use.
var sessionTemplate = sync.OnceValues(func() (*template.Template, error) {
	return template.New("session.md.tmpl").Option("missingkey=error").ParseFS(promptFiles, "session.md.tmpl")
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
// cairn saves the session's final message.
type SessionData struct {
	Process      string
	Step         string
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

// exampleSession is the session shown in docs/prompts.md: the judge of
// examples/hunt.toml, after three parallel hunts, on an issue, with a
// directive.
var exampleSession = SessionData{
	Process:      "hunt",
	Step:         "judge",
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
	return b.String(), nil
}
