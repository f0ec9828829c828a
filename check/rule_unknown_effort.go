package check

import (
	"fmt"
	"slices"

	"github.com/cairn-dev/cairn/ir"
)

// RuleUnknownEffort is the ID of the rule about efforts a harness cannot
// take.
const RuleUnknownEffort = "unknown-effort"

// ruleUnknownEffort refuses an effort set on a step that the step's harness
// cannot take. An effort from the config or --effort that a harness cannot
// take is dropped from the plan, with a note at where it was set. An effort
// outside cairn's five is invalid-value's to refuse.
var ruleUnknownEffort = &Rule{
	ID:       RuleUnknownEffort,
	Doc:      "an effort the step's harness cannot take (set on the step; one from the config is dropped with a note)",
	Severity: ir.Error,
	Run: func(pass *Pass) {
		res := pass.Resolution
		if res == nil {
			return
		}
		seen := map[ir.Range]bool{}
		noted := map[[2]string]bool{}
		for _, sr := range res.Steps {
			for _, s := range sr.Actions {
				if s == nil || s.Adapter == nil {
					continue
				}
				if e := s.Effort; e.Source == ir.FromStep && slices.Contains(ir.Efforts, e.Value) {
					if _, ok := s.Adapter.Effort(e.Value); !ok && !seen[e.Range] {
						seen[e.Range] = true
						takes := s.Adapter.Efforts()
						if len(takes) == 0 {
							pass.ReportFixes(e.Range, removeEffort(pass.Process, e.Range), "harness %q takes no effort; remove \"effort\"", s.Harness.Value)
						} else {
							pass.Report(e.Range, "harness %q takes %s, not %q", s.Harness.Value, ir.OneOf(takes), e.Value)
						}
					}
				}
				d := s.DroppedEffort
				if d == nil {
					continue
				}
				key := [2]string{string(d.Source), s.Harness.Value}
				if noted[key] {
					continue
				}
				noted[key] = true
				from := "set in config.toml"
				if d.Source == ir.FromFlag {
					from = "given by --effort"
				}
				takes := "takes no effort"
				if t := s.Adapter.Efforts(); len(t) > 0 {
					takes = "takes " + ir.OneOf(t)
				}
				pass.ReportAs(ir.Note, d.Range, nil, "effort %q %s is not passed to harness %q, which %s", d.Value, from, s.Harness.Value, takes)
			}
		}
	},
}

// removeEffort is the fix that deletes the effort whose value is at r, key
// and value, with its line; nil when that line holds more.
func removeEffort(p *ir.Process, r ir.Range) []ir.Fix {
	for i := range p.Steps {
		for _, a := range p.Steps[i].Actions {
			f := a.Keys().Effort
			if f.Range != r || !f.Key.IsValid() {
				continue
			}
			e, ok := ir.DeleteLines(p.Source, f.At())
			if !ok {
				return nil
			}
			return []ir.Fix{{Message: fmt.Sprintf("remove effort = %q", f.Value), Edits: []ir.Edit{e}}}
		}
	}
	return nil
}
