package stubs

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/output"
	"github.com/cairn-dev/cairn/step"
)

// Step is the answers of one step in a stubbed run (step.Agent): each
// session the step starts, its first and each review retry, takes the
// stub's next attempt, the last repeating; its judge gives the verdict of
// the attempt it judges. A step with no stub fails its sessions.
type Step struct {
	name string
	stub *Stub

	mu sync.Mutex
	// n is how many sessions the step started.
	n int
}

var _ step.Agent = (*Step)(nil)

// Step returns the answers of the step name, from its stub when s has one.
func (s *Stubs) Step(name string) *Step {
	return &Step{name: name, stub: s.Get(name)}
}

// attempt is the attempt of the step's session number n (from 1).
func (a *Step) attempt(n int) *Attempt {
	at := a.stub.Attempts
	return &at[min(n, len(at))-1]
}

// noStub is the cause of a session of a step that has no stub.
func (a *Step) noStub(kind string) string {
	return fmt.Sprintf("no stub for %s step %q", kind, a.name)
}

// Answer answers the step's next session from its next attempt.
func (a *Step) Answer(ctx context.Context, inv harness.Invocation) step.Answer {
	if a.stub == nil || len(a.stub.Attempts) == 0 {
		return step.Answer{Failed: true, Cause: a.noStub("session")}
	}
	a.mu.Lock()
	a.n++
	at := a.attempt(a.n)
	a.mu.Unlock()
	ans := step.Answer{Message: at.Result, Usage: at.Usage}
	if ans.Message == "" {
		ans.Message = Placeholder(a.name)
	}
	if at.Failed() {
		ans.Failed, ans.Cause = true, orDefault(at.Cause.Value, "the stub's session failed")
	}
	return ans
}

// Judge is the agent of the step's judge: it ends its sessions with the
// verdict of the attempt whose work it judges, the step's last session.
func (a *Step) Judge() step.Agent {
	return judge{a}
}

// judge answers a step's judge sessions (Step.Judge).
type judge struct{ a *Step }

// Answer gives the verdict as a judge's final message: a JSON verdict for
// pass and fail, a message with none for "none" (the judge reached no
// verdict, the step is inconclusive).
func (j judge) Answer(ctx context.Context, inv harness.Invocation) step.Answer {
	a := j.a
	if a.stub == nil || len(a.stub.Attempts) == 0 {
		return step.Answer{Failed: true, Cause: a.noStub("session")}
	}
	a.mu.Lock()
	at := a.attempt(max(a.n, 1))
	a.mu.Unlock()
	verdict := orDefault(at.Verdict.Value, VerdictPass)
	if verdict == VerdictNone {
		return step.Answer{Message: "The stub gives no verdict."}
	}
	msg, err := json.Marshal(map[string]string{"verdict": verdict, "reasoning": fmt.Sprintf("the stub of step %s says %s", a.name, verdict)})
	if err != nil {
		return step.Answer{Failed: true, Cause: err.Error()}
	}
	return step.Answer{Message: string(msg)}
}

// Command is the result of a command step's stub: its stdout, and exit
// status; ok is false when the step has no stub, and runs for real.
func (a *Step) Command() (r step.Result, ok bool) {
	if a.stub == nil || !a.stub.Exit.Set {
		return step.Result{}, false
	}
	r = step.Result{ExitCode: a.stub.Exit.Value, Result: a.stub.Stdout.Value}
	if r.ExitCode != 0 {
		r.Failed, r.Cause = true, fmt.Sprintf("exit status %d", r.ExitCode)
	}
	return r, true
}

// Output is the typed output the stub gives its step, canonical JSON;
// false when it gives none.
func (a *Step) Output() ([]byte, bool) {
	if a == nil || a.stub == nil || !a.stub.Output.Set || a.stub.Output.Bad || a.stub.Output.Value == nil {
		return nil, false
	}
	return []byte(output.Canonical(a.stub.Output.Value)), true
}

// Catalogue is the result of a catalogue step's stub, which never
// delivers, merges or starts a child run: its outcome, cause and result.
// A catalogue step without a stub fails.
func (a *Step) Catalogue() step.Result {
	if a.stub == nil || len(a.stub.Attempts) == 0 {
		return step.Failed("%s: a stubbed run never delivers, merges or starts a child run", a.noStub("catalogue"))
	}
	at := a.stub.Attempts[0]
	r := step.Result{Result: at.Result}
	if at.Failed() {
		r.Failed, r.ExitCode, r.Cause = true, 1, orDefault(at.Cause.Value, "the stub's step failed")
	}
	return r
}

// Placeholder is the result of a session whose stub gives none.
func Placeholder(step string) string {
	return fmt.Sprintf("stub result of step %s", step)
}
