// Package stubs is what a stubbed run answers from instead of agents: the
// [stubs.STEP] tables of a stubs file or a test file, read with their
// positions and checked against a plan, and the answers they give a run's
// sessions, judges, commands and catalogue steps.
package stubs

import (
	"github.com/cairn-dev/cairn/ir"
)

// The rule IDs of stubs and test files beside the front-end's (syntax,
// unknown-key, type, duplicate, invalid-value).
const (
	// RuleUnknownStep refuses a stub, or a test's expectation, naming a
	// step its process lacks.
	RuleUnknownStep = ir.RuleUnknownStep
	// RuleStubMismatch refuses a stub that does not fit its step's kind:
	// a command step's stub without exit, a session's keys on a command
	// step, a verdict on a step without a judge.
	RuleStubMismatch = ir.RuleStubMismatch
)

// The outcomes a stub may give, and the verdicts its judge may reach
// ("none": no verdict, the step inconclusive).
const (
	OutcomeSucceeded = "succeeded"
	OutcomeFailed    = "failed"

	VerdictPass = "pass"
	VerdictFail = "fail"
	VerdictNone = "none"
)

var (
	outcomes = []string{OutcomeSucceeded, OutcomeFailed}
	verdicts = []string{VerdictPass, VerdictFail, VerdictNone}
)

// Stubs are the stubs of one file, in file order.
type Stubs struct {
	// File is the file they were read from; Src its text.
	File  string
	Src   []byte
	Steps []*Stub
}

// Get returns the stub of step, or nil.
func (s *Stubs) Get(step string) *Stub {
	if s == nil {
		return nil
	}
	for _, st := range s.Steps {
		if st.Step == step {
			return st
		}
	}
	return nil
}

// Stub is one [stubs.STEP] table: the attempts that answer a session
// step's sessions (the first session, then each review retry; the last
// repeats), or a command step's exit and stdout, or a catalogue step's
// outcome.
type Stub struct {
	Step string
	// At is the key that names the step, Header the table's header (or
	// that key).
	At     ir.Range
	Header ir.Range
	// Attempts holds one attempt made of the table's own keys, or the
	// [[stubs.STEP.attempts]] in order.
	Attempts []Attempt
	// AttemptsAt is the attempts key when the table has one.
	AttemptsAt ir.Range
	Exit       ir.Field[int]
	Stdout     ir.Field[string]
	// Output is the step's typed output, a JSON object, when the stub
	// gives one.
	Output ir.Field[*ir.JSONValue]
	// Keys are where each key of the table (an attempt's included) was
	// written, for the checks that refuse a key on a kind of step.
	Keys []Key
}

// Key is one key of a stub, as written.
type Key struct {
	Name string
	At   ir.Range
}

// Attempt is how one session of a step ends: its final message, outcome
// (cause, when it failed), what it used, and its judge's verdict.
type Attempt struct {
	Result string
	// ResultAt is the result key, when it was written.
	ResultAt ir.Range
	// ResultFile is the file the result was read from, as written.
	ResultFile ir.Field[string]
	Outcome    ir.Field[string]
	Cause      ir.Field[string]
	Usage      ir.Usage
	Verdict    ir.Field[string]
}

// Failed reports whether the attempt's session fails.
func (a *Attempt) Failed() bool {
	return a.Outcome.Value == OutcomeFailed
}
