package codegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"mvdan.cc/sh/v3/syntax"
)

// scriptJob is what a script that runs as one job of a workflow needs
// besides its steps (bash/job.sh.tmpl): the worktree whose changes a later
// job takes (Patch; "" for none) and their file in the run folder's
// worktrees/ (Changes: a patch, or an issue branch's bundle), whether the
// workflow's delivery pushes with a token of the user's ([github]
// push_token: PushToken), and, for a step that runs sessions in a
// parallel group, the group's members in the order cairn run starts them
// (Members), whose shares of the run's budget the job gives as run does
// (bash/job_budget.sh.tmpl).
type scriptJob struct {
	Patch, Changes string
	PushToken      bool
	// Repairs is set in a workflow that unrolls a delivery's repair loop
	// into jobs (bash/repair.sh.tmpl), whose jobs are told their part in
	// it by the environment: a round's jobs run the same scripts as the
	// other rounds'.
	Repairs bool
	Members []string
	// Group is set for the job of a parallel group in commit mode, which
	// runs all its members (groupJob): each worktree but a checkout is then
	// a worktree of its own, and Patches are those whose changes a later
	// job takes.
	Group   bool
	Patches []string
	// EndsRun is set for the job of the last stage, which ends a run in
	// commit mode (bash/commit.sh.tmpl).
	EndsRun bool
}

// jobScript is s, the model of the whole process's script, restricted to
// the steps named (one stage's, or part of one) as a job of a workflow runs
// them: given the results of the steps of earlier stages, with the runner's
// checkout as their worktrees, and no [notify] (the workflow's end is
// GitHub's to announce), keeping the changes of worktree patch, which a
// later job takes, for the job's next step. Step semantics stay the
// script's own: the steps are the same models, renumbered.
func (c *compiler) jobScript(s *script, names []string, patch string) (*script, error) {
	j := *s
	j.Steps, j.StepNames, j.Harnesses, j.Bins, j.Skills, j.Worktrees = nil, nil, nil, nil, nil, nil
	j.HasSessions = false
	j.Notify, j.NotifyOn, j.NotifyOnSet = nil, nil, false
	j.Jobs = 0
	job := &scriptJob{Patch: patch, PushToken: c.pushToken() != "", Repairs: s.RepairJobs, Group: len(names) > 1}
	if job.Group {
		// The group's members run at once, as many at a time as the
		// script's.
		j.Jobs = s.Jobs
	}
	if patch != "" {
		job.Changes = patch + ".patch"
		if slices.ContainsFunc(s.Worktrees, func(w ir.PlanWorktree) bool { return w.Name == patch && w.Kind == ir.IssueBranch }) {
			job.Changes = patch + ".bundle"
		}
	}
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
	for _, stage := range s.Stages {
		// A job that runs the whole group gives its members their shares
		// as the script does.
		if len(stage) < 2 || !j.HasSessions || !slices.ContainsFunc(stage, func(i int) bool { return slices.Contains(names, s.Steps[i].Name) }) ||
			!slices.ContainsFunc(stage, func(i int) bool { return !slices.Contains(names, s.Steps[i].Name) }) {
			continue
		}
		for _, i := range stage {
			job.Members = append(job.Members, s.Steps[i].Name)
		}
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
	if s.Commit != nil {
		// The subjects of the job's steps, by their index in the job; the
		// run's record as the first job begins it.
		j.Commit = newScriptCommit(c.plan.Process, j.StepNames)
		j.Commit.RecordSteps = s.RecordSteps
	}
	j.Job = job
	// The whole process's features, so that the runtime is the same in
	// every job.
	whole := *s
	whole.Job = job
	whole.useFeatures()
	j.Features, j.Uses = whole.Features, whole.Uses
	return &j, nil
}

// repairJob makes j, the script of a delivery's job, that of a repair job
// of its repair loop: it runs the repair sessions of whole, the model of
// the whole process's script, with their CLI and skill.
func (j *script) repairJob(whole *script) {
	r := whole.Repair
	if r == nil || r.CLI == nil {
		return
	}
	j.HasSessions = true
	if i := slices.IndexFunc(whole.Harnesses, func(h scriptHarness) bool { return h.Name == r.CLI.Harness }); i >= 0 &&
		!slices.Contains(j.Harnesses, whole.Harnesses[i]) {
		j.Harnesses = append(j.Harnesses, whole.Harnesses[i])
	}
	j.Bins = appendDistinct(j.Bins, r.CLI.Bin)
	if i := slices.IndexFunc(whole.Skills, func(sk scriptSkill) bool { return sk.Var == r.SkillVar }); i >= 0 &&
		!slices.Contains(j.Skills, whole.Skills[i]) {
		j.Skills = append(j.Skills, whole.Skills[i])
	}
}

// pushToken is the secret [github] push_token names, "" for none.
func (c *compiler) pushToken() string {
	if p := c.in.Process; p != nil && p.GitHub.PushToken.Set && !p.GitHub.PushToken.Bad {
		return p.GitHub.PushToken.Value
	}
	return ""
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

// functionsFile is where the first job keeps what the steps' scripts share,
// and each step's job takes it (artifact functionsArtifact), for its
// script to read.
const (
	functionsFile     = `"$RUNNER_TEMP/cairn-functions.sh"`
	functionsArtifact = "cairn-functions"
)

// shared is what the scripts of a workflow's jobs share, defined once for
// the whole workflow: functions, and variables given a constant (the jq
// programs), in the order of the first script that defines each.
type shared struct {
	stmts       []*syntax.Stmt
	funcs, vars []string
}

// definition is the name a top-level statement of a script defines that
// could be shared, with its kind ("function" or "variable"), or "" when
// it defines none: a function, or one variable given a constant, a value
// that expands nothing, or an array of constants.
func definition(st *syntax.Stmt) (kind, name string) {
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
		return "", ""
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.FuncDecl:
		return "function", cmd.Name.Value
	case *syntax.CallExpr:
		if len(cmd.Args) > 0 || len(cmd.Assigns) != 1 {
			return "", ""
		}
		a := cmd.Assigns[0]
		if a.Append || a.Naked || a.Index != nil {
			return "", ""
		}
		switch {
		case a.Array != nil && a.Value == nil:
			for _, e := range a.Array.Elems {
				if e.Index != nil || e.Value == nil || !constant(e.Value.Parts) {
					return "", ""
				}
			}
		case a.Array == nil && a.Value != nil:
			if !constant(a.Value.Parts) {
				return "", ""
			}
		default:
			return "", ""
		}
		return "variable", a.Name.Value
	}
	return "", ""
}

// constant reports whether the parts of a word in an assignment's value
// expand nothing: quoted text, and unquoted text without a tilde (an
// assignment's value neither globs nor splits).
func constant(parts []syntax.WordPart) bool {
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.SglQuoted:
		case *syntax.Lit:
			if strings.Contains(p.Value, "~") {
				return false
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// sharedScripts splits the jobs' scripts (files, one per job, compacted)
// into what they share and what is left of each: its data, its own
// functions and its main, in order. A definition is shared when the
// scripts that make it make it once each, at the top level, with the same
// text, and no script could tell it was made earlier: a function no script
// defines elsewhere, or calls as a command without defining it (where the
// shared one would shadow the command); a variable no script sets
// otherwise, or names but as $NAME, or reads without defining it or before
// it does. Bash looks a function up when it is called, and a constant
// read only after its definition reads the same whenever it was made, so a
// job that makes the shared definitions before its script runs the same
// program.
func sharedScripts(files []*syntax.File) (*shared, []*syntax.File, error) {
	type def struct {
		stmt *syntax.Stmt
		text string
		bad  bool // made otherwise somewhere, or seen before it is made
	}
	defs := map[string]*def{}
	var order []string
	bad := func(key string) {
		if d, ok := defs[key]; ok {
			d.bad = true
		} else {
			defs[key] = &def{bad: true}
		}
	}
	defined := make([]map[string]int, len(files))
	for i, f := range files {
		defined[i] = map[string]int{}
		top := map[syntax.Node]bool{}
		for _, st := range f.Stmts {
			kind, name := definition(st)
			if kind == "" {
				continue
			}
			key := kind + " " + name
			if fd, ok := st.Cmd.(*syntax.FuncDecl); ok {
				top[fd] = true
			} else {
				top[st.Cmd.(*syntax.CallExpr).Assigns[0]] = true
			}
			defined[i][key]++
			text, err := printShell(st)
			if err != nil {
				return nil, nil, err
			}
			switch d, seen := defs[key]; {
			case !seen:
				defs[key] = &def{stmt: st, text: text}
				order = append(order, key)
			case d.text != text:
				d.bad = true
			}
		}
		// What each script does with the names: a definition it makes
		// elsewhere, a command it calls, a variable it names otherwise
		// than as $NAME, and the variables its top-level statements read
		// before they are made.
		called, read := map[string]bool{}, map[string]bool{}
		made := map[string]bool{}
		// names are the Lits that name what a definition, an
		// assignment or a $NAME is of, which the checks above see whole.
		names := map[*syntax.Lit]bool{}
		for _, st := range f.Stmts {
			if kind, name := definition(st); kind == "variable" {
				made[name] = true
			}
			_, isFunc := st.Cmd.(*syntax.FuncDecl)
			syntax.Walk(st, func(n syntax.Node) bool {
				switch n := n.(type) {
				case *syntax.FuncDecl:
					names[n.Name] = true
					if !top[n] {
						bad("function " + n.Name.Value)
					}
				case *syntax.CallExpr:
					if len(n.Args) > 0 {
						if lit := n.Args[0].Lit(); lit != "" {
							called[lit] = true
						}
					}
				case *syntax.Assign:
					if n.Name != nil {
						names[n.Name] = true
						if !top[n] {
							bad("variable " + n.Name.Value)
						}
					}
				case *syntax.ParamExp:
					if n.Param == nil {
						break
					}
					names[n.Param] = true
					name := n.Param.Value
					if n.Excl || n.Names != 0 || n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
						bad("variable " + name)
					}
					if !isFunc && !made[name] {
						read[name] = true
					}
				case *syntax.Lit:
					if !names[n] {
						bad("variable " + n.Value)
					}
				}
				return true
			})
		}
		for key, d := range defs {
			kind, name, _ := strings.Cut(key, " ")
			switch {
			case defined[i][key] > 1:
				d.bad = true
			case kind == "function" && defined[i][key] == 0 && called[name]:
				d.bad = true
			case kind == "variable" && read[name]:
				d.bad = true
			}
		}
	}
	sh := &shared{}
	share := map[string]bool{}
	for _, key := range order {
		d := defs[key]
		if d.bad {
			continue
		}
		share[key] = true
		sh.stmts = append(sh.stmts, d.stmt)
		kind, name, _ := strings.Cut(key, " ")
		if kind == "function" {
			sh.funcs = append(sh.funcs, name)
		} else {
			sh.vars = append(sh.vars, name)
		}
	}
	var rest []*syntax.File
	for _, f := range files {
		r := *f
		r.Stmts = nil
		for _, st := range f.Stmts {
			if kind, name := definition(st); kind != "" && share[kind+" "+name] {
				continue
			}
			r.Stmts = append(r.Stmts, st)
		}
		rest = append(rest, &r)
	}
	return sh, rest, nil
}

// jobRunScript is the run step of step's job: what is left of its script
// once the shared definitions are out (rest), reading them first. It is
// one group command under the shellcheck directives it needs (the first
// job's says why): a directive covers the command after it, and actionlint
// checks a run step with a command of its own before the script's first.
func jobRunScript(step string, rest *syntax.File) (string, error) {
	text, err := printShell(rest)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Step %q of `cairn compile --target bash`'s script, less what the first job keeps.\n", step)
	b.WriteString("# shellcheck disable=SC2016,SC2034\n{\n")
	b.WriteString("# shellcheck source=/dev/null\n")
	fmt.Fprintf(&b, "source %s\n", functionsFile)
	b.WriteString(text)
	b.WriteString("}\n")
	return b.String(), nil
}

// maxRunStep is the most bytes of script a run step of the first job
// holds: actionlint (1.7) never ends on a run step of 64 KiB or more.
const maxRunStep = 48 << 10

// sharedScript is the run steps of the first job, which make the shared
// definitions and keep them in functionsFile, as many as keep each under
// maxRunStep: written as code, so that actionlint's shellcheck reads them,
// and kept as bash prints them back (declare -f and -p), which reads as the
// same definitions.
func sharedScript(sh *shared) ([]string, error) {
	type chunk struct {
		text        strings.Builder
		funcs, vars []string
	}
	var chunks []*chunk
	for _, st := range sh.stmts {
		text, err := printShell(st)
		if err != nil {
			return nil, err
		}
		if len(chunks) == 0 || chunks[len(chunks)-1].text.Len()+len(text) > maxRunStep {
			chunks = append(chunks, &chunk{})
		}
		c := chunks[len(chunks)-1]
		c.text.WriteString(text + "\n\n")
		if kind, name := definition(st); kind == "function" {
			c.funcs = append(c.funcs, name)
		} else {
			c.vars = append(c.vars, name)
		}
	}
	if len(chunks) == 0 {
		chunks = append(chunks, &chunk{})
	}
	var scripts []string
	for i, c := range chunks {
		var b strings.Builder
		b.WriteString("# The functions the scripts of every step's job share, and their constants, as `cairn compile\n")
		b.WriteString("# --target bash` writes them (without their comments), kept in $RUNNER_TEMP/cairn-functions.sh,\n")
		b.WriteString("# which every step's job takes (artifact " + functionsArtifact + ") for its script to read. What a process\n")
		b.WriteString("# file gives and the jq programs are data, in single quotes: their $ and backticks expand only\n")
		b.WriteString("# in the shell or jq that runs them (SC2016). The functions set variables that only the jobs'\n")
		b.WriteString("# scripts read, and the scripts variables that only the functions read (SC2034). A self-merge's\n")
		b.WriteString("# protected paths are globs, which its function matches unquoted (SC2053).\n")
		b.WriteString("# shellcheck disable=SC2016,SC2034,SC2053\n{\n")
		b.WriteString(c.text.String())
		words := func(line string, names []string, end string) {
			b.WriteString(line)
			width := len(line)
			for i, name := range names {
				sep := " "
				if i == 0 && strings.HasSuffix(line, "(") {
					sep = ""
				}
				if width+len(sep)+len(name) > 100 {
					b.WriteString(" \\\n ")
					width, sep = 1, " "
				}
				b.WriteString(sep + name)
				width += len(sep) + len(name)
			}
			b.WriteString(end + "\n")
		}
		if i == 0 {
			fmt.Fprintf(&b, ": >%s\n", functionsFile)
		}
		if len(c.funcs) > 0 {
			words("declare -f", c.funcs, " >>"+functionsFile)
		}
		if len(c.vars) > 0 {
			// shellcheck takes the names declare -p is given for unquoted
			// expansions of the variables (SC2090): they go through an array.
			words("cairn_shared_variables=(", c.vars, ")")
			fmt.Fprintf(&b, "declare -p \"${cairn_shared_variables[@]}\" >>%s\n", functionsFile)
		}
		b.WriteString("}\n")
		scripts = append(scripts, b.String())
	}
	return scripts, nil
}
