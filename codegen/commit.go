package codegen

import (
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
)

// scriptCommit is how a script of a process with commit = true makes the
// commits cairn run makes (docs/design.md §7.6, bash/commit.sh.tmpl), in
// the words of the runtime's own (step.StartSubject and the rest,
// step.Trailers, step.NoIdentity).
type scriptCommit struct {
	// RunsInRepo is where the run folder is, relative to the repository's
	// working tree.
	RunsInRepo string
	// Start and Finish are the subjects of the run's first and last
	// commits, its status succeeded.
	Start, Finish string
	// SaveWork and Complete are each step's subjects, by index: what it
	// left uncommitted, its end as succeeded.
	SaveWork, Complete []string
	// Suffixes are what a completing subject ends with for each outcome
	// or status other than succeeded.
	Suffixes []commitSuffix
	// RunTrailer is the trailer paragraph before the run's name;
	// StepTrailers what a step's commits add after it, by index.
	RunTrailer   string
	StepTrailers []string
	// Identity is the refusal of a repository where git has no identity,
	// in three parts: before the repository's root, between it and git's
	// error, and after it.
	Identity []string
	// RecordSteps are every step of the process, pending, as JSON: in a
	// workflow, the record of the run the first job begins. Steps and
	// Cancelled are the names of the process's steps and the log line of
	// each when it is cancelled, which a workflow's job whose step failed
	// the run writes for the steps that did not start.
	RecordSteps      string
	Steps, Cancelled []string
}

// newScriptCommit is the commit mode of the script of process, whose steps
// are named steps in index order.
func newScriptCommit(process string, steps []string) *scriptCommit {
	const mark = "\x00"
	run := step.Trailers("", "", false)
	sc := &scriptCommit{
		RunsInRepo: ir.RunsInRepo,
		Start:      step.StartSubject(process),
		Finish:     step.CompleteProcessSubject(process, string(record.StatusSucceeded)),
		RunTrailer: run,
		Identity:   strings.Split(step.NoIdentity(mark, mark), mark),
	}
	for _, name := range steps {
		sc.SaveWork = append(sc.SaveWork, step.SaveWorkSubject(name))
		sc.Complete = append(sc.Complete, step.CompleteStepSubject(name, string(record.Succeeded)))
		sc.StepTrailers = append(sc.StepTrailers, strings.TrimPrefix(step.Trailers("", name, false), run))
	}
	for _, o := range []string{string(record.Failed), string(record.Inconclusive), string(record.Interrupted),
		string(record.StatusFailed), string(record.StatusInconclusive), string(record.StatusInterrupted)} {
		if !slices.ContainsFunc(sc.Suffixes, func(s commitSuffix) bool { return s.Outcome == o }) {
			sc.Suffixes = append(sc.Suffixes, commitSuffix{o, step.EndSuffix(o)})
		}
	}
	return sc
}

// commitSuffix is what a completing commit's subject ends with after an
// outcome or status.
type commitSuffix struct {
	Outcome, Suffix string
}
