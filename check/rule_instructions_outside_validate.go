package check

import "github.com/cairn-dev/cairn/ir"

// RuleInstructionsOutsideValidate is the ID of the rule that only validate
// phases hold instructions.
const RuleInstructionsOutsideValidate = "instructions-outside-validate"

// ruleInstructionsOutsideValidate refuses instructions in a precheck phase or
// a card's run phase: only a validate phase has a judge to read them.
var ruleInstructionsOutsideValidate = &Rule{
	ID:       RuleInstructionsOutsideValidate,
	Doc:      "instructions in a precheck or run phase",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		for i := range p.Steps {
			s := &p.Steps[i]
			for _, ph := range []struct {
				kind ir.PhaseKind
				*ir.Phase
			}{{ir.PrecheckPhase, s.Precheck}, {ir.RunPhase, s.Run}} {
				if ph.Phase == nil {
					continue
				}
				in := ph.Keys().Instructions
				if !in.Set || in.Bad {
					continue
				}
				pass.Report(keyRange(in), "\"instructions\" in the %s phase of %s are never judged; move them to the validate phase", ph.kind, stepRef(p, i))
			}
		}
	},
}
