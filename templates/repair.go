package templates

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"text/template"
)

// repairFile is the template of a repair session's prompt.
//
//go:embed repair.md.tmpl
var repairFile string

// repairTemplate parses repair.md.tmpl once, on first use.
var repairTemplate = sync.OnceValues(func() (*template.Template, error) {
	return template.New("repair.md.tmpl").Option("missingkey=error").Parse(repairFile)
})

// RepairData is what the prompt of a delivery's repair session is rendered
// from (§7.8): the pull request and its branch, which round of how many
// (the effective repair cap), the skill to follow, and what to repair: the
// failing Checks, or the Conflicts (paths) of a rebase onto the base that
// stopped. IssueURL and IssueFile are empty without an issue.
type RepairData struct {
	Process      string
	Step         string
	PullRequest  string
	Branch       string
	Base         string
	Round        int
	Rounds       int
	WorktreePath string
	Skill        string
	SkillPath    string
	IssueURL     string
	IssueFile    string
	Checks       []FailingCheck
	Conflicts    []string
	// Limit words how much of a log a check keeps, such as "16 KiB".
	Limit string
}

// FailingCheck is a failing check of a pull request: its name, workflow,
// description and link as gh reports them, and the log of its failed
// steps (Cut to its last RepairData.Limit), or why it could not be read.
type FailingCheck struct {
	Name        string
	Workflow    string
	Description string
	Link        string
	Log         string
	Cut         bool
	LogError    string
}

// RepairPrompt renders the prompt of a repair session from repair.md.tmpl:
// the pull request, the failing checks with their logs or the conflicted
// paths of the rebase, and what cairn does after the session.
func RepairPrompt(d RepairData) (string, error) {
	if len(d.Checks) == 0 && len(d.Conflicts) == 0 {
		return "", fmt.Errorf("repair of step %q: neither failing checks nor conflicts to repair", d.Step)
	}
	if d.SkillPath == "" {
		return "", fmt.Errorf("repair of step %q: no skill to follow", d.Step)
	}
	t, err := repairTemplate()
	if err != nil {
		return "", err
	}
	type check struct {
		FailingCheck
		Fence string
	}
	checks := make([]check, 0, len(d.Checks))
	for _, c := range d.Checks {
		c.Log = strings.TrimRight(c.Log, "\n")
		checks = append(checks, check{c, fence(c.Log)})
	}
	var b strings.Builder
	if err := t.Execute(&b, struct {
		RepairData
		Checks []check
	}{d, checks}); err != nil {
		return "", fmt.Errorf("render the repair prompt of step %q: %w", d.Step, err)
	}
	return b.String(), nil
}

// exampleRepair is a repair session shown in docs/prompts.md: the second
// round of a delivery whose test check fails.
var exampleRepair = RepairData{
	Process:      "fix-issue",
	Step:         "deliver",
	PullRequest:  "https://github.com/ada/shop/pull/43",
	Branch:       "cairn/42-the-parser-crashes-on-an-empty-file",
	Base:         "main",
	Round:        2,
	Rounds:       3,
	WorktreePath: "/home/ada/.cairn/worktrees/fix-issue_2026-01-01T090000Z/fix",
	Skill:        "cairn-repair",
	SkillPath:    "/home/ada/.cairn/worktrees/fix-issue_2026-01-01T090000Z/fix/.cairn/skills/cairn-repair/SKILL.md",
	IssueURL:     "https://github.com/ada/shop/issues/42",
	IssueFile:    "/home/ada/.cairn/worktrees/fix-issue_2026-01-01T090000Z/fix/.cairn-issue.md",
	Checks: []FailingCheck{{
		Name:     "test (ubuntu-latest)",
		Workflow: "CI",
		Link:     "https://github.com/ada/shop/actions/runs/901/job/902",
		Log: "test (ubuntu-latest)\tRun go test ./...\t2026-01-01T09:31:07Z --- FAIL: TestParseWhitespace (0.00s)\n" +
			"test (ubuntu-latest)\tRun go test ./...\t2026-01-01T09:31:07Z     parse_test.go:19: Parse(\"  \\n\"): index out of range [0] with length 0\n" +
			"test (ubuntu-latest)\tRun go test ./...\t2026-01-01T09:31:07Z FAIL\tgithub.com/ada/shop/parse\t0.004s\n",
	}},
	Limit: "16 KiB",
}

// exampleRebase is a repair session of the same delivery after the base
// moved and the rebase stopped on a conflict.
var exampleRebase = RepairData{
	Process:      exampleRepair.Process,
	Step:         exampleRepair.Step,
	PullRequest:  exampleRepair.PullRequest,
	Branch:       exampleRepair.Branch,
	Base:         exampleRepair.Base,
	Round:        1,
	Rounds:       3,
	WorktreePath: exampleRepair.WorktreePath,
	Skill:        exampleRepair.Skill,
	SkillPath:    exampleRepair.SkillPath,
	IssueURL:     exampleRepair.IssueURL,
	IssueFile:    exampleRepair.IssueFile,
	Conflicts:    []string{"parse/parse.go"},
}

// repairMarkdown appends the repair sessions' examples to b, and returns
// the page.
func repairMarkdown(b *strings.Builder) (string, error) {
	checks, err := RepairPrompt(exampleRepair)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(b, "\n## A repair session for failing checks\n\nA `delivery` step's repair loop starts a session of the built-in `cairn-repair` skill, from `templates/repair.md.tmpl`, for each failing round of the pull request's checks, up to the effective repair cap. Here the second round of the `deliver` step of a `fix-issue` process, whose test check fails.\n\n````markdown\n%s````\n", checks)
	rebase, err := RepairPrompt(exampleRebase)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(b, "\n## A repair session for a conflict with the base\n\nWhen the branch conflicts with its base, cairn rebases it and, when the rebase stops on conflicts, a repair session resolves them.\n\n````markdown\n%s````\n", rebase)
	return b.String(), nil
}
