package check

import (
	"fmt"

	"github.com/cairn-dev/cairn/ir"
)

// RuleUnmappedTier is the ID of the rule about model tiers a harness has no
// model for.
const RuleUnmappedTier = "unmapped-tier"

// ruleUnmappedTier refuses a model written as a tier (or a tier alias) that
// neither [models.HARNESS] nor the harness's built-in defaults map: at the
// step's model value, the validate phase's, the config's value, or with no
// position for --model. The message says which table to add.
var ruleUnmappedTier = &Rule{
	ID:       RuleUnmappedTier,
	Doc:      "a model tier with no mapping for the step's harness",
	Severity: ir.Error,
	Run: func(pass *Pass) {
		res := pass.Resolution
		if res == nil {
			return
		}
		seen := map[string]bool{}
		report := func(m Resolved, harness string, at ir.Range) {
			// One value reaches many steps from a flag, the config, or a
			// step key copied onto several actions: report it once per
			// harness.
			key := fmt.Sprintf("%s|%s|%v", harness, m.Source, at)
			if seen[key] {
				return
			}
			seen[key] = true
			what := fmt.Sprintf("model tier %q", m.Tier)
			if m.Value != m.Tier {
				what = fmt.Sprintf("model %q (tier %q)", m.Value, m.Tier)
			}
			switch m.Source {
			case ir.FromFlag:
				what += " given by --model"
			case ir.FromConfig:
				what += " in config.toml"
			case ir.FromDefault:
				what = fmt.Sprintf("the instruction judge's default model tier %q", m.Tier)
			}
			pass.Report(at, "%s has no mapping for harness %q; add %s = \"MODEL\" under [models.%s] in config.toml", what, harness, m.Tier, harness)
		}
		for i, sr := range res.Steps {
			for _, s := range sr.Actions {
				if s != nil && s.Model.Unmapped {
					report(s.Model, s.Harness.Value, s.Model.Range)
				}
			}
			j := sr.Judge
			if j == nil || !j.Model.Unmapped || !j.Runs && j.Model.Source != ir.FromStep {
				continue
			}
			at := j.Model.Range
			if j.Model.Source == ir.FromDefault {
				at = pass.Process.Steps[i].Validate.Header
			}
			report(j.Model, j.Harness.Value, at)
		}
	},
}
