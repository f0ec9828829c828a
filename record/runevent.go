package record

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

// RunEventVersion is the version of RunEvent, its "v": it changes when a
// field changes its meaning or goes away, not when one is added
// (docs/schema/events.schema.json).
const RunEventVersion = 1

// RunEventType is what a RunEvent tells.
type RunEventType string

// The types of RunEvent, in the order a run tells them.
const (
	// EventRunStart: the run (or its resume) starts its steps.
	EventRunStart RunEventType = "run_start"
	// EventStepStart: a step, or an item of a step with for_each, starts.
	EventStepStart RunEventType = "step_start"
	// EventStepEnd: a step or an item ended; the run's log has its line.
	EventStepEnd RunEventType = "step_end"
	// EventWarning: something that does not change how the run ends.
	EventWarning RunEventType = "warning"
	// EventRunEnd: the run ended.
	EventRunEnd RunEventType = "run_end"
)

// RunEvent is one event of a run as a Folder tells it to its watcher
// (Folder.Watch): `cairn run --json` writes each as a JSON line. A step's
// end is made from the same record as its line in the run's log, so the
// two never disagree. Which fields a type carries is in
// docs/schema/events.schema.json; those it lacks are left out.
type RunEvent struct {
	V    int          `json:"v"`
	Type RunEventType `json:"type"`
	Time time.Time    `json:"time"`
	// Run is the run folder's name, which names the run.
	Run string `json:"run"`

	// Process, Dir and Resumed are a run_start's: the process, the run
	// folder, whether the run is resumed. Stubbed, set in a stubbed run,
	// is also a step's.
	Process string `json:"process,omitempty"`
	Dir     string `json:"dir,omitempty"`
	Resumed bool   `json:"resumed,omitempty"`
	Stubbed bool   `json:"stubbed,omitempty"`

	// Step is the step a step_start or step_end tells of, or a warning is
	// about. For an item of a step with for_each it is STEP[N], Of is
	// STEP, Index N and Item the item.
	Step     string          `json:"step,omitempty"`
	Of       string          `json:"of,omitempty"`
	Index    *int            `json:"index,omitempty"`
	Item     json.RawMessage `json:"item,omitempty"`
	Kind     string          `json:"kind,omitempty"`
	Worktree string          `json:"worktree,omitempty"`
	Harness  string          `json:"harness,omitempty"`
	Model    string          `json:"model,omitempty"`
	Effort   string          `json:"effort,omitempty"`
	Optional bool            `json:"optional,omitempty"`
	// DurationMS is how long a step or the run took, in milliseconds.
	DurationMS *int64 `json:"duration_ms,omitempty"`
	// Usage is what a step's sessions used, or the whole run's.
	Usage *EventUsage `json:"usage,omitempty"`
	// Outcome and Result are a step_end's (with ExitCode and Cause):
	// Result is its result file, relative to the run folder, once written.
	Outcome Outcome `json:"outcome,omitempty"`
	Result  string  `json:"result,omitempty"`

	// Message is a warning's.
	Message string `json:"message,omitempty"`

	// Status is how a run_end's run ended, ExitCode the exit code `cairn
	// run` ends with (a step_end's: its step's) and Cause what kept the run
	// from running its steps (a step_end's: why the step failed).
	Status   Status `json:"status,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Cause    string `json:"cause,omitempty"`
}

// EventUsage is what sessions used, as the run's log words it: each figure
// only when a CLI reported it; TokensIn counts every input token, read from
// the prompt cache or not; CostEstimated says cairn priced the tokens from
// its price table.
type EventUsage struct {
	Turns         *int64   `json:"turns,omitempty"`
	TokensIn      *int64   `json:"tokens_in,omitempty"`
	TokensOut     *int64   `json:"tokens_out,omitempty"`
	CostUSD       *float64 `json:"cost_usd,omitempty"`
	CostEstimated bool     `json:"cost_estimated,omitempty"`
}

// UsageEvent is u as an event carries it, nil when u holds no figure.
func UsageEvent(u ir.Usage) *EventUsage {
	if u.IsZero() {
		return nil
	}
	return &EventUsage{Turns: u.Turns, TokensIn: u.InputAll(), TokensOut: u.OutputTokens, CostUSD: u.CostUSD,
		CostEstimated: u.CostEstimated && u.CostUSD != nil}
}

// stepEvent is the event of type t of step s, whose log line is l.
func stepEvent(t RunEventType, s *StepRecord, l LogLine) RunEvent {
	ev := RunEvent{Type: t, Step: s.Name, Kind: l.Kind, Worktree: l.Worktree, Harness: l.Harness, Model: l.Model,
		Effort: l.Effort, Optional: s.Optional, Stubbed: l.Stubbed}
	if len(s.Item) > 0 {
		if of, n, ok := itemOf(s.Name); ok {
			ev.Of, ev.Index = of, &n
		}
		ev.Item = s.Item
	}
	if t == EventStepEnd {
		ms := l.Duration.Milliseconds()
		code := s.ExitCode
		ev.DurationMS, ev.Usage, ev.Outcome, ev.Cause, ev.ExitCode, ev.Result = &ms, UsageEvent(l.Usage), l.Outcome, l.Cause, &code, s.Result
	}
	return ev
}

// itemOf splits an item's name, STEP[N] (ItemName), into STEP and N.
func itemOf(name string) (string, int, bool) {
	open := strings.LastIndexByte(name, '[')
	if open < 0 || !strings.HasSuffix(name, "]") {
		return "", 0, false
	}
	n, err := strconv.Atoi(name[open+1 : len(name)-1])
	if err != nil {
		return "", 0, false
	}
	return name[:open], n, true
}
