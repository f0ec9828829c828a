package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
)

// RuleBudgetUnmeasured is the ID of the rule about budgets over sessions
// whose harness reports no cost.
const RuleBudgetUnmeasured = "budget-unmeasured"

// ruleBudgetUnmeasured warns about a budget that cannot count all it
// covers: the run's budget (the file's, the config's or --budget) over
// steps whose sessions run on a harness that reports no cost (codex,
// Gemini CLI, a custom harness whose [harnesses.NAME.usage] names no
// cost_usd) on a model cairn's price table has no price for (the CLI's
// own default model among them), and a step's budget_usd over such a
// step. A step's sessions are its agents, its instruction judge and, for a
// delivery, its repair sessions: each spends. It points at the budget's
// key (no position for --budget), naming the steps; a harness no one
// knows is unknown-harness's.
var ruleBudgetUnmeasured = &Rule{
	ID:       RuleBudgetUnmeasured,
	Doc:      "a budget over session steps on a harness that reports no cost (codex, gemini, a custom harness without a usage cost_usd) and a model cairn has no price for: it cannot count what they spend",
	Severity: ir.Warning,
	Run: func(pass *Pass) {
		res := pass.Resolution
		if res == nil {
			return
		}
		p := pass.Process
		reg := harnessesOf(pass.Env)
		var repair *session
		if delivers(p) {
			if ra := repairSession(pass.Env); ra.Harness != nil {
				r := session{}
				r.adapter, _ = reg.Lookup(ra.Harness.Value)
				if ra.Model != nil {
					r.model = ra.Model.Value
				}
				repair = &r
			}
		}
		key := keyName(p, "budget_usd")
		var all []stepHarnesses
		for i := range p.Steps {
			if hs := unmeasured(&p.Steps[i], &res.Steps[i], repair); len(hs) > 0 {
				all = append(all, stepHarnesses{step: stepRef(p, i), harnesses: hs})
			}
		}
		if b := res.Limits.BudgetUSD; b != nil && len(all) > 0 {
			var subject string
			switch b.Source {
			case ir.FromFlag:
				subject = "--budget " + ir.FormatUSD(b.Value)
			case ir.FromConfig:
				subject = "the config's [limits] budget_usd " + ir.FormatUSD(b.Value)
			default:
				subject = key + " " + ir.FormatUSD(b.Value)
			}
			pass.Report(res.Limits.BudgetAt, "%s cannot count %s, so the run may spend more; %s", subject, sessionsOf(all), costHarnesses(reg))
		}
		seen := map[ir.Range]bool{}
		for i := range p.Steps {
			s := &p.Steps[i]
			for _, a := range s.Actions {
				usd, ok := ir.BudgetOf(a.Keys().BudgetUSD)
				at := a.Keys().BudgetUSD.At()
				if !ok || a.Kind != ir.Session || seen[at] {
					continue
				}
				seen[at] = true
				if hs := unmeasured(s, &res.Steps[i], repair); len(hs) > 0 {
					pass.Report(at, "%s %s cannot count %s, so the step may spend more; %s",
						key, ir.FormatUSD(usd), sessionsOf([]stepHarnesses{{step: stepRef(p, i), harnesses: hs}}), costHarnesses(reg))
				}
			}
		}
	},
}

// stepHarnesses are a step and the harnesses reporting no cost that its
// sessions run on.
type stepHarnesses struct {
	step      string
	harnesses []string
}

// session is a session's harness and model, "" for the CLI's own.
type session struct {
	adapter *harness.Harness
	model   string
}

// unmeasured returns the harnesses that step s starts sessions on that a
// budget cannot count, in first-use order: its agents', its instruction
// judge's, and repair's when s is a delivery. A harness's session counts
// when its CLI reports cost or cairn has a price for its model
// (harness.Harness.Priced).
func unmeasured(s *ir.Step, sr *StepResolution, repair *session) []string {
	var names []string
	add := func(h *harness.Harness, model string) {
		if h != nil && !h.Priced(model) && !slices.Contains(names, h.Name) {
			names = append(names, h.Name)
		}
	}
	for j, a := range s.Actions {
		if j < len(sr.Actions) && sr.Actions[j] != nil {
			add(sr.Actions[j].Adapter, sr.Actions[j].Model.Value)
		}
		if a.Kind == ir.Catalogue && a.Keys().Catalogue.Value == ir.Delivery && repair != nil {
			add(repair.adapter, repair.model)
		}
	}
	if j := sr.Judge; j != nil && j.Runs {
		add(j.Adapter, j.Model.Value)
	}
	return names
}

// sessionsOf words the steps whose sessions a budget cannot count, and
// why: `the sessions of step "a" and step "b": codex reports no cost`, each
// step with its harnesses when they are not all one.
func sessionsOf(all []stepHarnesses) string {
	var harnesses, steps []string
	for _, sh := range all {
		for _, h := range sh.harnesses {
			if !slices.Contains(harnesses, h) {
				harnesses = append(harnesses, h)
			}
		}
	}
	for _, sh := range all {
		if len(harnesses) > 1 {
			steps = append(steps, fmt.Sprintf("%s (%s)", sh.step, strings.Join(sh.harnesses, ", ")))
		} else {
			steps = append(steps, sh.step)
		}
	}
	verb := "reports"
	if len(harnesses) > 1 {
		verb = "report"
	}
	return fmt.Sprintf("the sessions of %s: %s %s no cost", andList(steps), andList(harnesses), verb)
}

// costHarnesses is the end of a budget-unmeasured warning: the harnesses
// that report cost, which a budget counts, and how the others' sessions
// get one: a model cairn has a price for.
func costHarnesses(reg *harness.Registry) string {
	return reportCost(reg) + "; name a model cairn has a price for, or add its price to the config's [prices]"
}

// reportCost words the harnesses that report cost: "only claude reports
// it", "only claude and opencode report it".
func reportCost(reg *harness.Registry) string {
	var names []string
	for _, n := range reg.Names() {
		if h, ok := reg.Lookup(n); ok && h.ReportsCost() {
			names = append(names, n)
		}
	}
	if len(names) == 1 {
		return "only " + names[0] + " reports it"
	}
	return "only " + andList(names) + " report it"
}

// andList spells items for a message: "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
