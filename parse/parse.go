// Package parse holds the front-ends that read process files (TOML, HCL,
// cards) into the IR, reporting syntax errors, wrong types, duplicates and
// unknown keys at their positions; it never decides whether a process makes
// sense.
package parse

import (
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// CardSuffix is the extension of a card process file.
const CardSuffix = ".procedure.card"

// The extensions of cairn test's files, which live beside processes and
// are none: a test file and a stubs file.
const (
	TestSuffix  = ".test.toml"
	StubsSuffix = ".stubs.toml"
)

// NotProcess reports whether a file's name makes it one of cairn test's
// files (TestSuffix, StubsSuffix): lookup and listing pass it by.
func NotProcess(file string) bool {
	base := filepath.Base(file)
	return strings.HasSuffix(base, TestSuffix) || strings.HasSuffix(base, StubsSuffix)
}

// FormatOf returns the format a file's name says it is in, and false when the
// name has no process file extension.
func FormatOf(file string) (ir.Format, bool) {
	base := filepath.Base(file)
	switch {
	case strings.HasSuffix(base, CardSuffix):
		return ir.Card, true
	case strings.HasSuffix(base, ".toml"):
		return ir.TOML, true
	case strings.HasSuffix(base, ".hcl"):
		return ir.HCL, true
	}
	return "", false
}

// NameOf returns a process file's name: its stem ("review" for review.toml,
// "intake" for intake.procedure.card).
func NameOf(file string) string {
	base := filepath.Base(file)
	if strings.HasSuffix(base, CardSuffix) {
		return strings.TrimSuffix(base, CardSuffix)
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// anySessionKey reports whether k holds a session key of a step (harness,
// model, …, spec_process): what each of the step's actions has.
func anySessionKey(k *ir.ActionKeys) bool {
	return k.Harness.Set || k.Model.Set || k.Effort.Set || k.Access.Set || k.MaxTurns.Set ||
		k.BudgetUSD.Set || k.Process.Set || k.SpecProcess.Set
}

// setKind makes a the action that the kind key key (skill, prompt, command
// or catalogue) with value v says, as the TOML and HCL front-ends read it.
func setKind(a *ir.Action, key string, v ir.Field[string]) {
	switch key {
	case "skill":
		a.Kind, a.Fill().Skill = ir.Session, v
	case "prompt":
		a.Kind, a.Fill().Prompt = ir.Session, v
	case "command":
		a.Kind, a.Script = ir.Command, v
	case "catalogue":
		a.Kind, a.Fill().Catalogue = ir.Catalogue, v
	}
}
