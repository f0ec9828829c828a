package main

import (
	"fmt"

	"github.com/cairn-dev/cairn/ir"
)

// The exit codes of cairn (docs/design.md §10), in one place.
const (
	// exitOK: success, and a skipped Pass.
	exitOK = 0
	// exitFailed: a file refused, a run failed.
	exitFailed = 1
	// exitUsage: a command line cairn cannot take.
	exitUsage = 2
	// exitInconclusive: a run whose judge reached no verdict.
	exitInconclusive = 3
	// exitInterrupted: SIGINT or SIGTERM.
	exitInterrupted = 130
)

// exitError is an error that ends cairn with a given code. A nil err means
// the message has already been shown (a refused check prints its report).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError is a command line cairn cannot take: exit 2, with a hint to
// --help.
func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// failed ends cairn with exit 1 after its output said why.
var failed = &exitError{code: exitFailed}

// budgetFlag reads --budget USD: 0 when empty (no flag), and a usage error
// when it is no amount above 0.
func budgetFlag(usd string) (float64, error) {
	if usd == "" {
		return 0, nil
	}
	v, err := ir.ParseUSD(usd)
	if err != nil {
		return 0, usageError("--budget %q: %v", usd, err)
	}
	return v, nil
}
