package check

import "github.com/cairn-dev/cairn/ir"

// RuleVersion is the ID of the rule that requires version = 1.
const RuleVersion = "version"

// ruleVersion refuses a TOML or HCL file without version = 1. Cards carry no
// version.
var ruleVersion = &Rule{
	ID:       RuleVersion,
	Doc:      "TOML or HCL without version, or not 1",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		v := p.Version
		switch {
		case p.Format == ir.Card || v.Bad:
		case !v.Set:
			add := ir.Fix{Message: "add version = 1 at the top", Edits: []ir.Edit{ir.Insert(p.File, ir.Pos{Line: 1, Column: 1}, "version = 1\n")}}
			pass.ReportFixes(ir.FileStart(p.File), []ir.Fix{add}, `missing "version"; add version = 1 at the top`)
		case v.Value != 1:
			pass.Report(valueRange(v), "unsupported version %d; cairn reads version = 1", v.Value)
		}
	},
}
