package check

import (
	"slices"

	"github.com/cairn-dev/cairn/ir"
)

// RuleMisplacedKey is the ID of the rule about keys on a step kind that
// cannot use them.
const RuleMisplacedKey = "misplaced-key"

// catalogues are the catalogue steps cairn knows.
var catalogues = ir.Catalogues

// ruleMisplacedKey refuses a key on a step kind that cannot use it: session
// settings on a command or catalogue step, a child process off
// run-published-issue, a severity or model in a precheck or run phase. A judge model
// with no instructions to judge is only a warning.
var ruleMisplacedKey = &Rule{
	ID:       RuleMisplacedKey,
	Doc:      "a key on a step kind that cannot use it (e.g. model on a command step, process off run-published-issue)",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		for i := range p.Steps {
			s := &p.Steps[i]
			// A TOML or HCL step with several actions carries its keys on
			// each; step-kind refuses it, and what is misplaced depends on
			// which action the user meant.
			if p.Format == ir.Card || len(s.Actions) == 1 {
				for _, a := range s.Actions {
					misplacedOnAction(pass, p, i, a)
				}
			}
			for _, ph := range []struct {
				phase *ir.Phase
				why   string
			}{
				{s.Precheck, "a precheck phase (%s); a precheck's shells skip or fail the step by their exit code"},
				{s.Run, "the run phase (%s); severity and a judge's model belong to the validate phase"},
			} {
				if ph.phase == nil {
					continue
				}
				for _, k := range []struct {
					name string
					f    ir.Field[string]
				}{{"severity", ph.phase.Severity}, {"model", ph.phase.Model}} {
					if k.f.Set && !k.f.Bad {
						pass.Report(keyRange(k.f), "%q does not apply to "+ph.why, k.name, stepRef(p, i))
					}
				}
			}
			if ph := s.Validate; ph != nil && ph.Model.Set && !ph.Model.Bad && len(ph.Instructions.Value) == 0 {
				pass.ReportAs(ir.Warning, keyRange(ph.Model), nil,
					"\"model\" in the validate phase of %s has no instructions to judge; add instructions or remove it", stepRef(p, i))
			}
		}
	},
}

// misplacedOnAction reports the keys of action a that its kind cannot use.
func misplacedOnAction(pass *Pass, p *ir.Process, step int, a ir.Action) {
	if a.Kind != ir.Session {
		what := "a command step"
		if a.Kind == ir.Catalogue {
			what = "a catalogue step"
		}
		for _, k := range []struct {
			name string
			set  bool
			at   ir.Range
		}{
			{"harness", a.Keys().Harness.Set && !a.Keys().Harness.Bad, keyRange(a.Keys().Harness)},
			{"model", a.Keys().Model.Set && !a.Keys().Model.Bad, keyRange(a.Keys().Model)},
			{"effort", a.Keys().Effort.Set && !a.Keys().Effort.Bad, keyRange(a.Keys().Effort)},
			{"access", a.Keys().Access.Set && !a.Keys().Access.Bad, keyRange(a.Keys().Access)},
			{keyName(p, "max_turns"), a.Keys().MaxTurns.Set && !a.Keys().MaxTurns.Bad, keyRange(a.Keys().MaxTurns)},
			{keyName(p, "budget_usd"), a.Keys().BudgetUSD.Set && !a.Keys().BudgetUSD.Bad, keyRange(a.Keys().BudgetUSD)},
		} {
			if k.set {
				pass.Report(k.at, "%q does not apply to %s (%s); only skill and prompt steps run an agent", k.name, what, stepRef(p, step))
			}
		}
	}
	if a.Kind == ir.Catalogue {
		c := a.Keys().Catalogue
		if !c.Set || c.Bad || c.Value == ir.RunPublishedIssue || !slices.Contains(catalogues, c.Value) {
			// An unknown catalogue is refused by unknown-catalogue; the
			// user may have meant run-published-issue.
			return
		}
	}
	for _, k := range []struct {
		name string
		f    ir.Field[string]
	}{{"process", a.Keys().Process}, {"spec_process", a.Keys().SpecProcess}} {
		if k.f.Set && !k.f.Bad {
			pass.Report(keyRange(k.f), "%q only applies to catalogue = %q (%s)", keyName(p, k.name), ir.RunPublishedIssue, stepRef(p, step))
		}
	}
}
