package check

import "github.com/cairn-dev/cairn/ir"

// RuleLoosenedLimit is the ID of the rule about file limits looser than the
// config's.
const RuleLoosenedLimit = "loosened-limit"

// ruleLoosenedLimit refuses a file limit that loosens what the config sets
// (§6.3): a repair_cap above the config's effective cap, and self_merge =
// true, since a file may only forbid a self-merge.
var ruleLoosenedLimit = &Rule{
	ID:       RuleLoosenedLimit,
	Doc:      "a file limit looser than the config's (repair_cap above the config's, default 3; self_merge = true)",
	Severity: ir.Error,
	Run: func(pass *Pass) {
		p := pass.Process
		cfg := configOf(pass.Env)
		if rc := p.Limits.RepairCap; rc.Set && !rc.Bad && rc.Value > cfg.EffectiveRepairCap() {
			if c := cfg.RepairCap; c.Set && !c.Bad {
				pass.ReportRelated(valueRange(rc), []ir.Related{{Range: valueRange(c), Message: "the config's repair_cap"}},
					"repair_cap %d is above the config's repair_cap %d; a process file may only lower it", rc.Value, c.Value)
			} else {
				pass.Report(valueRange(rc), "repair_cap %d is above the default repair cap %d; a process file may only lower it (raise repair_cap in config.toml instead)", rc.Value, cfg.EffectiveRepairCap())
			}
		}
		if sm := p.Limits.SelfMerge; sm.Set && !sm.Bad && sm.Value {
			pass.Report(valueRange(sm), "a process file may only forbid a self-merge: self_merge = false")
		}
	},
}
