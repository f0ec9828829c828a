package ir

import (
	"cmp"
	"slices"
)

// Severity says how much a diagnostic matters: only errors refuse a file.
type Severity string

// The severities, as printed and as in JSON.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Note    Severity = "note"
)

// Related is a second place a diagnostic points at, such as where a duplicate
// was first defined.
type Related struct {
	Range   Range
	Message string
}

// Diagnostic is one finding of any stage: the rule that made it, how severe it
// is, a one-line lowercase message, the smallest range at fault, and the
// Fixes that resolve it, when the rule knows one (a did-you-mean's
// suggestion written in place of the misspelt word).
type Diagnostic struct {
	Rule     string
	Severity Severity
	Message  string
	Range    Range
	Related  []Related
	Fixes    []Fix
}

// The rule IDs the front-ends, the config reader and the compiler report. The other rule
// IDs live with their rules in package check.
const (
	RuleInvalidValue = "invalid-value"

	RuleSyntax        = "syntax"
	RuleUnknownKey    = "unknown-key"
	RuleType          = "type"
	RuleDuplicate     = "duplicate"
	RuleHCLExpression = "hcl-expression"

	// RuleNotCompilable is reported by `cairn compile`, not by check.
	RuleNotCompilable = "not-compilable"

	// RuleUnknownStep and RuleStubMismatch are reported on stubs and
	// test files (package stubs): a stub or an expectation naming a step
	// the process lacks, and a stub its step's kind cannot take.
	RuleUnknownStep  = "unknown-step"
	RuleStubMismatch = "stub-mismatch"
)

// HasErrors reports whether any of ds is an error.
func HasErrors(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// SortDiagnostics orders ds by file, line, column, then rule and message, so
// that output is stable.
func SortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Range.File, b.Range.File),
			cmp.Compare(a.Range.Start.Line, b.Range.Start.Line),
			cmp.Compare(a.Range.Start.Column, b.Range.Start.Column),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
}
