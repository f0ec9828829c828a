package check

import (
	"slices"

	"github.com/cairn-dev/cairn/ir"
)

// RuleReservedName is the ID of the rule that keeps built-in names for
// cairn's own commands.
const RuleReservedName = "reserved-name"

// reservedNames are the built-in processes and subcommands no process file
// may be named after.
var reservedNames = []string{"ticket-run", "spec-run", "architect-run", "pickup-run", "security-run", "list", "check", "issue"}

// ruleReservedName refuses a process whose file is named after a built-in
// process or a command word, so a copied file never stands in for one.
var ruleReservedName = &Rule{
	ID:       RuleReservedName,
	Doc:      "a process named ticket-run, spec-run, architect-run, pickup-run, security-run, list, check or issue",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		if slices.Contains(reservedNames, p.Name) {
			pass.Report(ir.FileStart(p.File), "process name %q is reserved for a built-in command; rename the file", p.Name)
		}
	},
}
