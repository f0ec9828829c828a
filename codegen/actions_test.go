package codegen

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/goccy/go-yaml"
)

// TestWorkflowGraph compiles a plan of a step, a parallel group and a last
// step to a workflow: a first job that keeps the functions the steps share,
// one job per step, the group's members siblings with the same needs, each
// later job taking the earlier steps' results, a worktree's changes
// travelling from the job that last worked in it (which keeps them under
// the worktree's name), and a last job that needs them all.
func TestWorkflowGraph(t *testing.T) {
	cmd := func(name, wt, group string) ir.PlanStep {
		return ir.PlanStep{Name: name, Worktree: wt, Parallel: group, Actions: []ir.PlanAction{{Kind: ir.Command, Command: "echo " + name}}}
	}
	plan := &ir.Plan{
		Process: "p", File: "p.toml",
		Worktrees: []ir.PlanWorktree{{Name: "a", Kind: ir.Throwaway}, {Name: "b", Kind: ir.Throwaway}, {Name: "c", Kind: ir.Checkout}},
		Stages: [][]ir.PlanStep{
			{cmd("1st", "a", "")},
			{cmd("left", "b", "g"), cmd("right", "c", "g")},
			{cmd("last", "a", "")},
		},
	}
	out, diags := Actions(plan, Inputs{})
	if ir.HasErrors(diags) || len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	var wf struct {
		Jobs map[string]struct {
			Needs []string `yaml:"needs"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(out, &wf); err != nil {
		t.Fatal(err)
	}
	const (
		result  = "cairn-result-${{ steps.run.outputs.step }}"
		changes = "cairn-worktree-${{ steps.run.outputs.patch }}"
		folder  = "cairn-run-${{ steps.run.outputs.step }}"
	)
	type job struct {
		needs, takes, keeps []string
		patch               string
	}
	want := map[string]job{
		"runtime": {nil, nil, []string{"cairn-functions"}, ""},
		"_1st":    {[]string{"runtime"}, []string{"cairn-functions"}, []string{result, changes, folder}, "a"},
		"left":    {[]string{"_1st"}, []string{"cairn-functions", "cairn-result-*"}, []string{result, folder}, ""},
		"right":   {[]string{"_1st"}, []string{"cairn-functions", "cairn-result-*"}, []string{result, folder}, ""},
		"last":    {[]string{"left", "right"}, []string{"cairn-functions", "cairn-result-*", "cairn-worktree-a"}, []string{result, folder}, ""},
		"results": {[]string{"_1st", "left", "right", "last"}, []string{"cairn-run-1st", "cairn-run-left", "cairn-run-right", "cairn-run-last"}, []string{"cairn-run"}, ""},
	}
	if len(wf.Jobs) != len(want) {
		t.Errorf("jobs %v; want %d", slices.Collect(maps.Keys(wf.Jobs)), len(want))
	}
	for id, w := range want {
		j, ok := wf.Jobs[id]
		if !ok {
			t.Errorf("no job %q", id)
			continue
		}
		var takes, keeps []string
		for _, st := range j.Steps {
			switch {
			case strings.HasPrefix(st.Uses, "actions/download-artifact@"):
				takes = append(takes, st.With["name"]+st.With["pattern"])
			case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
				keeps = append(keeps, st.With["name"])
			case strings.Contains(st.Run, "\njob_patch="):
				if !strings.Contains(st.Run, "\njob_patch='"+w.patch+"'\n") {
					t.Errorf("job %s: its script keeps the changes of another worktree than %q:\n%s", id, w.patch, st.Run)
				}
			}
		}
		if !slices.Equal(j.Needs, w.needs) || !slices.Equal(takes, w.takes) || !slices.Equal(keeps, w.keeps) {
			t.Errorf("job %s: needs %v, takes %v, keeps %v; want %v, %v, %v", id, j.Needs, takes, keeps, w.needs, w.takes, w.keeps)
		}
	}
}

// TestWorkflowGroupCommit compiles a plan in commit mode with a parallel
// group to a workflow: the group is one job, _group_FIRST, which takes the
// changes an earlier job left in a member's worktree, keeps its members'
// results in one artifact and the changes a later job takes under the
// worktree's name, and whose script runs both members; the last job takes
// the run folder the group's job kept once, under its first member's name.
func TestWorkflowGroupCommit(t *testing.T) {
	cmd := func(name, wt, group string) ir.PlanStep {
		return ir.PlanStep{Name: name, Worktree: wt, Parallel: group, Actions: []ir.PlanAction{{Kind: ir.Command, Command: "echo " + name}}}
	}
	plan := &ir.Plan{
		Process: "p", File: "p.toml", Commit: true,
		Worktrees: []ir.PlanWorktree{{Name: "a", Kind: ir.Throwaway}, {Name: "c", Kind: ir.Checkout}},
		Stages: [][]ir.PlanStep{
			{cmd("1st", "a", "")},
			{cmd("left", "a", "g"), cmd("right", "c", "g")},
			{cmd("last", "a", "")},
		},
	}
	out, diags := Actions(plan, Inputs{})
	if ir.HasErrors(diags) || len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	var wf struct {
		Jobs map[string]struct {
			Name  string   `yaml:"name"`
			Needs []string `yaml:"needs"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(out, &wf); err != nil {
		t.Fatal(err)
	}
	const (
		result  = "cairn-result-${{ steps.run.outputs.step }}"
		changes = "cairn-worktree-${{ steps.run.outputs.patch }}"
		folder  = "cairn-run-${{ steps.run.outputs.step }}"
		commits = "cairn-commits"
	)
	type job struct {
		needs, takes, keeps []string
	}
	want := map[string]job{
		"runtime":     {nil, nil, []string{"cairn-functions"}},
		"_1st":        {[]string{"runtime"}, []string{"cairn-functions"}, []string{result, changes, folder, commits}},
		"_group_left": {[]string{"_1st"}, []string{"cairn-functions", "cairn-result-*", commits, "cairn-worktree-a"}, []string{result, "cairn-worktree-a", folder, commits}},
		"last":        {[]string{"_group_left"}, []string{"cairn-functions", "cairn-result-*", commits, "cairn-worktree-a"}, []string{result, folder, commits}},
		"results":     {[]string{"_1st", "_group_left", "last"}, []string{"cairn-run-1st", "cairn-run-left", "cairn-run-last"}, []string{"cairn-run"}},
		"push":        {[]string{"_1st", "_group_left", "last"}, []string{commits}, nil},
	}
	if len(wf.Jobs) != len(want) {
		t.Errorf("jobs %v; want %d", slices.Collect(maps.Keys(wf.Jobs)), len(want))
	}
	for id, w := range want {
		j, ok := wf.Jobs[id]
		if !ok {
			t.Errorf("no job %q", id)
			continue
		}
		var takes, keeps []string
		for _, st := range j.Steps {
			switch {
			case strings.HasPrefix(st.Uses, "actions/download-artifact@"):
				takes = append(takes, st.With["name"]+st.With["pattern"])
			case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
				keeps = append(keeps, st.With["name"])
				if id == "_group_left" && st.With["name"] == result && st.With["path"] != "${{ steps.run.outputs.folder }}/results/left.md\n${{ steps.run.outputs.folder }}/results/right.md\n" {
					t.Errorf("the group's job keeps results %q; want left's and right's", st.With["path"])
				}
			case id == "_group_left" && strings.Contains(st.Run, "\nstep_names=("):
				if !strings.Contains(st.Run, "\nstep_names=('left' 'right')\n") || !strings.Contains(st.Run, " run_stage 0 1\n") ||
					!strings.Contains(string(out), "job_patches=('a')\n") {
					t.Errorf("the group's job does not run both members at once, keeping a's changes:\n%s", st.Run)
				}
			}
		}
		if !slices.Equal(j.Needs, w.needs) || !slices.Equal(takes, w.takes) || !slices.Equal(keeps, w.keeps) {
			t.Errorf("job %s: needs %v, takes %v, keeps %v; want %v, %v, %v", id, j.Needs, takes, keeps, w.needs, w.takes, w.keeps)
		}
	}
	if name := wf.Jobs["_group_left"].Name; name != "parallel group g: left, right" {
		t.Errorf("the group's job is named %q", name)
	}
}

// TestJobScript restricts a script to one step's job: its step alone,
// renumbered, the earlier steps given, its worktree alone, and no [notify].
func TestJobScript(t *testing.T) {
	plan := &ir.Plan{
		Process: "p", File: "p.toml",
		Worktrees: []ir.PlanWorktree{{Name: "a", Kind: ir.Throwaway}, {Name: "b", Kind: ir.Throwaway}},
		Stages: [][]ir.PlanStep{
			{{Name: "one", Worktree: "a", Actions: []ir.PlanAction{{Kind: ir.Command, Command: "true"}}}},
			{{Name: "two", Worktree: "b", Actions: []ir.PlanAction{{Kind: ir.Session, Prompt: "Hi.", Harness: &ir.Setting{Value: "claude"}}}}},
		},
		Notify: ir.PlanNotify{Command: []string{"true"}},
	}
	out, diags := Actions(plan, Inputs{})
	if ir.HasErrors(diags) {
		t.Fatal(diags)
	}
	if !strings.Contains(string(out), "  two:\n") {
		t.Fatalf("no job two:\n%s", out)
	}
	c := &compiler{plan: plan, in: Inputs{Harnesses: harness.NewRegistry(nil)}, at: newPlaces(plan, nil), target: actionsInfo}
	s, diags := c.script()
	if ir.HasErrors(diags) {
		t.Fatal(diags)
	}
	j, err := c.jobScript(s, []string{"two"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Steps) != 1 || j.Steps[0].Name != "two" || j.Steps[0].Index != 0 {
		t.Errorf("steps %+v; want two, renumbered 0", j.Steps)
	}
	if !slices.Equal(j.ProcessSteps, []string{"one", "two"}) || len(j.Steps[0].Earlier) != 1 {
		t.Errorf("process steps %v, %d earlier; want [one two] and the first given", j.ProcessSteps, len(j.Steps[0].Earlier))
	}
	if len(j.Worktrees) != 1 || j.Worktrees[0].Name != "b" {
		t.Errorf("worktrees %v; want b alone", j.Worktrees)
	}
	if len(j.Harnesses) != 1 || !j.HasSessions || j.Notify != nil {
		t.Errorf("harnesses %v, sessions %v, notify %v", j.Harnesses, j.HasSessions, j.Notify)
	}
	if !strings.Contains(j.RecordSteps, `"name":"two"`) || strings.Contains(j.RecordSteps, `"name":"one"`) {
		t.Errorf("record steps %s; want two's alone", j.RecordSteps)
	}
}

// TestHeaderHashesSkills names the process file in the header of every
// target, and hashes the file with the skills the artifact embeds: a skill
// that changes makes the artifact stale, a cairn that changes does not
// show in it.
func TestHeaderHashesSkills(t *testing.T) {
	plan := &ir.Plan{
		Process: "p", File: "p.toml",
		Worktrees: []ir.PlanWorktree{{Name: "default", Kind: ir.Throwaway, Implicit: true}},
		Stages: [][]ir.PlanStep{{{Name: "ask", Worktree: "default", Actions: []ir.PlanAction{{
			Kind: ir.Session, Harness: &ir.Setting{Value: "claude"},
			Skill: &ir.PlanSkill{Name: "triage", Path: "/home/skills/triage/SKILL.md", Source: ir.SkillHome},
		}}}}},
	}
	headers := map[string]bool{}
	for _, body := range []string{"Triage it.", "Triage it twice."} {
		for _, target := range []func(*ir.Plan, Inputs) ([]byte, []ir.Diagnostic){Bash, Actions} {
			out, diags := target(plan, Inputs{Source: []byte("version = 1\n"), ReadFile: func(string) ([]byte, error) { return []byte(body), nil }})
			if ir.HasErrors(diags) {
				t.Fatal(diags)
			}
			text := strings.TrimPrefix(string(out), "#!/usr/bin/env bash\n")
			lines := strings.SplitN(text, "\n", 3)
			if lines[0] != "# Generated by cairn compile from p.toml; do not edit." || !strings.HasPrefix(lines[1], "# source sha256:") {
				t.Fatalf("header %q", lines[:2])
			}
			headers[body+lines[1]] = true
		}
	}
	if len(headers) != 2 {
		t.Errorf("headers %v: want one per skill text, the same for both targets", headers)
	}
}
