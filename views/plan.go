package views

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/ir"
)

// planView is a plan laid out for WritePlan: every value already worded
// and padded into columns, so that WritePlan only places lines. Its
// stages are worded one at a time, as WritePlan places them
// (newStageView): a plan of thousands of steps is never held worded
// whole.
type planView struct {
	Process     string
	File        string
	Description string
	Facts       []string
	Worktrees   []string
	Harnesses   []string
}

// stageView is one stage: its heading and its steps.
type stageView struct {
	Number int
	Title  string
	Steps  []stepView
}

// stepView is one step: its heading, its where-and-how line, its actions and
// the lines of its phases and env.
type stepView struct {
	Title   string
	Details string
	Actions []actionView
	Phases  []phaseView
	Env     string
	Output  string
}

// actionView is one action's heading line and its resolved settings.
type actionView struct {
	Head     string
	Settings []string
}

// phaseView is a precheck or validate phase: a summary and its shells and
// instructions, first line each.
type phaseView struct {
	Head  string
	Lines []string
}

// labelWidth is the width of a step's labels ("max turns", "catalogue")
// before their values; factWidth that of the process's ("repair cap").
const (
	labelWidth = 10
	factWidth  = 11
)

// WritePlan writes p as text for a human: the process and its limits, the
// worktrees, each stage with its steps and their resolved settings and where
// each came from, and each harness's preflight. noRepo says cairn ran outside
// a git repository. The view words and pads every value; this only places
// the lines, into a buffer: w itself when it is one (a *bufio.Writer, whose
// owner flushes it and sees its error, or a *bytes.Buffer), else one of its
// own, flushed here.
func WritePlan(w io.Writer, p *ir.Plan, noRepo bool, st Style) error {
	v := newPlanView(p, noRepo, st)
	b, shared := w.(buffer)
	var own *bufio.Writer
	if !shared {
		own = bufio.NewWriter(w)
		b = own
	}
	line := func(indent int, parts ...string) {
		b.WriteByte('\n')
		for range indent {
			b.WriteString("  ")
		}
		for _, s := range parts {
			b.WriteString(s)
		}
	}
	bold := func(s string) string { return st.paint(ansiBold, s) }
	b.WriteString(bold("process") + " " + bold(v.Process) + " (" + v.File + ")")
	if v.Description != "" {
		line(1, v.Description)
	}
	for _, f := range v.Facts {
		line(1, f)
	}
	b.WriteByte('\n')
	line(0, bold("worktrees"))
	for _, wt := range v.Worktrees {
		line(1, wt)
	}
	needsShown := p.WritesNeeds()
	for i, steps := range p.Stages {
		stage := newStageView(i, steps, needsShown)
		b.WriteByte('\n')
		line(0, bold("stage "+strconv.Itoa(stage.Number)+":"), " ", stage.Title)
		for _, s := range stage.Steps {
			line(1, bold("step"), " ", s.Title)
			line(2, s.Details)
			for _, a := range s.Actions {
				line(2, a.Head)
				for _, set := range a.Settings {
					line(3, set)
				}
			}
			for _, ph := range s.Phases {
				line(2, ph.Head)
				for _, l := range ph.Lines {
					line(3, l)
				}
			}
			if s.Env != "" {
				line(2, s.Env)
			}
			if s.Output != "" {
				line(2, s.Output)
			}
		}
	}
	if len(v.Harnesses) > 0 {
		b.WriteByte('\n')
		line(0, bold("harnesses"))
		for _, h := range v.Harnesses {
			line(1, h)
		}
	}
	b.WriteByte('\n')
	if shared {
		return nil
	}
	return own.Flush()
}

// buffer is a writer that takes strings and bytes as they come, into
// memory: a *bufio.Writer or a *bytes.Buffer.
type buffer interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// newPlanView words p for WritePlan.
func newPlanView(p *ir.Plan, noRepo bool, st Style) planView {
	v := planView{Process: p.Process, File: p.File, Description: p.Description}
	v.Facts = planFacts(p, noRepo)
	v.Worktrees = columns(worktreeRows(p.Worktrees))
	width := 0
	for _, h := range p.Harnesses {
		width = max(width, len([]rune(h.Name)))
	}
	for _, h := range p.Harnesses {
		status := preflight(h)
		switch {
		case h.Checked && h.OK && h.LoggedIn != nil && !*h.LoggedIn:
			status = st.paint(ansiYellow, status)
		case h.Checked && h.OK:
			status = st.paint(ansiGreen, status)
		case h.Checked:
			status = st.paint(ansiRed, status)
		}
		v.Harnesses = append(v.Harnesses, fmt.Sprintf("%-*s  %s", width, h.Name, status))
	}
	return v
}

// newStageView words stage i of a plan (with what each step waits for
// when needsShown).
func newStageView(i int, stage []ir.PlanStep, needsShown bool) stageView {
	sv := stageView{Number: i + 1, Title: stageTitle(stage), Steps: make([]stepView, len(stage))}
	for j, s := range stage {
		sv.Steps[j] = newStepView(s, needsShown)
	}
	return sv
}

// planFacts are the process-wide lines under the plan's heading.
func planFacts(p *ir.Plan, noRepo bool) []string {
	var facts []string
	add := func(label, value string) { facts = append(facts, fmt.Sprintf("%-*s %s", factWidth, label, value)) }
	if noRepo {
		add("repository", "none (not in a git repository: repository skills are not looked up)")
	}
	if p.Issue != "" {
		add("issue", p.Issue)
	} else {
		add("issue", "none")
	}
	if p.Commit {
		add("commit", "yes: each step's work is committed, with the run's record")
	}
	add("repair cap", fmt.Sprintf("%d (%s)", p.Limits.RepairCap.Value, p.Limits.RepairCap.Source))
	if b := p.Limits.BudgetUSD; b != nil {
		add("budget", budget(b))
	}
	if b := p.Limits.DailyBudgetUSD; b != nil {
		add("daily cap", budget(b)+": every run of the UTC day")
	}
	if p.Limits.SelfMerge {
		add("self-merge", "allowed")
	} else {
		add("self-merge", "forbidden by the file")
	}
	if m := p.Limits.Merge; m.Value != "" {
		if v, err := strconv.ParseBool(m.Value); err == nil {
			m.Value = map[bool]string{true: "yes", false: "no"}[v]
		}
		add("merge", setting(&m))
	}
	if len(p.Limits.ProtectedPaths) > 0 {
		add("protected", strings.Join(p.Limits.ProtectedPaths, ", "))
	}
	if p.RunExpiry != "" || p.FailedRunExpiry != "" {
		add("expiry", fmt.Sprintf("%s, failed runs %s", orDash(p.RunExpiry), orDash(p.FailedRunExpiry)))
	}
	return facts
}

// worktreeRows are the worktrees' columns: name, kind, and where each starts.
func worktreeRows(ws []ir.PlanWorktree) [][]string {
	var rows [][]string
	for _, w := range ws {
		row := []string{w.Name, w.Kind}
		var more []string
		if w.Base != "" {
			more = append(more, "from "+w.Base)
		}
		if w.Branch != "" {
			more = append(more, "branch "+w.Branch)
		}
		if len(w.Copy) > 0 {
			globs := make([]string, len(w.Copy))
			for i, c := range w.Copy {
				globs[i] = c.Glob
				if c.Source == ir.CopyFromInclude {
					globs[i] += " (" + ir.WorktreeInclude + ")"
				}
			}
			more = append(more, "copies "+strings.Join(globs, " "))
		}
		if w.Setup != "" {
			more = append(more, "setup within "+w.SetupTimeout)
		}
		about := strings.Join(more, ", ")
		if w.Implicit {
			about += " (implicit: for steps that name no worktree)"
		}
		rows = append(rows, append(row, strings.TrimSpace(about)))
	}
	return rows
}

// needsWords says what step s waits for and where that came from: "needs
// a, b" as written, "needs a (the step before)" when it writes none, ""
// for a first step that writes none.
func needsWords(s ir.PlanStep) string {
	switch {
	case s.NeedsWritten && len(s.Needs) == 0:
		return "needs nothing (starts at once)"
	case s.NeedsWritten:
		return "needs " + strings.Join(s.Needs, ", ")
	case len(s.Needs) == 1:
		return "needs " + s.Needs[0] + " (the step before)"
	case len(s.Needs) > 1:
		return "needs " + strings.Join(s.Needs, ", ") + " (the group before)"
	}
	return ""
}

// stageTitle is a stage's heading after its number: the step's name, or the
// parallel group it runs.
func stageTitle(stage []ir.PlanStep) string {
	if len(stage) == 0 {
		return ""
	}
	if g := stage[0].Parallel; g != "" {
		return fmt.Sprintf("parallel group %q, %s run together", g, plural(len(stage), "step"))
	}
	return stage[0].Name
}

// newStepView words one step: its heading, where and how it runs (with
// what it waits for when needsShown), its actions, phases and env.
func newStepView(s ir.PlanStep, needsShown bool) stepView {
	v := stepView{Title: s.Name}
	if s.Description != "" {
		v.Title += ": " + s.Description
	}
	details := []string{"worktree " + s.Worktree}
	if needsShown {
		if w := needsWords(s); w != "" {
			details = append(details, w)
		}
	}
	if s.When != "" {
		details = append(details, "when "+strings.Join(strings.Fields(s.When), " "))
	}
	if s.ForEach != "" {
		details = append(details, fmt.Sprintf("for each item of %s (at most %d, each in a throwaway like %s)", strings.Join(strings.Fields(s.ForEach), " "), s.MaxItems, s.Worktree))
	}
	if s.Optional {
		details = append(details, "optional")
	}
	if s.Timeout != "" {
		details = append(details, "timeout "+s.Timeout)
	}
	v.Details = strings.Join(details, ", ")
	v.Actions = make([]actionView, 0, len(s.Actions))
	for _, a := range s.Actions {
		v.Actions = append(v.Actions, newActionView(a))
	}
	if s.Precheck != nil {
		v.Phases = append(v.Phases, newPhaseView("precheck", s.Precheck))
	}
	if s.Validate != nil {
		v.Phases = append(v.Phases, newPhaseView("validate", s.Validate))
	}
	if len(s.Env) > 0 {
		var env []string
		for _, e := range s.Env {
			env = append(env, e.Name+"="+shellWord(e.Value))
		}
		v.Env = labelled("env", strings.Join(env, " "))
	}
	if o := s.Output; o != nil {
		schema := o.Schema
		if schema == "" {
			schema = "(not read outside a repository)"
		}
		v.Output = labelled("output", fmt.Sprintf("%s (%s)", schema, o.Source))
	}
	return v
}

// newActionView words one action and, for a session, its resolved settings.
func newActionView(a ir.PlanAction) actionView {
	var v actionView
	switch a.Kind {
	case ir.Session:
		switch {
		case a.Skill != nil:
			v.Head = labelled("session", fmt.Sprintf("skill %s: %s (%s)", a.Skill.Name, a.Skill.Path, a.Skill.Source))
		default:
			v.Head = labelled("session", "prompt: "+firstLine(a.Prompt))
		}
		if a.Harness != nil {
			v.Settings = append(v.Settings, labelled("harness", setting(a.Harness)))
		}
		if a.Model != nil {
			v.Settings = append(v.Settings, labelled("model", setting(a.Model)))
		}
		if a.Effort != nil {
			v.Settings = append(v.Settings, labelled("effort", setting(a.Effort)))
		}
		if a.Access != nil {
			v.Settings = append(v.Settings, labelled("access", setting(a.Access)))
		}
		if a.Sandbox != nil {
			v.Settings = append(v.Settings, labelled("sandbox", a.Sandbox.Detail))
		}
		if a.MaxTurns != nil {
			turns := fmt.Sprintf("%d (%s)", a.MaxTurns.Value, a.MaxTurns.Source)
			if a.MaxTurns.Ignored != "" {
				turns = fmt.Sprintf("none: %s (%d from %s not passed)", a.MaxTurns.Ignored, a.MaxTurns.Value, a.MaxTurns.Source)
			}
			v.Settings = append(v.Settings, labelled("max turns", turns))
		}
		if a.BudgetUSD != nil {
			v.Settings = append(v.Settings, labelled("budget", budget(a.BudgetUSD)))
		}
	case ir.Command:
		v.Head = labelled("command", firstLine(a.Command))
	case ir.Catalogue:
		head := a.Catalogue
		var children []string
		if a.Process != "" {
			children = append(children, "process "+a.Process)
		}
		if a.SpecProcess != "" {
			children = append(children, "spec process "+a.SpecProcess)
		}
		if len(children) > 0 {
			head += ": " + strings.Join(children, ", ")
		}
		v.Head = labelled("catalogue", head)
	default:
		v.Head = labelled(string(a.Kind), "")
	}
	return v
}

// newPhaseView summarises a phase and lists the first line of each of its
// shells and instructions.
func newPhaseView(name string, ph *ir.PlanPhase) phaseView {
	var parts []string
	if n := len(ph.Shells); n > 0 {
		parts = append(parts, plural(n, "shell"))
	}
	if n := len(ph.Instructions); n > 0 {
		parts = append(parts, plural(n, "instruction"))
	}
	if n := len(ph.Whys); n > 0 {
		parts = append(parts, plural(n, "why"))
	}
	summary := strings.Join(parts, ", ")
	if ph.Severity != "" {
		summary += "; severity " + ph.Severity
	}
	if ph.Model != nil && len(ph.Instructions) > 0 {
		summary += "; judge model " + setting(ph.Model)
	}
	if ph.Access != nil && len(ph.Instructions) > 0 {
		summary += "; judge access " + setting(ph.Access)
	}
	v := phaseView{Head: labelled(name, strings.TrimPrefix(summary, "; "))}
	for _, s := range ph.Shells {
		v.Lines = append(v.Lines, "$ "+firstLine(s))
	}
	for _, s := range ph.Instructions {
		v.Lines = append(v.Lines, "- "+firstLine(s))
	}
	return v
}

// setting is a resolved value with where it came from: "opus (step, tier
// strong, built-in)" (or "config" for a tier [models.HARNESS] maps), or
// "(harness default)" when the harness's CLI chooses.
func setting(s *ir.Setting) string {
	if s.Value == "" {
		return "(harness default)"
	}
	if s.Passed != "" {
		// The CLI's own value first: it is what the session runs with.
		return fmt.Sprintf("%s (%s from %s)", s.Passed, s.Value, s.Source)
	}
	if s.Tier != "" && s.Tier != s.Value {
		if s.TierMap != "" {
			return fmt.Sprintf("%s (%s, tier %s, %s)", s.Value, s.Source, s.Tier, s.TierMap)
		}
		return fmt.Sprintf("%s (%s, tier %s)", s.Value, s.Source, s.Tier)
	}
	return fmt.Sprintf("%s (%s)", s.Value, s.Source)
}

// budget is a budget with where it came from: "$4.00 (config)".
func budget(b *ir.FloatSetting) string {
	return fmt.Sprintf("%s (%s)", ir.FormatUSD(b.Value), b.Source)
}

// preflight words a harness's preflight result.
func preflight(h ir.HarnessStatus) string {
	switch {
	case !h.Checked && h.Detail != "":
		return h.Detail
	case !h.Checked:
		return "not checked"
	case h.OK:
		return strings.TrimSpace("ok "+h.Detail) + login(h)
	}
	return "cannot start: " + h.Detail
}

// login words whether a harness that starts can log in, after its version.
func login(h ir.HarnessStatus) string {
	switch {
	case h.LoggedIn == nil && h.Login == "":
		return ""
	case h.LoggedIn == nil:
		return "; login unknown: " + h.Login
	case *h.LoggedIn:
		return "; logged in: " + h.Login
	}
	return "; not logged in: " + h.Login
}

// labelled pads label to labelWidth before value.
func labelled(label, value string) string {
	if value == "" {
		return label
	}
	// As fmt's %-*s would pad it, without fmt's cost on every line.
	pad := max(labelWidth-utf8.RuneCountInString(label), 0)
	return label + labelPadding[:pad] + " " + value
}

// labelPadding is the spaces labelled pads a label with.
const labelPadding = "          "

// columns pads each row's cells to their column's widest, two spaces apart.
func columns(rows [][]string) []string {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var out []string
	for _, row := range rows {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(c))))
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// firstLine is a script's or prompt's first non-blank line, with how many
// lines follow it.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	first, _, _ := strings.Cut(s, "\n")
	first = strings.TrimSpace(first)
	if n := strings.Count(s, "\n"); n > 0 {
		return first + " (+" + plural(n, "more line") + ")"
	}
	return first
}

// shellWord quotes an env value that would not read as one word.
func shellWord(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"'\\$`") {
		return strconv.Quote(s)
	}
	return s
}

// orDash is s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
