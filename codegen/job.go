package codegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cairn-dev/cairn/record"
	"mvdan.cc/sh/v3/syntax"
)

// scriptJob is what a script that runs as one job of a workflow needs
// besides its steps: the steps of earlier stages, whose results the earlier
// jobs may have left it (templates/bash_job.sh.tmpl).
type scriptJob struct {
	Given []string
}

// jobScript is s, the model of the whole process's script, restricted to
// the steps named (one stage's, or part of one) as a job of a workflow runs
// them: given the results of the steps of earlier stages, with the runner's
// checkout as their worktrees, and no [notify] (the workflow's end is
// GitHub's to announce). Step semantics stay the script's own: the steps
// are the same models, renumbered.
func (c *compiler) jobScript(s *script, names []string) (*script, error) {
	j := *s
	j.Steps, j.StepNames, j.Harnesses, j.Bins, j.Skills, j.Worktrees = nil, nil, nil, nil, nil, nil
	j.HasSessions = false
	j.Notify, j.NotifyOn, j.NotifyOnSet = nil, nil, false
	j.Jobs = 0
	job := &scriptJob{}
	var worktrees []string
	for _, st := range s.Steps {
		if !slices.Contains(names, st.Name) {
			continue
		}
		cp := *st
		cp.Index = len(j.Steps)
		j.Steps = append(j.Steps, &cp)
		j.StepNames = append(j.StepNames, cp.Name)
		worktrees = appendDistinct(worktrees, cp.Worktree)
		for _, e := range cp.Earlier {
			job.Given = appendDistinct(job.Given, e)
		}
		for _, a := range cp.Actions {
			if a.Session == nil {
				continue
			}
			j.HasSessions = true
			if i := slices.IndexFunc(s.Harnesses, func(h scriptHarness) bool { return h.Name == a.Session.Harness }); i >= 0 &&
				!slices.Contains(j.Harnesses, s.Harnesses[i]) {
				j.Harnesses = append(j.Harnesses, s.Harnesses[i])
				j.Bins = appendDistinct(j.Bins, s.Harnesses[i].Bin)
			}
			if v := a.Session.SkillVar; v != "" {
				if i := slices.IndexFunc(s.Skills, func(sk scriptSkill) bool { return sk.Var == v }); i >= 0 &&
					!slices.Contains(j.Skills, s.Skills[i]) {
					j.Skills = append(j.Skills, s.Skills[i])
				}
			}
		}
	}
	indices := make([]int, len(j.Steps))
	for i := range indices {
		indices[i] = i
	}
	j.Stages, j.LastStage = [][]int{indices}, indices
	for _, w := range s.Worktrees {
		if slices.Contains(worktrees, w.Name) {
			j.Worktrees = append(j.Worktrees, w)
		}
	}
	steps := []record.StepRecord{}
	for _, r := range record.PlanSteps(c.plan) {
		if slices.Contains(names, r.Name) {
			steps = append(steps, r)
		}
	}
	b, err := json.Marshal(steps)
	if err != nil {
		return nil, err
	}
	j.RecordSteps = string(b)
	j.Job = job
	return &j, nil
}

// compactScript is a job's script without its comments, reprinted by
// mvdan.cc/sh (the same program, as shfmt would print it): a workflow holds
// one per step and GitHub runs none over 500 KB. Its first lines say which
// step it runs and where its comments are. The script is one group command
// under the one shellcheck directive it needs (its values are data in single
// quotes): a directive covers the command after it, and actionlint checks a
// run step with a command of its own before the script's first.
func compactScript(step string, script []byte) (string, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(script), step+".sh")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "#!/usr/bin/env bash\n")
	fmt.Fprintf(&b, "# Step %q as `cairn compile --target bash` writes it, restricted to this job; compile\n", step)
	b.WriteString("# the process to bash to read the script with its comments.\n")
	b.WriteString("# shellcheck disable=SC2016\n{\n")
	if err := syntax.NewPrinter(syntax.Indent(2)).Print(&b, f); err != nil {
		return "", err
	}
	b.WriteString("}\n")
	return b.String(), nil
}
