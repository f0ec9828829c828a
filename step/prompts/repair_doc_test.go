package prompts

import (
	"fmt"
	"strings"
)

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
	fmt.Fprintf(b, "\n## A repair session for failing checks\n\nA `delivery` step's repair loop starts a session of the built-in `cairn-repair` skill, from `step/prompts/repair.md.tmpl`, for each failing round of the pull request's checks, up to the effective repair cap. Here the second round of the `deliver` step of a `fix-issue` process, whose test check fails.\n\n````markdown\n%s````\n", checks)
	rebase, err := RepairPrompt(exampleRebase)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(b, "\n## A repair session for a conflict with the base\n\nWhen the branch conflicts with its base, cairn rebases it and, when the rebase stops on conflicts, a repair session resolves them.\n\n````markdown\n%s````\n", rebase)
	return b.String(), nil
}
