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
// settings on a command or catalogue step, copy on a checkout worktree, a child process off
// run-published-issue, a severity or model in a precheck or run phase. A judge model
// with no instructions to judge is only a warning.
var ruleMisplacedKey = &Rule{
	ID:       RuleMisplacedKey,
	Doc:      "a key on a step kind that cannot use it (e.g. model on a command step, process off run-published-issue, copy on a checkout worktree)",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		for i := range p.Worktrees {
			w := &p.Worktrees[i]
			if k := w.Kind; k.Set && !k.Bad && k.Value == ir.Checkout && w.Copy.Set {
				pass.Report(keyRange(w.Copy), "\"copy\" does not apply to checkout worktree %q: it is your own working tree, which holds your files already; remove it, or make the worktree a throwaway", w.Name)
			}
		}
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
				}{{"severity", ph.phase.Severity}, {"model", ph.phase.Keys().Model}} {
					if k.f.Set && !k.f.Bad {
						pass.Report(keyRange(k.f), "%q does not apply to "+ph.why, k.name, stepRef(p, i))
					}
				}
			}
			if ph := s.Validate; ph != nil {
				if k := ph.Keys(); k.Model.Set && !k.Model.Bad && len(k.Instructions.Value) == 0 {
					pass.ReportAs(ir.Warning, keyRange(k.Model), nil,
						"\"model\" in the validate phase of %s has no instructions to judge; add instructions or remove it", stepRef(p, i))
				}
			}
		}
	},
}

// misplacedOnAction reports the keys of action a that its kind cannot use.
func misplacedOnAction(pass *Pass, p *ir.Process, step int, a ir.Action) {
	ak := a.Keys()
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
			{"harness", ak.Harness.Set && !ak.Harness.Bad, keyRange(ak.Harness)},
			{"model", ak.Model.Set && !ak.Model.Bad, keyRange(ak.Model)},
			{"effort", ak.Effort.Set && !ak.Effort.Bad, keyRange(ak.Effort)},
			{"access", ak.Access.Set && !ak.Access.Bad, keyRange(ak.Access)},
			{keyName(p, "max_turns"), ak.MaxTurns.Set && !ak.MaxTurns.Bad, keyRange(ak.MaxTurns)},
			{keyName(p, "budget_usd"), ak.BudgetUSD.Set && !ak.BudgetUSD.Bad, keyRange(ak.BudgetUSD)},
		} {
			if k.set {
				pass.Report(k.at, "%q does not apply to %s (%s); only skill and prompt steps run an agent", k.name, what, stepRef(p, step))
			}
		}
	}
	if o := p.Steps[step].Keys().OutputSchema; a.Kind == ir.Catalogue && o.Set && !o.Bad {
		pass.Report(keyRange(o), "%q does not apply to a catalogue step (%s); only command and session steps give an output", keyName(p, "output_schema"), stepRef(p, step))
	}
	if a.Kind == ir.Catalogue {
		c := ak.Catalogue
		if !c.Set || c.Bad || c.Value == ir.RunPublishedIssue || !slices.Contains(catalogues, c.Value) {
			// An unknown catalogue is refused by unknown-catalogue; the
			// user may have meant run-published-issue.
			return
		}
	}
	for _, k := range []struct {
		name string
		f    ir.Field[string]
	}{{"process", ak.Process}, {"spec_process", ak.SpecProcess}} {
		if k.f.Set && !k.f.Bad {
			pass.Report(keyRange(k.f), "%q only applies to catalogue = %q (%s)", keyName(p, k.name), ir.RunPublishedIssue, stepRef(p, step))
		}
	}
}
