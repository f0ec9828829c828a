package check

import (
	"cmp"
	"slices"

	"github.com/cairn-dev/cairn/ir"
)

// The IDs of the rules about declared worktrees.
const (
	RuleUnknownWorktree   = "unknown-worktree"
	RuleSingleIssueBranch = "single-issue-branch"
	RuleUnusedWorktree    = "unused-worktree"
)

// ruleUnknownWorktree refuses a step's worktree or default_worktree naming a
// worktree the process does not declare. A step may name the implicit
// "default" while nothing else claims that name.
var ruleUnknownWorktree = &Rule{
	ID:       RuleUnknownWorktree,
	Doc:      "a step or default_worktree naming an undeclared worktree",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		names := make([]string, 0, len(p.Worktrees)+1)
		for _, w := range p.Worktrees {
			names = append(names, w.Name)
		}
		if d := p.DefaultWorktree; d.Set && !d.Bad && declared(p, d.Value) == nil {
			s := ir.Suggest(d.Value, names)
			pass.ReportFixes(valueRange(d), pass.change(d, s), "default_worktree names undeclared worktree %q; %s%s", d.Value, declareHint(p, d.Value), ir.Meant(s))
		}
		if implicitAvailable(p) {
			names = append(names, ir.ImplicitWorktree)
		}
		for _, s := range p.Steps {
			w := s.Keys().Worktree
			if !w.Set || w.Bad || slices.Contains(names, w.Value) {
				continue
			}
			s := ir.Suggest(w.Value, names)
			pass.ReportFixes(valueRange(w), pass.change(w, s), "unknown worktree %q; %s%s", w.Value, declareHint(p, w.Value), ir.Meant(s))
		}
	},
}

// declareHint tells how to declare worktree name in p's format.
func declareHint(p *ir.Process, name string) string {
	if p.Format == ir.HCL {
		return `declare it with worktree "` + name + `" { kind = "throwaway" }`
	}
	return "declare it under [worktrees." + name + "]"
}

// worktreesInOrder returns p's worktrees in the order the file declares them.
func worktreesInOrder(p *ir.Process) []*ir.Worktree {
	ws := make([]*ir.Worktree, len(p.Worktrees))
	for i := range p.Worktrees {
		ws[i] = &p.Worktrees[i]
	}
	slices.SortStableFunc(ws, func(a, b *ir.Worktree) int {
		return cmp.Or(cmp.Compare(a.Header.Start.Line, b.Header.Start.Line), cmp.Compare(a.Header.Start.Column, b.Header.Start.Column))
	})
	return ws
}

// isIssueBranch reports whether w is declared as an issue-branch worktree.
func isIssueBranch(w *ir.Worktree) bool {
	return w.Kind.Set && !w.Kind.Bad && w.Kind.Value == ir.IssueBranch
}

// ruleSingleIssueBranch refuses a second issue-branch worktree: a run works on
// one issue, which has one branch.
var ruleSingleIssueBranch = &Rule{
	ID:       RuleSingleIssueBranch,
	Doc:      "more than one issue-branch worktree",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		var first *ir.Worktree
		for _, w := range worktreesInOrder(pass.Process) {
			if !isIssueBranch(w) {
				continue
			}
			if first == nil {
				first = w
				continue
			}
			pass.ReportRelated(valueRange(w.Kind), []ir.Related{{Range: valueRange(first.Kind), Message: "the first issue-branch worktree"}},
				"worktree %q is a second issue-branch worktree after %q; a process works on one issue branch", w.Name, first.Name)
		}
	},
}

// ruleUnusedWorktree warns about a declared worktree no step runs in.
var ruleUnusedWorktree = &Rule{
	ID:       RuleUnusedWorktree,
	Doc:      "a declared worktree no step uses",
	Severity: ir.Warning,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		used := map[string]bool{}
		for i := range p.Steps {
			name, ok := worktreeOf(p, &p.Steps[i])
			if !ok {
				// A step runs in a worktree the front-end could not read:
				// it may be any of them.
				return
			}
			used[name] = true
		}
		for _, w := range worktreesInOrder(p) {
			if !used[w.Name] {
				pass.Report(w.Header, "worktree %q is declared but no step uses it; name it in a step's worktree or remove it", w.Name)
			}
		}
	},
}
