package ir

import (
	"slices"
	"testing"
)

// TestDAGAbove: a step waits for the steps it needs and, through them,
// for theirs, in file order; nothing of the steps beside it. A step that
// writes no needs waits for the stage before it.
func TestDAGAbove(t *testing.T) {
	t.Parallel()
	plan := &Plan{Stages: [][]PlanStep{
		{{Name: "a"}},
		{{Name: "b", Needs: []string{"a"}, NeedsWritten: true}},
		{{Name: "c", Needs: []string{"a"}, NeedsWritten: true}},
		{{Name: "d", Needs: []string{"c", "b"}, NeedsWritten: true}},
		{{Name: "e", Needs: []string{"c"}, NeedsWritten: true}},
		{{Name: "f", Needs: []string{"e"}}, {Name: "g", Needs: []string{"e"}, Parallel: "p"}},
	}}
	d := NewDAG(plan)
	for i, want := range [][]int{nil, {0}, {0}, {0, 1, 2}, {0, 2}, {0, 2, 4}, {0, 2, 4}} {
		if !slices.Equal(d.Above[i], want) {
			t.Errorf("%s waits for %v; want %v", d.Steps[i].Name, d.Above[i], want)
		}
	}
	if got := d.Needs[3]; !slices.Equal(got, []int{2, 1}) {
		t.Errorf("d needs %v; want [2 1], as written", got)
	}
	if !plan.WritesNeeds() || (&Plan{Stages: [][]PlanStep{{{Name: "a"}}}}).WritesNeeds() {
		t.Errorf("WritesNeeds is wrong")
	}
}
