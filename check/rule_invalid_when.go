package check

import (
	"github.com/cairn-dev/cairn/expr"
	"github.com/cairn-dev/cairn/ir"
	"github.com/zclconf/go-cty/cty"
)

// RuleInvalidWhen is the ID of the rule that type-checks a step's when.
const RuleInvalidWhen = "invalid-when"

// ruleInvalidWhen refuses a when that does not parse, or that expr's type
// check refuses: one that is no condition, reads a step the step does not
// wait for or a field its output's schema lacks, compares a string with a
// number, or calls a function when does not take. Each refusal points
// inside the expression, at what it is about.
var ruleInvalidWhen = &Rule{
	ID:       RuleInvalidWhen,
	Doc:      "a step's when that does not parse, is no condition, reads a step the step does not wait for or an unknown field of an output, compares unlike values, or calls a function other than contains, length, startswith and endswith",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		var anc *ancestry
		for i := range p.Steps {
			w := p.Steps[i].Keys().When
			if !w.Set || w.Bad {
				continue
			}
			x, errs := expr.Parse(w.Value)
			if len(errs) == 0 {
				if anc == nil {
					anc = newAncestry(needsOf(p))
				}
				errs = x.Check(whenItemEnv(p, anc, i, repoRoot(pass.Env)))
			}
			for _, e := range errs {
				pass.Report(within(w, e.Start, e.End), "when: %s", e.Message)
			}
		}
	},
}

// whenEnv is what step i's when may read: the steps it waits for, each with
// its output's type (its output_schema read in repo), and the others by
// name.
func whenEnv(p *ir.Process, anc *ancestry, i int, repo string) expr.Env {
	env := expr.Env{Steps: map[string]cty.Type{}, Item: cty.NilType}
	for j := range p.Steps {
		n := p.Steps[j].Name
		if !n.Set || n.Bad || n.Value == "" || j == i {
			continue
		}
		if j < i && anc.waits(i, j) {
			env.Steps[n.Value] = outputType(&p.Steps[j], repo)
		} else {
			env.Others = append(env.Others, n.Value)
		}
	}
	return env
}

// whenItemEnv is whenEnv with the type of step i's for_each items: what
// its when may read.
func whenItemEnv(p *ir.Process, anc *ancestry, i int, repo string) expr.Env {
	env := whenEnv(p, anc, i, repo)
	env.Item, _ = itemType(p, anc, i, repo)
	return env
}

// outputType is the type of step s's output, as its output_schema says
// (read in repo); cty.NilType for a step without one, any type for a
// schema that cannot be read here (a file, with no repository). The
// output of a step with for_each is the list of its items' outputs.
func outputType(s *ir.Step, repo string) cty.Type {
	t := oneOutputType(s, repo)
	if t != cty.NilType && hasForEach(s) {
		return cty.List(t)
	}
	return t
}

// oneOutputType is the type of one output of step s.
func oneOutputType(s *ir.Step, repo string) cty.Type {
	out, _ := outputSchema(s, repo)
	switch {
	case out == nil:
		if f := s.Keys().OutputSchema; f.Set {
			return cty.DynamicPseudoType
		}
		return cty.NilType
	case out.Schema == "":
		return cty.DynamicPseudoType
	}
	return expr.SchemaType([]byte(out.Schema))
}

// within is the range of bytes start up to end of f's value in the file,
// the value's whole range when they cannot be placed.
func within(f ir.Field[string], start, end int) ir.Range {
	r := valueRange(f)
	s, e := ir.PosAt(f.Value, f.Spans, start), ir.PosAt(f.Value, f.Spans, end)
	if s.Line == 0 || e.Line == 0 {
		return r
	}
	r.Start, r.End = s, e
	return r
}

// WhenTypeAt is the type of what step i's when holds at byte offset of its
// source (expr.Expr.TypeAt), read against the steps it waits for: for a
// language server's hover.
func WhenTypeAt(p *ir.Process, i, offset int, repo string) (what, typ string, ok bool) {
	w := p.Steps[i].Keys().When
	if !w.Set || w.Bad {
		return "", "", false
	}
	x, errs := expr.Parse(w.Value)
	if len(errs) > 0 {
		return "", "", false
	}
	return x.TypeAt(offset, whenItemEnv(p, newAncestry(needsOf(p)), i, repo))
}

// ForEachTypeAt is WhenTypeAt for step i's for_each: the type of what it
// holds at byte offset of its source, or, off any name, of the list it
// gives.
func ForEachTypeAt(p *ir.Process, i, offset int, repo string) (what, typ string, ok bool) {
	f := p.Steps[i].Keys().ForEach
	if !f.Set || f.Bad {
		return "", "", false
	}
	x, errs := expr.Parse(f.Value)
	if len(errs) > 0 {
		return "", "", false
	}
	what, typ, ok = x.TypeAt(offset, whenEnv(p, newAncestry(needsOf(p)), i, repo))
	if ok && what == "when" {
		what = "for_each"
	}
	return what, typ, ok
}
