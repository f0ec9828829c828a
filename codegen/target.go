package codegen

import (
	"slices"

	"github.com/cairn-dev/cairn/ir"
)

// Target is one kind of artifact `cairn compile --target NAME` writes from
// a plan. Compile refuses what the artifact cannot carry with rule
// not-compilable at its place in the process file, and then returns no
// bytes.
type Target interface {
	// Name is what --target calls it.
	Name() string
	// Executable reports whether the artifact is a program, which -o
	// writes with mode 0755 rather than 0644.
	Executable() bool
	// Compile renders plan, with what the target needs besides it.
	Compile(plan *ir.Plan, in Inputs) (Output, []ir.Diagnostic)
}

// Output is what a target compiles a plan into: the artifact, and the files
// that must sit beside it, in the same folder (Siblings): the workflows of
// the child processes a workflow's run-published-issue step calls.
type Output struct {
	Artifact []byte
	Siblings []Sibling
}

// Sibling is a file an artifact needs beside it: its name, which the
// artifact refers to it by, and its bytes.
type Sibling struct {
	Name string
	Data []byte
}

// targets are the compile targets; bash is --target's default.
var targets = []Target{bashTarget{}, actionsTarget{}}

// LookupTarget returns the compile target called name.
func LookupTarget(name string) (Target, bool) {
	i := slices.IndexFunc(targets, func(t Target) bool { return t.Name() == name })
	if i < 0 {
		return nil, false
	}
	return targets[i], true
}

// TargetNames are the names of every compile target, in the order of the
// registry.
func TargetNames() []string {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name()
	}
	return names
}

// bashTarget is a standalone bash script (Bash).
type bashTarget struct{}

func (bashTarget) Name() string     { return bashInfo.name }
func (bashTarget) Executable() bool { return true }

func (bashTarget) Compile(plan *ir.Plan, in Inputs) (Output, []ir.Diagnostic) {
	out, diags := Bash(plan, in)
	return Output{Artifact: out}, diags
}
