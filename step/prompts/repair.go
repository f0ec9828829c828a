package prompts

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
// from (docs/design.md §7.8): the pull request and its branch, which round of how many
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
	checks := make([]repairCheck, 0, len(d.Checks))
	for _, c := range d.Checks {
		checks = append(checks, newRepairCheck(c, d.Limit))
	}
	var b strings.Builder
	if err := t.Execute(&b, struct {
		RepairData
		Checks []repairCheck
	}{d, checks}); err != nil {
		return "", fmt.Errorf("render the repair prompt of step %q: %w", d.Step, err)
	}
	return b.String(), nil
}

// repairCheck is a failing check as template "check" of repair.md.tmpl
// takes it: its log trimmed, the fence around it, and the words of how
// much of a log is kept.
type repairCheck struct {
	FailingCheck
	Fence, Limit string
}

// newRepairCheck is c as template "check" takes it; limit words how much
// of a log is kept.
func newRepairCheck(c FailingCheck, limit string) repairCheck {
	c.Log = strings.TrimRight(c.Log, "\n")
	return repairCheck{c, fence(c.Log), limit}
}

// RepairCheck renders what a repair prompt says of one failing check c
// (template "check" of repair.md.tmpl), its log as given within fence,
// limit wording how much of a log is kept: the prompt holds it once per
// check, as `cairn compile` composes it.
func RepairCheck(c FailingCheck, fence, limit string) (string, error) {
	return repairPart("check", repairCheck{c, fence, limit})
}

// RepairConflict renders what a repair prompt says of one conflicted path
// (template "conflict" of repair.md.tmpl).
func RepairConflict(path string) (string, error) {
	return repairPart("conflict", path)
}

// repairPart renders the template name of repair.md.tmpl with data.
func repairPart(name string, data any) (string, error) {
	t, err := repairTemplate()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render the repair prompt's %s: %w", name, err)
	}
	return b.String(), nil
}
