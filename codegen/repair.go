package codegen

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/skills"
	"github.com/cairn-dev/cairn/step/prompts"
)

// The script's variables the slots of a repair session's prompt stand for
// (bash/repair.sh.tmpl).
const (
	varPullRequest  = "pr_url"
	varBranch       = "issue_branch"
	varBase         = "pr_base"
	varRound        = "repair_round"
	varIssueFile    = "issue_file"
	varCheckName    = "check_name"
	varCheckFlow    = "check_workflow"
	varCheckDesc    = "check_description"
	varCheckLink    = "check_link"
	varCheckLog     = "check_log"
	varCheckFence   = "check_fence"
	varCheckLogErr  = "check_log_error"
	varConflictPath = "conflict_path"
)

// scriptRepair is a delivery's repair loop (bash/repair.sh.tmpl), as
// catalogue/delivery.go runs it: at most Cap sessions of CLI, each
// following the built-in skill SkillName (held in the script's variable
// SkillVar), given the prompt the script composes from the parts below.
type scriptRepair struct {
	Cap       int
	CLI       *scriptCLI
	SkillName string
	SkillVar  string
	// Checks and Conflicts are the prompt of a session that repairs
	// failing checks or a rebase's conflicts: Intro, IssueFile when the
	// issue's file is in the worktree, Head, each check (Check) or path
	// (Conflict), then Tail.
	Checks, Conflicts repairPrompt
	IssueFile         BashWord
	// Check is what the prompt says of one failing check: its rows are
	// whether it has a workflow, a description and a link (4, 2 and 1 of
	// the row's number); its columns, no log, a log gh could not give,
	// its log, and its log cut.
	Check    factored
	Conflict BashWord
}

// repairPrompt is a repair prompt around its list of checks or paths.
type repairPrompt struct {
	Intro, Head, Tail BashWord
}

// RepairLogBytes is how much of a failing check's log, its end, a repair
// prompt holds (prompts.MaxCheckLog).
func (r *scriptRepair) RepairLogBytes() int { return prompts.MaxCheckLog }

// repair is the script's repair loop of a delivery, the plan's repair
// session a, at the plan's repair cap; the built-in skill it follows is
// added to s's skills (skillVars).
func (c *compiler) repair(a *ir.PlanAction, skillVars map[string]string, s *script) (*scriptRepair, error) {
	if a == nil || a.Harness == nil || a.Skill == nil {
		return nil, errors.New("the plan names no harness or skill for its sessions")
	}
	h, ok := c.in.Harnesses.Lookup(a.Harness.Value)
	if !ok {
		return nil, fmt.Errorf("unknown harness %q", a.Harness.Value)
	}
	if a.Skill.Source != ir.SkillBuiltin {
		return nil, fmt.Errorf("its skill %q is not cairn's own", a.Skill.Name)
	}
	body, ok := skills.Get(strings.TrimPrefix(a.Skill.Path, "builtin:"))
	if !ok {
		return nil, fmt.Errorf("cairn has no built-in skill %q", a.Skill.Name)
	}
	cli, err := c.cli(h, sessionInvocation(a, ""))
	if err != nil {
		return nil, err
	}
	r := &scriptRepair{Cap: c.plan.Limits.RepairCap.Value, SkillName: a.Skill.Name}
	if err := r.prompts(prompts.RepairData{Process: c.plan.Process, Rounds: r.Cap, Skill: a.Skill.Name, Limit: prompts.CheckLogLimit}); err != nil {
		return nil, fmt.Errorf("its prompt cannot be compiled: %v", err)
	}
	r.SkillVar = s.skillVar(skillVars, a.Skill, body)
	r.CLI = s.addCLI(cli)
	s.Bins = appendDistinct(s.Bins, cli.Bin)
	s.addHarness(h.Name, cli.Bin)
	return r, nil
}

// prompts renders the repair prompt through prompts.RepairPrompt (as
// `cairn run` does) for the script to compose at run time, from d (the
// process, the cap, the skill's name and the log limit): with the step,
// the pull request, the branch, its base, the round, the worktree, the
// skill file and the issue as slots; with and without the issue's file;
// and the parts of one check and of one path, through prompts.RepairCheck
// and prompts.RepairConflict.
func (r *scriptRepair) prompts(d prompts.RepairData) error {
	s := newSlots("p", varStep, varPullRequest, varBranch, varBase, varRound, varWorktree, varSkill, varIssueURL, varIssueFile,
		varCheckName, varConflictPath)
	d.Step, d.PullRequest, d.Branch, d.Base = s.marker(varStep), s.marker(varPullRequest), s.marker(varBranch), s.marker(varBase)
	d.WorktreePath, d.SkillPath, d.IssueURL = s.marker(varWorktree), s.marker(varSkill), s.marker(varIssueURL)
	check := prompts.FailingCheck{Name: s.marker(varCheckName)}
	path := s.marker(varConflictPath)
	var err error
	var conflict BashWord
	for _, mode := range []struct {
		item  func() (string, error)
		set   func(d *prompts.RepairData, n int)
		parts *repairPrompt
		word  *BashWord
	}{
		{func() (string, error) { return prompts.RepairCheck(check, "", d.Limit) }, func(d *prompts.RepairData, n int) {
			d.Checks, d.Conflicts = nil, nil
			for range n {
				d.Checks = append(d.Checks, check)
			}
		}, &r.Checks, nil},
		{func() (string, error) { return prompts.RepairConflict(path) }, func(d *prompts.RepairData, n int) {
			d.Checks, d.Conflicts = nil, nil
			for range n {
				d.Conflicts = append(d.Conflicts, path)
			}
		}, &r.Conflicts, &conflict},
	} {
		item, err := mode.item()
		if err != nil {
			return err
		}
		render := func(n int, issueFile bool) (string, error) {
			dd := d
			mode.set(&dd, n)
			if issueFile {
				dd.IssueFile = s.marker(varIssueFile)
			}
			return numberSlot(s.marker(varRound), func(round int) (string, error) {
				dd.Round = round
				return prompts.RepairPrompt(dd)
			})
		}
		without, err := render(1, false)
		if err != nil {
			return err
		}
		with, err := render(1, true)
		if err != nil {
			return err
		}
		at, issue, ok := insertion(without, with)
		i := strings.Index(without, item)
		if !ok || i < at || strings.Count(without, item) != 1 {
			return errors.New("the prompt does not say the issue's file in one place before what it repairs")
		}
		two, err := render(2, false)
		if err != nil {
			return err
		}
		if two != without[:i]+item+item+without[i+len(item):] {
			return errors.New("the prompt does not list what it repairs one after another")
		}
		if r.IssueFile, err = s.word(issue); err != nil {
			return err
		}
		if mode.word != nil {
			if *mode.word, err = s.word(item); err != nil {
				return err
			}
		}
		for _, part := range []struct {
			text string
			into *BashWord
		}{{without[:at], &mode.parts.Intro}, {without[at:i], &mode.parts.Head}, {without[i+len(item):], &mode.parts.Tail}} {
			if *part.into, err = s.word(part.text); err != nil {
				return err
			}
		}
	}
	r.Conflict = conflict
	r.Check, err = repairCheckParts(d.Limit)
	return err
}

// repairCheckParts renders what a repair prompt says of one failing check
// through prompts.RepairCheck, by whether it has a workflow, a
// description and a link (the rows) and by its log (the columns), with its
// fields as slots.
func repairCheckParts(limit string) (factored, error) {
	s := newSlots("c", varCheckName, varCheckFlow, varCheckDesc, varCheckLink, varCheckLog, varCheckFence, varCheckLogErr)
	var texts [][]string
	for row := range 8 {
		c := prompts.FailingCheck{Name: s.marker(varCheckName)}
		if row&4 != 0 {
			c.Workflow = s.marker(varCheckFlow)
		}
		if row&2 != 0 {
			c.Description = s.marker(varCheckDesc)
		}
		if row&1 != 0 {
			c.Link = s.marker(varCheckLink)
		}
		var cols []string
		for col := range 4 {
			c.Log, c.Cut, c.LogError = "", col == 3, ""
			fence := ""
			switch col {
			case 1:
				c.LogError = s.marker(varCheckLogErr)
			case 2, 3:
				c.Log, fence = s.marker(varCheckLog), s.marker(varCheckFence)
			}
			t, err := prompts.RepairCheck(c, fence, limit)
			if err != nil {
				return factored{}, err
			}
			cols = append(cols, t)
		}
		texts = append(texts, cols)
	}
	return factor(s, texts)
}
