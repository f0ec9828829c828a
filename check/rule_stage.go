package check

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// This file holds what several rules need to know about a process's shape:
// its stages, the worktree each step runs in, and which steps edit.

// stage is one step or one consecutive parallel group: the steps, by index
// into Process.Steps, that start together.
type stage struct {
	first, last int
}

// group returns the parallel group a step belongs to, or "" for none.
func group(s *ir.Step) string {
	if f := s.Keys().Parallel; f.Set && !f.Bad {
		return f.Value
	}
	return ""
}

// stagesOf splits p's steps into stages and returns, for each step, the index
// of its stage.
func stagesOf(p *ir.Process) ([]stage, []int) {
	// Rules ask four times and the plan once, so the stages are counted
	// first and allocated once, not grown: growing them made a long
	// process's garbage five times over.
	n := 0
	for i := range p.Steps {
		if !joinsPrevious(p, i) {
			n++
		}
	}
	stages := make([]stage, 0, n)
	of := make([]int, len(p.Steps))
	for i := range p.Steps {
		if joinsPrevious(p, i) {
			stages[len(stages)-1].last = i
		} else {
			stages = append(stages, stage{first: i, last: i})
		}
		of[i] = len(stages) - 1
	}
	return stages, of
}

// joinsPrevious reports whether step i runs in the parallel group of the
// step before it.
func joinsPrevious(p *ir.Process, i int) bool {
	if i == 0 {
		return false
	}
	g := group(&p.Steps[i])
	return g != "" && g == group(&p.Steps[i-1])
}

// edits reports whether a step changes its worktree: session and command
// actions edit, catalogue actions do not.
func edits(s *ir.Step) bool {
	for _, a := range s.Actions {
		if a.Kind == ir.Session || a.Kind == ir.Command {
			return true
		}
	}
	return false
}

// catalogueOf returns the catalogue step a step is, or "" when it is not
// exactly one catalogue action.
func catalogueOf(s *ir.Step) string {
	if len(s.Actions) != 1 || s.Actions[0].Kind != ir.Catalogue {
		return ""
	}
	c := s.Actions[0].Keys().Catalogue
	if !c.Set || c.Bad {
		return ""
	}
	return c.Value
}

// sessions counts a step's session actions.
func sessions(s *ir.Step) int {
	n := 0
	for _, a := range s.Actions {
		if a.Kind == ir.Session {
			n++
		}
	}
	return n
}

// stepRef names a step in a message: `step "build"`, or `step 3` (1-based)
// when it has no usable name.
func stepRef(p *ir.Process, i int) string {
	if n := p.Steps[i].Name; n.Set && !n.Bad && n.Value != "" {
		return fmt.Sprintf("step %q", n.Value)
	}
	return fmt.Sprintf("step %d", i+1)
}

// declared returns the first worktree p declares under name, or nil.
func declared(p *ir.Process, name string) *ir.Worktree {
	for i := range p.Worktrees {
		if p.Worktrees[i].Name == name {
			return &p.Worktrees[i]
		}
	}
	return nil
}

// implicitAvailable reports whether a step may name the implicit worktree
// "default": only when the process neither declares one of that name nor sets
// default_worktree.
func implicitAvailable(p *ir.Process) bool {
	return !p.DefaultWorktree.Set && declared(p, ir.ImplicitWorktree) == nil
}

// worktreeOf returns the name of the worktree step s runs in: its own
// worktree, else default_worktree, else the implicit "default". It returns
// false when the name cannot be known (a field the front-end refused).
func worktreeOf(p *ir.Process, s *ir.Step) (string, bool) {
	if f := s.Keys().Worktree; f.Set {
		return f.Value, !f.Bad
	}
	if p.DefaultWorktree.Set {
		return p.DefaultWorktree.Value, !p.DefaultWorktree.Bad
	}
	return ir.ImplicitWorktree, true
}

// kindOf returns the kind of the worktree called name, and false when no
// worktree of that name exists or its kind is unusable. The implicit
// "default" is a throwaway worktree, or the checkout for a card (docs/design.md §4.4).
func kindOf(p *ir.Process, name string) (string, bool) {
	if w := declared(p, name); w != nil {
		return w.Kind.Value, w.Kind.Set && !w.Kind.Bad
	}
	if name == ir.ImplicitWorktree && implicitAvailable(p) {
		if p.Format == ir.Card {
			return ir.Checkout, true
		}
		return ir.Throwaway, true
	}
	return "", false
}

// keyRange returns where f's key is, falling back to its value.
func keyRange[T any](f ir.Field[T]) ir.Range {
	if f.Key.IsValid() {
		return f.Key
	}
	return f.Range
}

// valueRange returns where f's value is, falling back to its key.
func valueRange[T any](f ir.Field[T]) ir.Range {
	if f.Range.IsValid() {
		return f.Range
	}
	return f.Key
}

// keyName spells a snake_case key the way p's format writes it: cards use
// dashes (max-turns, run-expiry).
func keyName(p *ir.Process, key string) string {
	if p.Format == ir.Card {
		return strings.ReplaceAll(key, "_", "-")
	}
	return key
}
