package views

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// TestRunShowJSON holds that show --json is the record with "dir" first,
// one JSON object, compact or indented.
func TestRunShowJSON(t *testing.T) {
	for _, c := range []struct {
		record any
		want   string
	}{
		{map[string]any{"process": "a<b"}, `{"dir":"/h/runs/x","process":"a<b"}`},
		{struct{}{}, `{"dir":"/h/runs/x"}`},
	} {
		s := &RunShow{Dir: "/h/runs/x", Record: c.record}
		var b bytes.Buffer
		if err := s.WriteJSON(&b, false); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(b.String()); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
		b.Reset()
		if err := s.WriteJSON(&b, true); err != nil {
			t.Fatal(err)
		}
		if !json.Valid(b.Bytes()) || !strings.Contains(b.String(), "\n  \"dir\": ") {
			t.Errorf("indented: %s", b.String())
		}
	}
	if err := (&RunShow{Record: []int{1}}).WriteJSON(&bytes.Buffer{}, false); err == nil {
		t.Error("a record that is not an object was written")
	}
}

func TestRunListText(t *testing.T) {
	var b bytes.Buffer
	if err := (&RunList{Scope: "of this repository"}).WriteText(&b, Style{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "no runs of this repository\n" {
		t.Errorf("got %q", b.String())
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l := &RunList{Now: start.Add(90 * time.Second), Runs: []RunLine{
		{Name: "a_1", Process: "a", Status: "running", Start: start, Steps: StepCounts{Total: 2, Succeeded: 1}, Usage: ir.Usage{CostUSD: ir.Dollars(0.0712)}},
		{Name: "b_1", Error: "b_1 has no run record (run.json)"},
	}}
	b.Reset()
	if err := l.WriteText(&b, Style{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"running\n  a_1  a  running  ", "  1m30s  $0.0712  1/2 steps\n", "\nrecent\n  b_1  -  unreadable  -                    -      -        -          b_1 has no run record"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// TestStepCountsDone holds that only the steps that ran to their end are
// done: a cancelled step never started, an interrupted one was stopped.
func TestStepCountsDone(t *testing.T) {
	for _, c := range []struct {
		counts StepCounts
		want   int
	}{
		{StepCounts{Total: 5, Cancelled: 5}, 0},
		{StepCounts{Total: 4, Succeeded: 1, Failed: 1, Inconclusive: 1, Skipped: 1}, 4},
		{StepCounts{Total: 3, Succeeded: 1, Interrupted: 1, Cancelled: 1}, 1},
	} {
		if got := c.counts.Done(); got != c.want {
			t.Errorf("%+v: done %d; want %d", c.counts, got, c.want)
		}
	}
}

// TestRunListFailures holds that a failure is shown as its step and cause,
// or as the run's own cause when no step failed; and that refused runs
// have their section, before the skipped ones.
func TestRunListFailures(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	end := start.Add(time.Second)
	l := &RunList{
		Runs: []RunLine{
			{Name: "a_1", Process: "a", Status: "failed", Start: start, End: &end, Steps: StepCounts{Total: 2, Failed: 1, Cancelled: 1},
				Failure: &RunFailure{Step: "test", Cause: "exit status 3"}},
			{Name: "b_1", Process: "b", Status: "failed", Start: start, End: &end, Steps: StepCounts{Total: 2, Cancelled: 2},
				Failure: &RunFailure{Cause: `checkout worktree "here": dirty`}},
		},
		Refused: []ActivityLine{{Time: start, Process: "c", Reason: "issue #42 is claimed"}},
		Skipped: []ActivityLine{{Time: start, Process: "d", Reason: "another pass is running"}},
	}
	var b bytes.Buffer
	if err := l.WriteText(&b, Style{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  1/2 steps  test: exit status 3\n",
		"  0/2 steps  checkout worktree \"here\": dirty\n",
		"\nrefused\n  " + clock(start) + "  c  issue #42 is claimed\n\nskipped\n  " + clock(start) + "  d  another pass is running\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

func TestShellLines(t *testing.T) {
	paths := []string{"stdout  /r/shells/s.validate.1.stdout", "stderr  /r/shells/s.validate.1.stderr"}
	base := ShownShell{Phase: "validate", Shell: 1, Round: 1, Cause: "exit status 1", Stdout: "/r/shells/s.validate.1.stdout", Stderr: "/r/shells/s.validate.1.stderr"}
	for _, tc := range []struct {
		name  string
		shell func(s *ShownShell)
		want  []string
	}{
		{"nothing written", func(s *ShownShell) {}, []string{"validate shell 1: exit status 1; it wrote nothing"}},
		{"all of it", func(s *ShownShell) { s.Lines, s.Tail = 2, "a\nb" }, []string{"validate shell 1: exit status 1; its output:", "| a", "| b"}},
		{"its end", func(s *ShownShell) { s.Lines, s.Tail = 57, "y\nz" }, []string{"validate shell 1: exit status 1; the last 2 of its 57 lines of output:", "| y", "| z"}},
		{"a later round", func(s *ShownShell) { s.Round, s.Lines, s.Tail = 3, 1, "boom" }, []string{"validate shell 1 (round 3): exit status 1; its output:", "| boom"}},
		{"a precheck", func(s *ShownShell) { s.Phase, s.Shell, s.Cause = "precheck", 2, "timed out after 1m" }, []string{"precheck shell 2: timed out after 1m; it wrote nothing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			tc.shell(&s)
			want := append(tc.want, paths...)
			if got := ShellLines(s); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("ShellLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestRunShowUsage: show's usage table, a line per step that reported
// anything and the run's total, "-" for what no session reported.
func TestRunShowUsage(t *testing.T) {
	s := &RunShow{
		Name: "hunt_1",
		Usage: []ShownUsage{
			{Step: "hunt-claude", Usage: ir.Usage{Turns: ir.Count(3), InputTokens: ir.Count(1520), OutputTokens: ir.Count(402), CacheReadTokens: ir.Count(8), CacheWriteTokens: ir.Count(4), CostUSD: ir.Dollars(0.0712)},
				Judges: ir.Usage{CostUSD: ir.Dollars(0.01)}},
			{Step: "hunt-codex", Usage: ir.Usage{Turns: ir.Count(1), InputTokens: ir.Count(19621), OutputTokens: ir.Count(20), CacheReadTokens: ir.Count(8)}},
		},
		Total: ir.Usage{Turns: ir.Count(4), InputTokens: ir.Count(21141), OutputTokens: ir.Count(422), CacheReadTokens: ir.Count(16), CacheWriteTokens: ir.Count(4), CostUSD: ir.Dollars(0.0712)},
	}
	var b bytes.Buffer
	if err := s.WriteText(&b, Style{}); err != nil {
		t.Fatal(err)
	}
	want := `
usage
  step         turns  input  cache read  cache write  output  cost     judges
  hunt-claude  3      1520   8           4            402     $0.0712  $0.0100
  hunt-codex   1      19621  8           -            20      -        -
  total        4      21141  16          4            422     $0.0712  $0.0100
`
	if got := b.String(); !strings.HasSuffix(got, want) {
		t.Errorf("got\n%s\nwant it to end with\n%s", got, want)
	}
	b.Reset()
	s.Usage = nil
	if err := s.WriteText(&b, Style{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "usage") {
		t.Errorf("a usage table for a run whose sessions reported nothing:\n%s", b.String())
	}
}

// TestRunListOf holds a run folder's line to its record: its steps counted
// by outcome, its failure; an unreadable folder by its error alone; and the
// scope of a repository's runs.
func TestRunListOf(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := &record.Record{Process: "hunt", Status: record.StatusFailed, Start: start, Steps: []record.StepRecord{
		{Name: "a", Outcome: record.Succeeded},
		{Name: "b", Outcome: record.Failed, Cause: "exit status 2", Actions: []record.ActionRecord{{Kind: ir.Command, Cause: "exit status 2", Tail: "x\nno such file"}}},
		{Name: "c", Outcome: record.Cancelled},
	}}
	runs := &record.Runs{
		Repo: "/r/.git",
		Folders: []record.RunInfo{
			{Name: "hunt_1", Dir: "/h/runs/hunt_1", Record: rec},
			{Name: "junk", Dir: "/h/runs/junk", Err: errors.New("junk has no run record")},
		},
		Skipped: []record.ActivityRun{{Time: start, Process: "lint", Repo: "/r/.git", Reason: "another pass is running"}},
	}
	l := RunListOf(runs, start)
	want := []RunLine{
		{Name: "hunt_1", Process: "hunt", Status: "failed", Start: start, Dir: "/h/runs/hunt_1",
			Steps:   StepCounts{Total: 3, Succeeded: 1, Failed: 1, Cancelled: 1},
			Failure: &RunFailure{Step: "b", Cause: "exit status 2", Output: "no such file"}},
		{Name: "junk", Dir: "/h/runs/junk", Status: "unreadable", Error: "junk has no run record"},
	}
	if !reflect.DeepEqual(l.Runs, want) {
		t.Errorf("runs\n%+v\nwant\n%+v", l.Runs, want)
	}
	if l.Scope != "of this repository" || !l.Now.Equal(start) || len(l.Refused) != 0 ||
		!reflect.DeepEqual(l.Skipped, []ActivityLine{{Time: start, Process: "lint", Reason: "another pass is running"}}) {
		t.Errorf("list %+v", l)
	}
	if l := RunListOf(&record.Runs{}, start); l.Scope != "" {
		t.Errorf("every repository's runs scoped %q", l.Scope)
	}
}

// TestFailedLine holds the stderr line of a run that failed at a step: its
// first failed step that is not optional, with the end of its output.
func TestFailedLine(t *testing.T) {
	step := func(name string, o record.Outcome, optional bool, cause string) record.StepRecord {
		return record.StepRecord{Name: name, Outcome: o, Optional: optional, Cause: cause}
	}
	failed := step("test", record.Failed, false, "exit status 3")
	failed.Actions = []record.ActionRecord{{Kind: ir.Command, Cause: "exit status 3", Tail: "ok\nFAIL parse"}}
	for _, c := range []struct {
		name  string
		steps []record.StepRecord
		want  string
	}{
		{"optional first", []record.StepRecord{step("lint", record.Failed, true, "exit status 2"), failed}, "cairn: failed at step test: exit status 3 (FAIL parse)"},
		{"optional only", []record.StepRecord{step("lint", record.Failed, true, "exit status 2")}, ""},
		{"no cause", []record.StepRecord{step("a", record.Failed, false, "")}, "cairn: failed at step a"},
	} {
		if got := FailedLine(c.steps); got != c.want {
			t.Errorf("%s: line %q; want %q", c.name, got, c.want)
		}
	}
}

// TestFailedShells holds that show lists the shells that failed in the last
// round of their phase, their paths absolute in the run folder, and a failed
// command with its result file.
func TestFailedShells(t *testing.T) {
	step := &record.StepRecord{Name: "s", Shells: []record.ShellRecord{
		{Phase: ir.PrecheckPhase, Shell: 1, Round: 1, Status: record.ShellPass, Stdout: "shells/s.precheck.1.stdout"},
		{Phase: ir.ValidatePhase, Shell: 1, Round: 1, Status: record.ShellFail, Cause: "exit status 1", Stdout: "shells/s.validate.1.stdout"},
		{Phase: ir.ValidatePhase, Shell: 1, Round: 2, Status: record.ShellPass, Stdout: "shells/s.validate.2.stdout"},
		{Phase: ir.ValidatePhase, Shell: 2, Round: 2, Status: record.ShellFail, Cause: "exit status 2", Stdout: "shells/s.validate.3.stdout"},
	}}
	got := FailedShells("/runs/r", step)
	if len(got) != 1 || got[0].Shell != 2 || got[0].Round != 2 || got[0].Stdout != "/runs/r/shells/s.validate.3.stdout" {
		t.Errorf("shown %+v; want the failed shell of the last round only, its path absolute", got)
	}
	skipped := &record.StepRecord{Shells: []record.ShellRecord{{Phase: ir.PrecheckPhase, Shell: 1, Round: 1, Status: record.ShellSkip}}}
	if got := FailedShells("/runs/r", skipped); len(got) != 0 {
		t.Errorf("a skipping precheck shown: %+v", got)
	}
	step.Actions = []record.ActionRecord{{Kind: ir.Command, Cause: "exit status 1", Lines: 3, Tail: "c", Output: true}}
	got = FailedShells("/runs/r", step)
	if want := (ShownShell{What: "command", Cause: "exit status 1", Lines: 3, Tail: "c", Output: "/runs/r/results/s.md"}); len(got) != 2 || got[1] != want {
		t.Errorf("shown %+v; want the failed command last: %+v", got, want)
	}
}
