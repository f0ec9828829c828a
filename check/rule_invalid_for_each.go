package check

import (
	"github.com/cairn-dev/cairn/expr"
	"github.com/cairn-dev/cairn/ir"
	"github.com/zclconf/go-cty/cty"
)

// RuleInvalidForEach is the ID of the rule that type-checks a step's
// for_each.
const RuleInvalidForEach = "invalid-for-each"

// ruleInvalidForEach refuses a for_each that does not parse, that expr's
// type check refuses (as a when's, and one that gives no list or reads
// item), or that is written on a catalogue step, which runs once. Each
// refusal points inside the expression, at what it is about.
var ruleInvalidForEach = &Rule{
	ID:       RuleInvalidForEach,
	Doc:      "a step's for_each that does not parse, gives no list, reads a step the step does not wait for or an unknown field of an output, or is written on a catalogue step",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		var anc *ancestry
		for i := range p.Steps {
			f := p.Steps[i].Keys().ForEach
			if !f.Set || f.Bad {
				continue
			}
			for _, a := range p.Steps[i].Actions {
				if a.Kind == ir.Catalogue {
					pass.Report(f.Key, "for_each runs a step's sessions and commands once per item; catalogue step %s runs once: move for_each to a step of its own", stepRef(p, i))
					break
				}
			}
			if anc == nil {
				anc = newAncestry(needsOf(p))
			}
			_, errs := itemType(p, anc, i, repoRoot(pass.Env))
			for _, e := range errs {
				pass.Report(within(f, e.Start, e.End), "for_each: %s", e.Message)
			}
		}
	},
}

// itemType is the type of the items of step i's for_each, read against
// the steps it waits for, with the refusals of its check: cty.NilType for
// a step without one.
func itemType(p *ir.Process, anc *ancestry, i int, repo string) (cty.Type, []expr.Error) {
	f := p.Steps[i].Keys().ForEach
	if !f.Set || f.Bad {
		return cty.NilType, nil
	}
	x, errs := expr.Parse(f.Value)
	if len(errs) > 0 {
		return cty.DynamicPseudoType, errs
	}
	env := whenEnv(p, anc, i, repo)
	return x.CheckList(env)
}

// hasForEach reports whether s runs once per item of a for_each.
func hasForEach(s *ir.Step) bool {
	return s.Keys().ForEach.Set
}

// editsOwn reports whether s may edit the worktree it names: a step of
// sessions or commands does, unless it has for_each, whose items each
// work in a throwaway of their own.
func editsOwn(s *ir.Step) bool {
	return edits(s) && !hasForEach(s)
}
