package check

import (
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/ir"
)

// RuleFlagAboveLimit is the ID of the rule about --budget and --access
// flags that lower nothing.
const RuleFlagAboveLimit = "flag-above-limit"

// ruleFlagAboveLimit notes a --budget above the budget the config or the
// file sets, and an --access above the process's access or the config's
// [limits] access: a flag only lowers a limit, so the lower limit holds and
// the flag does nothing, which a user who meant to raise it should be told.
// It points at the limit that holds.
var ruleFlagAboveLimit = &Rule{
	ID:       RuleFlagAboveLimit,
	Doc:      "a --budget or --access above the limit the file or the config sets, which holds: the flags only lower",
	Severity: ir.Note,
	Run: func(pass *Pass) {
		flags := pass.Env.Flags
		cfg := configOf(pass.Env)
		if flags.Budget > 0 {
			budgetAboveLimit(pass, cfg, flags.Budget)
		}
		if ir.AccessLevel(flags.Access) >= 0 {
			accessAboveLimit(pass, cfg, flags.Access)
		}
	},
}

// budgetAboveLimit notes a --budget of usd above the least of the config's
// and the file's budget_usd, at the one that holds.
func budgetAboveLimit(pass *Pass, cfg *config.Config, usd float64) {
	var (
		limit float64
		at    ir.Range
		what  string
		found bool
	)
	if c, ok := cfg.BudgetCeiling(); ok {
		limit, at, what, found = c.Value.USD, valueRange(c), "the config's [limits] budget_usd", true
	}
	p := pass.Process
	if f, ok := ir.BudgetOf(p.Limits.BudgetUSD); ok && (!found || f <= limit) {
		limit, at, what, found = f, valueRange(p.Limits.BudgetUSD), "the file's "+keyName(p, "budget_usd"), true
	}
	if found && usd > limit {
		pass.Report(at, "--budget %s is above %s %s, which holds; --budget only lowers a budget", ir.FormatUSD(usd), what, ir.FormatUSD(limit))
	}
}

// accessAboveLimit notes an --access of flag above the config's [limits]
// access or the process's access, at the one that holds (the config's, when
// both are below the flag), unless the flag lowers a session all the same
// (a step that asks for more than its process).
func accessAboveLimit(pass *Pass, cfg *config.Config, flag string) {
	if lowersAny(pass.Resolution) {
		return
	}
	if c, ok := cfg.AccessCeiling(); ok && ir.AccessLevel(c.Value) < ir.AccessLevel(flag) {
		pass.Report(valueRange(c), "--access %q is above the config's [limits] access %q, which holds; --access only lowers access", flag, c.Value)
		return
	}
	if a := pass.Process.Access; knownAccess(a) && ir.AccessLevel(a.Value) < ir.AccessLevel(flag) {
		pass.Report(valueRange(a), "--access %q is above the process's access %q, which holds; --access only lowers access", flag, a.Value)
	}
}

// lowersAny reports whether --access set the access of a session or a judge
// of res.
func lowersAny(res *Resolution) bool {
	if res == nil {
		return false
	}
	for _, s := range res.Steps {
		for _, a := range s.Actions {
			if a != nil && a.Access.Source == ir.FromFlag {
				return true
			}
		}
		if s.Judge != nil && s.Judge.Access.Source == ir.FromFlag {
			return true
		}
	}
	return false
}
