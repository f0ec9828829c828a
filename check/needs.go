package check

import "github.com/cairn-dev/cairn/ir"

// This file holds what a step waits for: the steps its needs name, or, when
// it writes none, the step or parallel group before it.

// needsOf returns, for each step of p, the indices of the steps it waits
// for, in file order: those its needs name that stand above it (the others
// are rule unknown-step's), or, when it writes no needs, the steps of the
// stage before its own.
func needsOf(p *ir.Process) [][]int {
	stages, stageOf := stagesOf(p)
	index := stepIndex(p)
	out := make([][]int, len(p.Steps))
	for i := range p.Steps {
		if ns := p.Steps[i].Keys().Needs; ns.Set {
			out[i] = writtenNeeds(ns, index, i)
			continue
		}
		if st := stageOf[i]; st > 0 {
			prev := stages[st-1]
			out[i] = make([]int, 0, prev.last-prev.first+1)
			for j := prev.first; j <= prev.last; j++ {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

// writtenNeeds are the indices, in file order and each once, of the steps
// above step i that ns names.
func writtenNeeds(ns ir.Strings, index map[string]int, i int) []int {
	var seen []bool
	out := []int{}
	for _, n := range ns.Value {
		j, ok := index[n.Value]
		if n.Bad || !ok || j >= i {
			continue
		}
		if seen == nil {
			seen = make([]bool, i)
		}
		if !seen[j] {
			seen[j] = true
			out = append(out, j)
		}
	}
	// File order, whatever order the list was written in.
	for a := 1; a < len(out); a++ {
		for b := a; b > 0 && out[b] < out[b-1]; b-- {
			out[b], out[b-1] = out[b-1], out[b]
		}
	}
	return out
}

// badNeeds reports whether needs ns of step i hold an item that names no
// step above it, or the list itself is refused.
func badNeeds(ns ir.Strings, index map[string]int, i int) bool {
	if !ns.Set {
		return false
	}
	if ns.Bad {
		return true
	}
	for _, n := range ns.Value {
		if j, ok := index[n.Value]; n.Bad || !ok || j >= i {
			return true
		}
	}
	return false
}

// stepIndex maps each usable step name of p to the index of its first
// step.
func stepIndex(p *ir.Process) map[string]int {
	index := make(map[string]int, len(p.Steps))
	for i := range p.Steps {
		if n := p.Steps[i].Name; n.Set && !n.Bad && n.Value != "" {
			if _, dup := index[n.Value]; !dup {
				index[n.Value] = i
			}
		}
	}
	return index
}

// writesNeeds reports whether a step of p writes its needs.
func writesNeeds(p *ir.Process) bool {
	for i := range p.Steps {
		if p.Steps[i].Keys().Needs.Set {
			return true
		}
	}
	return false
}

// ancestry tells, for two steps, whether one waits for the other through
// needs, directly or not.
type ancestry struct {
	words int
	// above holds, for each step, a bit for each step it waits for.
	above []uint64
}

// newAncestry is the ancestry of steps that wait for needs (needsOf).
func newAncestry(needs [][]int) *ancestry {
	n := len(needs)
	a := &ancestry{words: (n + 63) / 64}
	a.above = make([]uint64, n*a.words)
	for i, ns := range needs {
		row := a.row(i)
		for _, j := range ns {
			row[j/64] |= 1 << (j % 64)
			for w, bits := range a.row(j) {
				row[w] |= bits
			}
		}
	}
	return a
}

func (a *ancestry) row(i int) []uint64 { return a.above[i*a.words : (i+1)*a.words] }

// waits reports whether step i waits for step j.
func (a *ancestry) waits(i, j int) bool { return a.row(i)[j/64]&(1<<(j%64)) != 0 }

// RuleUnknownStep refuses a need that names no step, the step itself or a
// step below it; stubs and test files report it too (package stubs).
const RuleUnknownStep = ir.RuleUnknownStep

// ruleUnknownStep refuses each need of a step that names no step of the
// process (with a "did you mean"), the step itself, or a step below it: a
// step may only wait for steps above it, so no needs go round in a circle.
var ruleUnknownStep = &Rule{
	ID:       RuleUnknownStep,
	Doc:      "a step's needs naming no step, the step itself or a step below it; in stubs and test files, a stub or an expected step naming a step the process lacks (with a \"did you mean\" suggestion)",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		if !writesNeeds(p) {
			return
		}
		index := stepIndex(p)
		for i := range p.Steps {
			ns := p.Steps[i].Keys().Needs
			if !ns.Set || ns.Bad && len(ns.Value) == 0 {
				continue
			}
			var above []string
			for _, n := range ns.Value {
				if n.Bad {
					continue
				}
				j, ok := index[n.Value]
				switch {
				case !ok:
					if above == nil {
						above = namesAbove(p, i)
					}
					s := ir.Suggest(n.Value, above)
					pass.ReportFixes(valueRange(n), pass.change(n, s), "%s needs unknown step %q%s", stepRef(p, i), n.Value, ir.Meant(s))
				case j == i:
					pass.Report(valueRange(n), "%s needs itself; a step may only need steps above it", stepRef(p, i))
				case j > i:
					pass.ReportRelated(valueRange(n), []ir.Related{{Range: p.Steps[j].Header, Message: "the step it needs"}},
						"%s needs %s, which comes after it; a step may only need steps above it", stepRef(p, i), stepRef(p, j))
				}
			}
		}
	},
}

// namesAbove are the usable names of the steps above step i.
func namesAbove(p *ir.Process, i int) []string {
	names := make([]string, 0, i)
	for j := range i {
		if n := p.Steps[j].Name; n.Set && !n.Bad && n.Value != "" {
			names = append(names, n.Value)
		}
	}
	return names
}
