package check

import "github.com/cairn-dev/cairn/ir"

// RuleUnknownHarness is the ID of the rule about harnesses that are neither
// built in nor in the config.
const RuleUnknownHarness = "unknown-harness"

// ruleUnknownHarness refuses a resolved harness that is neither built in nor
// a [harnesses.NAME] of the config: at the step's harness value, at the
// config's, or with no position when --harness gave it.
var ruleUnknownHarness = &Rule{
	ID:       RuleUnknownHarness,
	Doc:      "a harness that is neither built in nor in the config",
	Severity: ir.Error,
	Run: func(pass *Pass) {
		res := pass.Resolution
		if res == nil {
			return
		}
		names := harnessesOf(pass.Env).Names()
		reported := map[ir.Source]bool{}
		seen := map[ir.Range]bool{}
		report := func(h Resolved) {
			if h.Source == ir.FromStep {
				if seen[h.Range] {
					return
				}
				seen[h.Range] = true
			} else {
				// A flag's or the config's harness is one mistake, however
				// many steps it reaches.
				if reported[h.Source] {
					return
				}
				reported[h.Source] = true
			}
			hint := "use " + ir.OneOf(names) + ", or define it under [harnesses." + h.Value + "] in config.toml"
			sug := ir.Suggest(h.Value, names)
			switch h.Source {
			case ir.FromFlag:
				pass.Report(ir.Range{}, "unknown harness %q given by --harness%s; %s", h.Value, ir.Meant(sug), hint)
			case ir.FromConfig:
				var fixes []ir.Fix
				if cfg := configOf(pass.Env); h.Range.File == cfg.File {
					fixes = ir.Change(cfg.Source, h.Range, h.Value, sug)
				}
				pass.ReportFixes(h.Range, fixes, "unknown harness %q in config.toml%s; %s", h.Value, ir.Meant(sug), hint)
			default:
				var fixes []ir.Fix
				if h.Range.File == pass.Process.File {
					fixes = ir.Change(pass.Process.Source, h.Range, h.Value, sug)
				}
				pass.ReportFixes(h.Range, fixes, "unknown harness %q%s; %s", h.Value, ir.Meant(sug), hint)
			}
		}
		for _, sr := range res.Steps {
			for _, s := range sr.Actions {
				if s != nil && s.Adapter == nil {
					report(s.Harness)
				}
			}
			if j := sr.Judge; j != nil && j.Runs && j.Adapter == nil {
				report(j.Harness)
			}
		}
	},
}
