package check

import (
	"slices"

	"github.com/cairn-dev/cairn/ir"
)

// RuleUnknownCatalogue is the ID of the rule about catalogue steps cairn does
// not have.
const RuleUnknownCatalogue = "unknown-catalogue"

// ruleUnknownCatalogue refuses a catalogue value other than delivery,
// self-merge and run-published-issue.
var ruleUnknownCatalogue = &Rule{
	ID:       RuleUnknownCatalogue,
	Doc:      "a catalogue step that is not delivery, self-merge or run-published-issue",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		for _, s := range pass.Process.Steps {
			for _, a := range s.Actions {
				c := a.Keys().Catalogue
				if a.Kind != ir.Catalogue || !c.Set || c.Bad || slices.Contains(catalogues, c.Value) {
					continue
				}
				s := ir.Suggest(c.Value, catalogues)
				pass.ReportFixes(valueRange(c), pass.change(c, s), "unknown catalogue step %q; expected %s%s", c.Value, ir.OneOf(catalogues), ir.Meant(s))
			}
		}
	},
}
