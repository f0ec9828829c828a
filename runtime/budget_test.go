package runtime

import (
	"testing"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// TestPurse: a session is given the least any budget over it has left;
// one that spent a budget is refused, one past it fails; a child run's
// spending is its parent's too.
func TestPurse(t *testing.T) {
	parent := newPurse("budget", 4, 1, nil)
	child := newPurse("budget", 0, 0, parent)
	step := newPurse("step budget", 2.5, 0, child)
	check := func(p *purse, left float64, cause string) {
		t.Helper()
		l, _, err := p.left()
		if l != left || (err == nil) != (cause == "") || err != nil && err.Error() != cause {
			t.Errorf("left() = %v, %v; want %v, %q", l, err, left, cause)
		}
	}
	check(step, 2.5, "")
	check(child, 3, "")
	step.charge(1.75)
	check(step, 0.75, "")
	check(child, 1.25, "")
	if s, _ := parent.state(); s != 2.75 {
		t.Errorf("the parent spent %v; want 2.75", s)
	}
	child.charge(1.25)
	check(step, 0, "budget spent: $4.00 of $4.00")
	if err := step.passed(); err != nil {
		t.Errorf("passed() = %v at the budget; want nil", err)
	}
	step.charge(0.02)
	if err := step.passed(); err == nil || err.Error() != "budget spent: $4.02 of $4.00" {
		t.Errorf("passed() = %v", err)
	}
	if got := newPurse("budget", 0, 7, nil); got.passed() != nil {
		t.Errorf("a purse with no budget passed one")
	}
	check(newPurse("budget", 0, 7, nil), 0, "")
}

// TestStepSpending: the step's usage starts from its earlier attempts', a
// judge's counts in the judges' share, and a session its CLI stopped at its
// budget fails with the tightest budget's cause.
func TestStepSpending(t *testing.T) {
	run := newPurse("budget", 1, 0.5, nil)
	st := &ir.PlanStep{Name: "fix", Actions: []ir.PlanAction{{Kind: ir.Session}}}
	sr := &record.StepRecord{Usage: ir.Usage{CostUSD: ir.Dollars(0.5)}}
	s := newStepSpending(st, sr, run)
	if left, err := s.meter(false).Before(); left != 0.5 || err != nil {
		t.Errorf("Before() = %v, %v", left, err)
	}
	if err := s.meter(true).After("", harness.SessionEnd{ID: "j", Usage: ir.Usage{CostUSD: ir.Dollars(0.25)}}); err != nil {
		t.Errorf("After(judge) = %v", err)
	}
	err := s.meter(false).After("", harness.SessionEnd{ID: "a", Budget: true, Usage: ir.Usage{CostUSD: ir.Dollars(0.2)}})
	if err == nil || err.Error() != "budget spent: $0.95 of $1.00" {
		t.Errorf("After(stopped at its budget) = %v", err)
	}
	usage, judges, stopped := s.result()
	if usage.Cost() != 0.95 || judges.Cost() != 0.25 || stopped != err {
		t.Errorf("result() = %+v, %+v, %v", usage, judges, stopped)
	}
}

// TestUnpricedWarning: a session whose CLI knew no prices for its model is
// warned about once a step, when a budget is over it.
func TestUnpricedWarning(t *testing.T) {
	st := &ir.PlanStep{Name: "ask", Actions: []ir.PlanAction{{Kind: ir.Session}}}
	unpriced := harness.SessionEnd{ID: "s", Worked: true, Unpriced: true, Usage: ir.Usage{Turns: ir.Count(1), InputTokens: ir.Count(7)}}
	for _, tc := range []struct {
		budget float64
		want   int
	}{{1, 1}, {0, 0}} {
		var warned []string
		s := newStepSpending(st, &record.StepRecord{}, newPurse("budget", tc.budget, 0, nil))
		s.warn = func(err error) { warned = append(warned, err.Error()) }
		for range 2 {
			if err := s.meter(false).After("", unpriced); err != nil {
				t.Fatal(err)
			}
		}
		if len(warned) != tc.want || tc.want > 0 && warned[0] != `step "ask": a session's CLI has no prices for its model and reported no cost, so no budget can count what it spent [budget-unmeasured]` {
			t.Errorf("budget %v: warned %q", tc.budget, warned)
		}
	}
}
