package step

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
)

// Agent answers a step's sessions in place of their harnesses' CLIs: a
// stubbed run's (package stubs). RunPrompt asks it once per session, after
// the guard and the budget, in the order the sessions start.
type Agent interface {
	Answer(ctx context.Context, inv harness.Invocation) Answer
}

// Answer is how an Agent ends a session: its final message, or its
// failure and cause, and what it used, which counts against the budgets
// as a CLI's report does.
type Answer struct {
	Message string
	Failed  bool
	Cause   string
	Usage   ir.Usage
}

// answered is the Result of a session sc's Agent answered with a: its
// answer is the session's trace (one JSON line), its usage is told to the
// meter as a CLI's would be.
func answered(sc *Context, inv harness.Invocation, a Answer) Result {
	r := Result{Result: a.Message, Trace: sc.TraceFile, Session: harness.SessionEnd{Worked: true, Usage: a.Usage}}
	if a.Failed {
		r.Failed, r.ExitCode, r.Cause = true, 1, a.Cause
	}
	traceErr := writeAnswer(sc.TraceFile, a)
	if sc.Meter != nil {
		if err := sc.Meter.After(inv.Resume, r.Session); err != nil && !r.Failed {
			r.Failed, r.ExitCode, r.Cause, r.Budget = true, 1, err.Error(), true
		}
	}
	if traceErr != nil && !r.Failed {
		r.Failed, r.ExitCode, r.Cause = true, -1, fmt.Sprintf("write the trace: %v", traceErr)
	}
	return r
}

// writeAnswer appends the answer a stub gave to the trace file path.
func writeAnswer(path string, a Answer) error {
	t, err := openTrace(path)
	if err != nil {
		return err
	}
	line, err := json.Marshal(struct {
		Stub    bool     `json:"stub"`
		Message string   `json:"message"`
		Failed  bool     `json:"failed,omitempty"`
		Cause   string   `json:"cause,omitempty"`
		Usage   ir.Usage `json:"usage,omitzero"`
	}{true, a.Message, a.Failed, a.Cause, a.Usage})
	if err != nil {
		t.close()
		return err
	}
	t.line(append(line, '\n'), false)
	return t.close()
}
