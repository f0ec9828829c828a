package check

import (
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/ir"
)

// RuleLoosenedLimit is the ID of the rule about file limits looser than the
// config's.
const RuleLoosenedLimit = "loosened-limit"

// ruleLoosenedLimit refuses a file limit that loosens what the config sets
// (docs/design.md §6.3): a repair_cap above the config's effective cap, self_merge =
// true, since a file may only forbid a self-merge, an access (the
// process's or a session step's) above the config's [limits] access, and a
// budget_usd above the config's.
var ruleLoosenedLimit = &Rule{
	ID:       RuleLoosenedLimit,
	Doc:      "a file limit looser than the config's (repair_cap above the config's, default 3; self_merge = true; an access or a budget_usd above the config's [limits]; any daily_budget_usd, which is the config's alone)",
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
		loosenedAccess(pass, cfg)
		loosenedBudget(pass, cfg)
		dailyBudget(pass, cfg)
	},
}

// dailyBudget refuses a file's daily_budget_usd: the daily budget is the
// config's alone, and a process file may neither set nor raise it.
func dailyBudget(pass *Pass, cfg *config.Config) {
	p := pass.Process
	f := p.Limits.DailyBudgetUSD
	if !f.Set {
		return
	}
	key := keyName(p, "daily_budget_usd")
	at := f.Key
	if !at.IsValid() {
		at = valueRange(f)
	}
	if d, ok := cfg.DailyBudget(); ok {
		pass.ReportRelated(at, []ir.Related{{Range: valueRange(d), Message: "the config's [limits] daily_budget_usd"}},
			"%s is the config's alone: a process file may neither set nor raise the daily budget, which the config sets to %s", key, ir.FormatUSD(d.Value.USD))
		return
	}
	pass.Report(at, "%s is the config's alone: a process file may neither set nor raise the daily budget; set [limits] daily_budget_usd in config.toml", key)
}

// loosenedBudget refuses the file's budget_usd when it is above the
// config's [limits] budget_usd: a file may only lower it. A step's budget
// is the step's own cap, under the run's, and loosens nothing.
func loosenedBudget(pass *Pass, cfg *config.Config) {
	ceiling, ok := cfg.BudgetCeiling()
	if !ok {
		return
	}
	p := pass.Process
	f := p.Limits.BudgetUSD
	if usd, ok := ir.BudgetOf(f); ok && usd > ceiling.Value.USD {
		key := keyName(p, "budget_usd")
		pass.ReportRelated(valueRange(f), []ir.Related{{Range: valueRange(ceiling), Message: "the config's [limits] budget_usd"}},
			"%s %s is above the config's [limits] budget_usd %s; a process file may only lower it", key, ir.FormatUSD(usd), ir.FormatUSD(ceiling.Value.USD))
	}
}

// loosenedAccess refuses the process's access and each session step's
// that ask for more than the config's [limits] access. A TOML or HCL step
// copies its access onto each of its actions: each value is refused once.
// An access on a command or catalogue step is misplaced-key's.
func loosenedAccess(pass *Pass, cfg *config.Config) {
	ceiling, ok := cfg.AccessCeiling()
	if !ok {
		return
	}
	seen := map[ir.Range]bool{}
	refuse := func(f ir.Field[string]) {
		at := valueRange(f)
		if !knownAccess(f) || ir.AccessLevel(f.Value) <= ir.AccessLevel(ceiling.Value) || seen[at] {
			return
		}
		seen[at] = true
		pass.ReportRelated(at, []ir.Related{{Range: valueRange(ceiling), Message: "the config's [limits] access"}},
			"access %q is above the config's [limits] access %q; a process file may only ask for less", f.Value, ceiling.Value)
	}
	p := pass.Process
	refuse(p.Access)
	for _, s := range p.Steps {
		for _, a := range s.Actions {
			if a.Kind == ir.Session {
				refuse(a.Keys().Access)
			}
		}
	}
}
