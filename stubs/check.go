package stubs

import (
	"fmt"
	"slices"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/output"
)

// kindKeys are the keys a stub of each kind of step may hold.
var kindKeys = map[ir.ActionKind][]string{
	ir.Session:   {"result", "result_file", "outcome", "cause", "usage", "verdict", "attempts"},
	ir.Command:   {"exit", "stdout"},
	ir.Catalogue: {"result", "result_file", "outcome", "cause"},
}

// kindWords name a kind of step in a message.
var kindWords = map[ir.ActionKind]string{
	ir.Session:   "session",
	ir.Command:   "command",
	ir.Catalogue: "catalogue",
}

// Check refuses the stubs of s that do not fit plan: a stub of a step the
// plan lacks (unknown-step, with a did-you-mean), and a stub whose keys its
// step's kind cannot take (stub-mismatch): a command step's stub needs
// exit, a verdict needs a judge, attempts after the first need review
// retries. Every problem is reported, in file order.
func Check(s *Stubs, plan *ir.Plan) []ir.Diagnostic {
	var diags []ir.Diagnostic
	report := func(rule string, at ir.Range, format string, args ...any) {
		diags = append(diags, ir.Diagnostic{Rule: rule, Severity: ir.Error, Range: at, Message: fmt.Sprintf(format, args...)})
	}
	steps := Steps(plan)
	names := make([]string, 0, len(steps))
	for _, st := range steps {
		names = append(names, st.Name)
	}
	for _, stub := range s.Steps {
		st := findStep(steps, stub.Step)
		if st == nil {
			var fixes []ir.Fix
			if sug := ir.Suggest(stub.Step, names); s.Get(sug) == nil {
				fixes = ir.Change(s.Src, stub.At, stub.Step, sug)
			}
			diags = append(diags, ir.Diagnostic{Rule: RuleUnknownStep, Severity: ir.Error, Range: stub.At, Message: UnknownStep(stub.Step, plan.Process, names), Fixes: fixes})
			continue
		}
		kinds := Kinds(st)
		for _, k := range stub.Keys {
			if k.Name == "output" {
				// Checked below, against the step's output_schema.
				continue
			}
			if !allowed(kinds, k.Name) {
				report(RuleStubMismatch, k.At, "key %q in stub %q of %s step %q; a stub of it takes %s", k.Name, stub.Step, kindWord(kinds), stub.Step, ir.OneOf(keysOf(kinds)))
			}
		}
		if o := stub.Output; o.Set && !o.Bad && o.Value != nil {
			switch {
			case !slices.Contains(kinds, ir.Session) && !slices.Contains(kinds, ir.Command):
				report(RuleStubMismatch, o.Key, "output in stub %q; %s step %q gives no output", stub.Step, kindWord(kinds), stub.Step)
			case st.Output == nil:
				report(RuleStubMismatch, o.Key, "output in stub %q; step %q declares no output_schema", stub.Step, stub.Step)
			default:
				if v := output.Validate(st.Output.Schema, []byte(output.Canonical(o.Value))); v != nil {
					report(RuleStubMismatch, o.Range, "stub %q: %v", stub.Step, v)
				}
			}
		}
		if slices.Contains(kinds, ir.Command) && !stub.Exit.Set {
			report(RuleStubMismatch, stub.Header, "stub %q of command step %q has no exit; add exit = 0 (or the code it should fail with)", stub.Step, stub.Step)
		}
		if !slices.Contains(kinds, ir.Session) {
			continue
		}
		judged := st.Validate != nil && len(st.Validate.Instructions) > 0
		for _, a := range stub.Attempts {
			if a.Verdict.Set && !judged {
				report(RuleStubMismatch, a.Verdict.Key, "verdict in stub %q; step %q has no judge (validate instructions)", stub.Step, stub.Step)
			}
		}
		if len(stub.Attempts) > 1 && (st.Validate == nil || st.Validate.Severity != ir.SeverityReview) {
			report(RuleStubMismatch, stub.AttemptsAt, "stub %q has %d attempts; step %q has no review retries (severity = \"review\"), so only its first session runs", stub.Step, len(stub.Attempts), stub.Step)
		}
	}
	ir.SortDiagnostics(diags)
	return diags
}

// UnknownStep is the message of a step name the process lacks, with the
// name it is closest to.
func UnknownStep(name, process string, names []string) string {
	if s := ir.Suggest(name, names); s != "" {
		return fmt.Sprintf("unknown step %q; did you mean %q?", name, s)
	}
	return fmt.Sprintf("unknown step %q; process %q has %s", name, process, ir.OneOf(quoted(names)))
}

// Steps are the plan's steps in file order.
func Steps(plan *ir.Plan) []*ir.PlanStep {
	var out []*ir.PlanStep
	for i := range plan.Stages {
		for j := range plan.Stages[i] {
			out = append(out, &plan.Stages[i][j])
		}
	}
	return out
}

// findStep returns the step named name, or nil.
func findStep(steps []*ir.PlanStep, name string) *ir.PlanStep {
	for _, st := range steps {
		if st.Name == name {
			return st
		}
	}
	return nil
}

// Kinds are the kinds of st's actions, each once, in order.
func Kinds(st *ir.PlanStep) []ir.ActionKind {
	var out []ir.ActionKind
	for _, a := range st.Actions {
		if !slices.Contains(out, a.Kind) {
			out = append(out, a.Kind)
		}
	}
	return out
}

// allowed reports whether a stub of a step of kinds may hold key.
func allowed(kinds []ir.ActionKind, key string) bool {
	for _, k := range kinds {
		if slices.Contains(kindKeys[k], key) {
			return true
		}
	}
	return false
}

// keysOf are the keys a stub of a step of kinds may hold.
func keysOf(kinds []ir.ActionKind) []string {
	var out []string
	for _, k := range kinds {
		for _, key := range kindKeys[k] {
			if !slices.Contains(out, key) {
				out = append(out, key)
			}
		}
	}
	return out
}

// kindWord names the kind of a step of kinds: "session", "command and
// session".
func kindWord(kinds []ir.ActionKind) string {
	words := make([]string, 0, len(kinds))
	for _, k := range kinds {
		words = append(words, kindWords[k])
	}
	return ir.OneOf(words)
}

// quoted is each of names in quotes.
func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
