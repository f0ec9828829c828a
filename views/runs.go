package views

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// RunList is what `cairn status` shows: runs, newest first, and the runs
// the activity log says were refused (leaving no run folder) or skipped,
// oldest first.
type RunList struct {
	Runs    []RunLine
	Refused []ActivityLine
	Skipped []ActivityLine
	// Now is when the list was made: a running run's duration runs to it.
	Now time.Time
	// Scope words whose runs these are, for the line saying there are
	// none: "of this repository", or "" for every run.
	Scope string
}

// RunLine is one run in `cairn status`. Error is set, and the rest but Name
// and Dir empty, when the run's record cannot be read.
type RunLine struct {
	Name    string      `json:"name"`
	Process string      `json:"process"`
	Status  string      `json:"status"`
	Start   time.Time   `json:"start"`
	End     *time.Time  `json:"end"`
	Steps   StepCounts  `json:"steps"`
	Failure *RunFailure `json:"failure"`
	Dir     string      `json:"dir"`
	Error   string      `json:"error,omitempty"`
	// Stubbed is set for a stubbed run (its agents answered from stubs).
	Stubbed bool `json:"stubbed,omitempty"`
	// Usage is what the run's sessions used (run.json's usage); left out
	// when they reported nothing.
	Usage ir.Usage `json:"usage,omitzero"`
}

// StepCounts counts a run's steps by outcome; Total counts them all,
// pending and running ones included.
type StepCounts struct {
	Total        int `json:"total"`
	Succeeded    int `json:"succeeded"`
	Failed       int `json:"failed"`
	Inconclusive int `json:"inconclusive"`
	Skipped      int `json:"skipped"`
	Cancelled    int `json:"cancelled"`
	Interrupted  int `json:"interrupted"`
}

// Done is how many steps ran to their end: succeeded, failed, inconclusive
// or skipped (its precheck ran and decided). A cancelled step never started
// and an interrupted one was stopped before its end, so neither is done:
// a run whose steps were all cancelled has done none of them.
func (c StepCounts) Done() int {
	return c.Succeeded + c.Failed + c.Inconclusive + c.Skipped
}

// RunFailure is why a failed run failed: its first failed step that is not
// optional and that step's cause, or, when no such step failed (the run was
// refused before its first step), no step and the run's own cause. Output
// is the last line a failed command of that step wrote, cut to a width that
// fits a line (often the error itself: "exit status 2" says little).
type RunFailure struct {
	Step   string `json:"step"`
	Cause  string `json:"cause"`
	Output string `json:"output,omitempty"`
}

// FailureText is "STEP: CAUSE (OUTPUT)", the step alone when no cause was
// given, the cause alone when no step failed.
func FailureText(f *RunFailure) string {
	var s string
	switch {
	case f.Cause == "":
		s = f.Step
	case f.Step == "":
		s = f.Cause
	default:
		s = f.Step + ": " + f.Cause
	}
	if f.Output != "" {
		s += " (" + f.Output + ")"
	}
	return s
}

// ActivityLine is a run the activity log names, which left no run folder: a
// Pass skipped while another ran, or a run refused before its first step.
type ActivityLine struct {
	Time    time.Time `json:"time"`
	Process string    `json:"process"`
	Reason  string    `json:"reason"`
}

// RunListOf is the list `cairn status` shows of runs, made at now: a line
// per run folder, then the refused and skipped runs of the activity log.
func RunListOf(runs *record.Runs, now time.Time) *RunList {
	l := &RunList{Now: now}
	if runs.Repo != "" {
		l.Scope = "of this repository"
	}
	for _, r := range runs.Folders {
		l.Runs = append(l.Runs, runLine(r))
	}
	l.Refused, l.Skipped = activityLines(runs.Refused), activityLines(runs.Skipped)
	return l
}

// runLine is a run folder's line in `cairn status`: its steps counted by
// outcome, and why it failed (record.FailureOf); only its name, folder and
// error when its record cannot be read.
func runLine(r record.RunInfo) RunLine {
	rec := r.Record
	if rec == nil {
		return RunLine{Name: r.Name, Dir: r.Dir, Status: statusUnreadable, Error: r.Err.Error()}
	}
	line := RunLine{
		Name:    r.Name,
		Process: rec.Process,
		Status:  string(rec.Status),
		Start:   rec.Start,
		End:     rec.End,
		Dir:     r.Dir,
		Failure: runFailure(record.FailureOf(rec)),
		Usage:   rec.Usage,
		Stubbed: rec.Stubbed,
	}
	line.Steps.Total = len(rec.Steps)
	for i := range rec.Steps {
		switch rec.Steps[i].Outcome {
		case record.Succeeded:
			line.Steps.Succeeded++
		case record.Failed:
			line.Steps.Failed++
		case record.Inconclusive:
			line.Steps.Inconclusive++
		case record.Skipped:
			line.Steps.Skipped++
		case record.Cancelled:
			line.Steps.Cancelled++
		case record.Interrupted:
			line.Steps.Interrupted++
		}
	}
	return line
}

// runFailure is the view of f; nil for nil.
func runFailure(f *record.Failure) *RunFailure {
	if f == nil {
		return nil
	}
	v := RunFailure(*f)
	return &v
}

// FailedLine is the one stderr line a run that failed at a step ends with:
// "cairn: failed at step X: CAUSE (LAST LINE OF ITS OUTPUT)"; "" when no
// step of steps failed that is not optional.
func FailedLine(steps []record.StepRecord) string {
	f := runFailure(record.FailureOf(&record.Record{Steps: steps}))
	if f == nil {
		return ""
	}
	return "cairn: failed at step " + FailureText(f)
}

// activityLines are runs of the activity log as `cairn status` lists them.
func activityLines(runs []record.ActivityRun) []ActivityLine {
	var out []ActivityLine
	for _, r := range runs {
		out = append(out, ActivityLine{Time: r.Time, Process: r.Process, Reason: r.Reason})
	}
	return out
}

// The statuses `cairn status` gives a section of their own, before the
// others.
const (
	statusRunning    = "running"
	statusCrashed    = "crashed"
	statusUnreadable = "unreadable"
)

// WriteText writes the list for a human: the running runs, the crashed
// ones, then the others, each under its heading, one aligned line per run
// (name, process, status, start, duration, what its sessions cost or "-",
// steps done of all, why it failed); then the refused runs, then the
// skipped ones.
func (l *RunList) WriteText(w io.Writer, st Style) error {
	var b strings.Builder
	if len(l.Runs) == 0 && len(l.Refused) == 0 && len(l.Skipped) == 0 {
		fmt.Fprintf(&b, "%s\n", strings.TrimSpace("no runs "+l.Scope))
		_, err := io.WriteString(w, b.String())
		return err
	}
	rows := make([][]string, len(l.Runs))
	for i, r := range l.Runs {
		rows[i] = l.row(r)
	}
	lines := columns(rows)
	sections := []struct {
		title string
		match func(RunLine) bool
	}{
		{"running", func(r RunLine) bool { return r.Status == statusRunning }},
		{"crashed", func(r RunLine) bool { return r.Status == statusCrashed }},
		{"recent", func(r RunLine) bool { return r.Status != statusRunning && r.Status != statusCrashed }},
	}
	for _, sec := range sections {
		var body []string
		for i, r := range l.Runs {
			if sec.match(r) {
				body = append(body, lines[i])
			}
		}
		writeSection(&b, st, sec.title, body)
	}
	writeSection(&b, st, "refused", activityText(l.Refused))
	writeSection(&b, st, "skipped", activityText(l.Skipped))
	_, err := io.WriteString(w, b.String())
	return err
}

// activityText is the aligned lines of runs the activity log names: when,
// the process, and the reason.
func activityText(runs []ActivityLine) []string {
	rows := make([][]string, 0, len(runs))
	for _, s := range runs {
		rows = append(rows, []string{clock(s.Time), orDash(s.Process), s.Reason})
	}
	return columns(rows)
}

// writeSection writes a heading and its indented lines, after a blank line
// when something came before; nothing when there are no lines.
func writeSection(b *strings.Builder, st Style, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	b.WriteString(st.paint(ansiBold, title) + "\n")
	for _, line := range lines {
		b.WriteString("  " + st.shown(line) + "\n")
	}
}

// row is the columns of one run's line.
func (l *RunList) row(r RunLine) []string {
	if r.Error != "" {
		return []string{r.Name, "-", statusUnreadable, "-", "-", "-", "-", r.Error}
	}
	duration := "-"
	switch {
	case r.End != nil:
		duration = ir.FormatDuration(r.End.Sub(r.Start))
	case r.Status == statusRunning:
		duration = ir.FormatDuration(l.Now.Sub(r.Start))
	}
	status := r.Status
	if r.Stubbed {
		status += " (stubbed)"
	}
	row := []string{r.Name, r.Process, status, clock(r.Start), duration, costText(r.Usage),
		fmt.Sprintf("%d/%d steps", r.Steps.Done(), r.Steps.Total)}
	if r.Failure != nil {
		row = append(row, FailureText(r.Failure))
	}
	return row
}

// costText is what u cost, as a log line words it ("~$0.0712" when cairn
// estimated it), or "-" when no session reported a cost.
func costText(u ir.Usage) string { return u.CostText() }

type jsonRunList struct {
	Version int            `json:"version"`
	Runs    []RunLine      `json:"runs"`
	Refused []ActivityLine `json:"refused"`
	Skipped []ActivityLine `json:"skipped"`
}

// WriteJSON writes the list as one JSON document:
// {"version":1,"runs":[{"name","process","status","start","end","steps":{…},
// "failure":{"step","cause"}|null,"dir"}],"refused":[{"time","process",
// "reason"}],"skipped":[…the same]}, arrays always present; indented for a
// person at a terminal.
func (l *RunList) WriteJSON(w io.Writer, indent bool) error {
	return writeJSON(w, jsonRunList{
		Version: ReportVersion,
		Runs:    nonNil(l.Runs),
		Refused: nonNil(l.Refused),
		Skipped: nonNil(l.Skipped),
	}, indent)
}

// RunShow is one run as `cairn show` shows it.
type RunShow struct {
	Name    string
	Dir     string
	Process string
	File    string
	SHA256  string
	Repo    string
	Status  string
	// Cause is the run's own cause of failure, recorded when it was
	// refused before its first step; "" otherwise.
	Cause     string
	Issue     string
	Directive string
	Host      string
	PID       int
	Start     time.Time
	End       *time.Time
	Expires   string
	// Stubbed is set for a stubbed run; Stubs is then the file its
	// stubs are kept in.
	Stubbed bool
	Stubs   string
	Steps   []ShownStep
	// Usage is what each step's sessions used, for the steps whose
	// sessions reported anything, in file order; Total is the run's.
	Usage []ShownUsage
	Total ir.Usage
	// Record is the run's record as it is written in run.json, which
	// --json prints with "dir" added.
	Record any
}

// ShownStep is one step of a shown run: its log line, and the absolute
// paths of its result and trace ("" when it has none).
type ShownStep struct {
	Line   string
	Result string
	Trace  string
	// Children are the folders of the child runs the step started
	// (run-published-issue).
	Children []string
	// Shells are the precheck and validate shells of the step that failed
	// in the last round of their phase, with the end of what they wrote.
	Shells []ShownShell
	// Items are the runs of a step with for_each, one per item, shown
	// under it.
	Items []ShownStep
}

// ShownUsage is what one step's sessions used, as `cairn show` tables it:
// all of them, and the judges' share.
type ShownUsage struct {
	Step   string
	Usage  ir.Usage
	Judges ir.Usage
}

// ShownShell is a precheck or validate shell that failed, as a run's
// progress and `cairn show` show it under its step: which shell it was,
// why it failed, the last lines it wrote (stdout and stderr together) out
// of how many, and the absolute paths of the files holding its streams.
//
// A failed command of a step's run phase shows the same way: What names it
// ("command", "run shell 2") in place of its phase and place, and Output is
// the absolute path of its result file when that holds its output, in place
// of the files of its streams.
type ShownShell struct {
	Phase  string
	Shell  int
	Round  int
	Cause  string
	Lines  int
	Tail   string
	Stdout string
	Stderr string
	What   string
	Output string
}

// RunShowOf is the run r as `cairn show` shows it: its record's facts, and
// each step's log line with the absolute paths of its result, trace and
// child runs, and the shells that failed it (FailedShells).
func RunShowOf(r *record.Run) *RunShow {
	rec := r.Record
	s := &RunShow{
		Name:      r.Name,
		Dir:       r.Dir,
		Process:   rec.Process,
		File:      rec.File,
		SHA256:    rec.SHA256,
		Repo:      rec.Repo,
		Status:    string(rec.Status),
		Cause:     rec.Cause,
		Issue:     rec.Issue,
		Directive: rec.Directive,
		Host:      rec.Host,
		PID:       rec.PID,
		Start:     rec.Start,
		End:       rec.End,
		Expires:   rec.Expires,
		Stubbed:   rec.Stubbed,
		Total:     rec.Usage,
		Record:    rec,
	}
	if rec.Stubbed {
		s.Stubs = filepath.Join(r.Dir, record.StubsFile)
	}
	for i := range rec.Steps {
		step := &rec.Steps[i]
		shown := ShownStep{
			Line:   r.Lines[i],
			Result: record.InRunFolder(r.Dir, step.Result),
			Trace:  record.InRunFolder(r.Dir, step.Trace),
			Shells: FailedShells(r.Dir, step),
		}
		for _, c := range step.Children {
			shown.Children = append(shown.Children, record.InRunFolder(r.Dir, c))
		}
		for k := range step.Items {
			it := &step.Items[k]
			shown.Items = append(shown.Items, ShownStep{
				Line:   r.ItemLines[i][k],
				Result: record.InRunFolder(r.Dir, it.Result),
				Trace:  record.InRunFolder(r.Dir, it.Trace),
				Shells: FailedShells(r.Dir, it),
			})
		}
		s.Steps = append(s.Steps, shown)
		if !step.Usage.IsZero() {
			s.Usage = append(s.Usage, ShownUsage{Step: step.Name, Usage: step.Usage, Judges: step.JudgeUsage})
		}
	}
	return s
}

// FailedShell is the failed shell s of a step as the progress and `cairn
// show` show it, its files' paths made absolute in the run folder dir.
func FailedShell(dir string, s *record.ShellRecord) ShownShell {
	return ShownShell{
		Phase:  string(s.Phase),
		Shell:  s.Shell,
		Round:  s.Round,
		Cause:  s.Cause,
		Lines:  s.Lines,
		Tail:   s.Tail,
		Stdout: record.InRunFolder(dir, s.Stdout),
		Stderr: record.InRunFolder(dir, s.Stderr),
	}
}

// FailedAction is the failed command i of step's run phase as its progress
// and `cairn show` show it: its output's end, and its result file (of the
// run folder dir) when that holds all of it and it is not empty. The only
// command of a step is "command"; one of several, a card's run shells,
// "run shell N".
func FailedAction(dir string, step *record.StepRecord, i int) ShownShell {
	a := &step.Actions[i]
	s := ShownShell{What: CommandWhat(len(step.Actions), i), Cause: a.Cause, Lines: a.Lines, Tail: a.Tail}
	if a.Output && a.Lines > 0 {
		s.Output = record.InRunFolder(dir, filepath.Join(record.ResultsDir, step.Name+".md"))
	}
	return s
}

// CommandWhat names command i of a step of n actions where its failure is
// shown: "command" alone, "run shell N" (from 1) among several.
func CommandWhat(n, i int) string {
	if n > 1 {
		return fmt.Sprintf("%s shell %d", ir.RunPhase, i+1)
	}
	return "command"
}

// FailedShells are the shells `cairn show` shows under step, of the run
// folder dir: those that failed in the last round of their phase, and a
// failed command of its run phase.
func FailedShells(dir string, step *record.StepRecord) []ShownShell {
	last := map[ir.PhaseKind]int{}
	for _, s := range step.Shells {
		last[s.Phase] = max(last[s.Phase], s.Round)
	}
	var out []ShownShell
	for i := range step.Shells {
		s := &step.Shells[i]
		if s.Status == record.ShellFail && s.Round == last[s.Phase] {
			out = append(out, FailedShell(dir, s))
		}
	}
	for i, a := range step.Actions {
		if a.Kind == ir.Command && a.Cause != "" {
			out = append(out, FailedAction(dir, step, i))
		}
	}
	return out
}

// ShellLines are the lines that show a failed shell under its step, in
// order: what failed, the last lines it wrote, then where its stdout and
// stderr are kept:
//
//	validate shell 2: exit status 1; the last 10 of its 57 lines of output:
//	| --- FAIL: TestParse (0.00s)
//	stdout  /home/me/.cairn/runs/x/shells/test.validate.2.stdout
//	stderr  /home/me/.cairn/runs/x/shells/test.validate.2.stderr
func ShellLines(s ShownShell) []string {
	what := s.What
	if what == "" {
		what = fmt.Sprintf("%s shell %d", s.Phase, s.Shell)
	}
	if s.Round > 1 {
		what += fmt.Sprintf(" (round %d)", s.Round)
	}
	if s.Cause != "" {
		what += ": " + s.Cause
	}
	var tail []string
	if s.Tail != "" {
		tail = strings.Split(s.Tail, "\n")
	}
	var lines []string
	switch {
	case s.Lines == 0 || len(tail) == 0:
		lines = append(lines, what+"; it wrote nothing")
	case len(tail) >= s.Lines:
		lines = append(lines, what+"; its output:")
	default:
		lines = append(lines, fmt.Sprintf("%s; the last %d of its %d lines of output:", what, len(tail), s.Lines))
	}
	for _, t := range tail {
		lines = append(lines, "| "+t)
	}
	switch {
	case s.Output != "":
		return append(lines, "output  "+s.Output)
	case s.Stdout == "" && s.Stderr == "":
		return lines
	}
	return append(lines, "stdout  "+s.Stdout, "stderr  "+s.Stderr)
}

// WriteText writes the run for a human: its facts, then each step's log
// line with its result and trace paths, and the shells that failed it;
// then, when a session reported what it used, a table of what each step's
// sessions used (usageTable) with the run's total.
func (s *RunShow) WriteText(w io.Writer, st Style) error {
	var b strings.Builder
	facts := [][]string{
		{"run", s.Name},
		{"folder", s.Dir},
		{"process", s.Process},
		{"file", s.File + sha(s.SHA256)},
		{"repository", orDash(s.Repo)},
		{"status", s.Status},
	}
	if s.Stubbed {
		facts = append(facts, []string{"stubbed", "yes: agents and catalogue steps answered from " + s.Stubs})
	}
	if s.Cause != "" {
		facts = append(facts, []string{"cause", s.Cause})
	}
	if s.Status == statusRunning {
		facts = append(facts, []string{"cairn", fmt.Sprintf("pid %d on %s", s.PID, orDash(s.Host))})
	}
	facts = append(facts, []string{"started", clock(s.Start)})
	if s.End != nil {
		facts = append(facts, []string{"ended", fmt.Sprintf("%s (%s)", clock(*s.End), ir.FormatDuration(s.End.Sub(s.Start)))})
	}
	if s.Expires != "" {
		facts = append(facts, []string{"expires", s.Expires})
	}
	facts = append(facts, []string{"issue", orDash(s.Issue)}, []string{"directive", orDash(s.Directive)})
	for _, line := range columns(facts) {
		b.WriteString(st.shown(line) + "\n")
	}
	if len(s.Steps) > 0 {
		b.WriteString("\n" + st.paint(ansiBold, "steps") + "\n")
	}
	for _, step := range s.Steps {
		writeShownStep(&b, st, step, "  ")
		for _, it := range step.Items {
			writeShownStep(&b, st, it, "    ")
		}
	}
	if len(s.Usage) > 0 {
		b.WriteString("\n" + st.paint(ansiBold, "usage") + "\n")
		for _, line := range usageTable(s.Usage, s.Total) {
			b.WriteString("  " + st.shown(line) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeShownStep writes step's log line, indented by indent, with its
// result and trace paths, the child runs it started and the shells that
// failed it, each further in.
func writeShownStep(b *strings.Builder, st Style, step ShownStep, indent string) {
	b.WriteString(indent + st.shown(step.Line) + "\n")
	if step.Result != "" {
		b.WriteString(indent + "  result  " + st.shown(step.Result) + "\n")
	}
	if step.Trace != "" {
		b.WriteString(indent + "  trace   " + st.shown(step.Trace) + "\n")
	}
	for _, c := range step.Children {
		b.WriteString(indent + "  child   " + st.shown(c) + "\n")
	}
	for _, sh := range step.Shells {
		for _, line := range ShellLines(sh) {
			b.WriteString(indent + "  " + st.shown(line) + "\n")
		}
	}
}

// usageTable is the aligned lines of `cairn show`'s usage table: a heading,
// a line per step, then the run's total. A figure no session reported is
// "-"; the judges column is the judges' cost within the step's; costs are
// rounded as a log line rounds them (run.json keeps them whole).
func usageTable(steps []ShownUsage, total ir.Usage) []string {
	rows := [][]string{{"step", "turns", "input", "cache read", "cache write", "output", "cost", "judges"}}
	row := func(name string, u, judges ir.Usage) []string {
		return []string{name, countText(u.Turns), countText(u.InputTokens), countText(u.CacheReadTokens),
			countText(u.CacheWriteTokens), countText(u.OutputTokens), costText(u), costText(judges)}
	}
	var judges ir.Usage
	for _, s := range steps {
		rows = append(rows, row(s.Step, s.Usage, s.Judges))
		judges = judges.Plus(s.Judges)
	}
	rows = append(rows, row("total", total, judges))
	return columns(rows)
}

// countText is n, or "-" when it is nil.
func countText(n *int64) string {
	if n == nil {
		return "-"
	}
	return strconv.FormatInt(*n, 10)
}

// sha is " (sha256 PREFIX)" for a file's digest, "" when there is none.
func sha(sum string) string {
	if sum == "" {
		return ""
	}
	return fmt.Sprintf(" (sha256 %.12s)", sum)
}

// WriteJSON writes the record as run.json holds it, with "dir", the run
// folder's absolute path, first; indented for a person at a terminal.
func (s *RunShow) WriteJSON(w io.Writer, indent bool) error {
	rec, err := compactJSON(s.Record)
	if err != nil {
		return fmt.Errorf("write the run record: %w", err)
	}
	if len(rec) < 2 || rec[0] != '{' {
		return errors.New("write the run record: it is not a JSON object")
	}
	dir, err := compactJSON(s.Dir)
	if err != nil {
		return fmt.Errorf("write the run record: %w", err)
	}
	doc := append([]byte(`{"dir":`), dir...)
	if body := bytes.TrimSpace(rec[1:]); len(body) > 0 && body[0] != '}' {
		doc = append(doc, ',')
	}
	doc = append(doc, rec[1:]...)
	if indent {
		var out bytes.Buffer
		if err := json.Indent(&out, doc, "", "  "); err != nil {
			return fmt.Errorf("write the run record: %w", err)
		}
		doc = out.Bytes()
	}
	_, err = w.Write(append(doc, '\n'))
	return err
}

// compactJSON is v as compact JSON, leaving <, > and & as they are.
func compactJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}

// clock is t in the local time zone, to the second.
func clock(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}
