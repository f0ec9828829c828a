package check

import (
	"github.com/cairn-dev/cairn/ir"
)

// RuleStepKind is the ID of the rule that a TOML or HCL step does exactly one
// thing.
const RuleStepKind = "step-kind"

// ruleStepKind refuses a TOML or HCL step with none, or several, of skill,
// prompt, command and catalogue. A card step may hold any number of actions.
var ruleStepKind = &Rule{
	ID:       RuleStepKind,
	Doc:      "a TOML or HCL step with none, or several, of skill / prompt / command / catalogue",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		if p.Format == ir.Card {
			return
		}
		for i := range p.Steps {
			s := &p.Steps[i]
			if len(s.Actions) == 0 {
				if s.UnknownKeys {
					continue
				}
				pass.Report(s.Header, "%s has none of skill, prompt, command or catalogue; a step does exactly one thing", stepRef(p, i))
				continue
			}
			// The front-ends list a step's actions in file order.
			as := s.Actions
			for _, a := range as[1:] {
				pass.ReportRelated(a.Range, []ir.Related{{Range: as[0].Range, Message: "the first is here"}},
					"%s has both %q and %q; a step does exactly one thing", stepRef(p, i), actionKey(as[0]), actionKey(a))
			}
		}
	},
}

// actionKey is the key that made an action: skill, prompt, command or
// catalogue.
func actionKey(a ir.Action) string {
	switch a.Kind {
	case ir.Session:
		if a.Keys().Prompt.Set && !a.Keys().Skill.Set {
			return "prompt"
		}
		return "skill"
	case ir.Catalogue:
		return "catalogue"
	}
	return "command"
}
