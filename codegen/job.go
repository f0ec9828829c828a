package codegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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

// compactScript is a job's script without its comments, parsed and
// reprinted by mvdan.cc/sh (the same program, as shfmt would print it): a
// workflow holds one per step and GitHub runs none over 500 KB.
func compactScript(step string, script []byte) (*syntax.File, string, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(script), step+".sh")
	if err != nil {
		return nil, "", err
	}
	text, err := printShell(f)
	return f, text, err
}

// printShell is node as mvdan.cc/sh prints it.
func printShell(node syntax.Node) (string, error) {
	var b bytes.Buffer
	if err := syntax.NewPrinter(syntax.Indent(2)).Print(&b, node); err != nil {
		return "", err
	}
	return b.String(), nil
}

// functionsFile is where each job keeps the functions its steps' scripts
// share, for its step's script to read.
const functionsFile = `"$RUNNER_TEMP/cairn-functions.sh"`

// sharedFunctions splits the jobs' scripts (files, one per job, compacted)
// into the functions they share, defined once for the whole workflow, and
// what is left of each: its data, its own functions and its main, in order.
// A function is shared when it is defined at the top level of the scripts
// that define it, once each, with the same text everywhere, and no script
// defines it elsewhere or calls a command of its name without defining it
// (where the shared one would shadow that command). Bash looks a function
// up when it is called, so a job that defines the shared functions before
// its own script runs the same program.
func sharedFunctions(files []*syntax.File) (shared []*syntax.Stmt, rest []*syntax.File, err error) {
	type definition struct {
		stmt *syntax.Stmt
		text string
		bad  bool // defined otherwise somewhere: not shared
	}
	defs := map[string]*definition{}
	var order []string
	defined := make([]map[string]int, len(files))
	called := make([]map[string]bool, len(files))
	for i, f := range files {
		defined[i], called[i] = map[string]int{}, map[string]bool{}
		top := map[*syntax.FuncDecl]bool{}
		for _, st := range f.Stmts {
			fd, ok := st.Cmd.(*syntax.FuncDecl)
			if !ok {
				continue
			}
			top[fd] = true
			name := fd.Name.Value
			defined[i][name]++
			text, err := printShell(st)
			if err != nil {
				return nil, nil, err
			}
			switch d, seen := defs[name]; {
			case !seen:
				defs[name] = &definition{stmt: st, text: text}
				order = append(order, name)
			case d.text != text:
				d.bad = true
			}
		}
		var nested []string
		syntax.Walk(f, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.FuncDecl:
				if !top[n] {
					nested = append(nested, n.Name.Value)
				}
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					if lit := n.Args[0].Lit(); lit != "" {
						called[i][lit] = true
					}
				}
			}
			return true
		})
		for _, name := range nested {
			if d, ok := defs[name]; ok {
				d.bad = true
			} else {
				defs[name] = &definition{bad: true}
			}
		}
	}
	share := map[string]bool{}
	for _, name := range order {
		d := defs[name]
		if d.bad {
			continue
		}
		ok := true
		for i := range files {
			if n := defined[i][name]; n > 1 || n == 0 && called[i][name] {
				ok = false
			}
		}
		if ok {
			share[name] = true
			shared = append(shared, d.stmt)
		}
	}
	for _, f := range files {
		r := *f
		r.Stmts = nil
		for _, st := range f.Stmts {
			if fd, ok := st.Cmd.(*syntax.FuncDecl); ok && share[fd.Name.Value] {
				continue
			}
			r.Stmts = append(r.Stmts, st)
		}
		rest = append(rest, &r)
	}
	return shared, rest, nil
}

// jobRunScript is the run step of step's job: what is left of its script
// once the shared functions are out (rest), reading them first. It is one
// group command under the shellcheck directives it needs: a directive
// covers the command after it, and actionlint checks a run step with a
// command of its own before the script's first.
func jobRunScript(step string, rest *syntax.File) (string, error) {
	text, err := printShell(rest)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Step %q as `cairn compile --target bash` writes it, restricted to this job, without its\n", step)
	b.WriteString("# comments and the functions every job shares (the step before defines them); compile the\n")
	b.WriteString("# process to bash to read the script whole.\n")
	b.WriteString("# The values the process file gives are data here, in single quotes: their $ and backticks\n")
	b.WriteString("# expand only in the shell that runs them (SC2016). It sets variables that only the shared\n")
	b.WriteString("# functions read (SC2034).\n")
	b.WriteString("# shellcheck disable=SC2016,SC2034\n{\n")
	b.WriteString("# The file's name is known only on the runner.\n")
	b.WriteString("# shellcheck source=/dev/null\n")
	fmt.Fprintf(&b, "source %s\n", functionsFile)
	b.WriteString(text)
	b.WriteString("}\n")
	return b.String(), nil
}

// functionsScript is the run step that defines the shared functions and
// keeps them in functionsFile: written as code, so that actionlint's
// shellcheck reads them, and kept by bash's declare -f, which prints each
// function's definition.
func functionsScript(shared []*syntax.Stmt) (string, error) {
	var b strings.Builder
	b.WriteString("# The functions the scripts of every job share, as `cairn compile --target bash` writes them\n")
	b.WriteString("# (without their comments), kept in $RUNNER_TEMP/cairn-functions.sh for the job's step to read.\n")
	b.WriteString("# Their jq programs are in single quotes, their $ jq's (SC2016); they set variables that only\n")
	b.WriteString("# the job's script reads (SC2034).\n")
	b.WriteString("# shellcheck disable=SC2016,SC2034\n{\n")
	var names []string
	for _, st := range shared {
		text, err := printShell(st)
		if err != nil {
			return "", err
		}
		b.WriteString(text + "\n\n")
		names = append(names, st.Cmd.(*syntax.FuncDecl).Name.Value)
	}
	b.WriteString("declare -f")
	width := len("declare -f")
	for _, name := range names {
		if width+1+len(name) > 100 {
			b.WriteString(" \\\n ")
			width = 1
		}
		b.WriteString(" " + name)
		width += 1 + len(name)
	}
	fmt.Fprintf(&b, " >%s\n}\n", functionsFile)
	return b.String(), nil
}
