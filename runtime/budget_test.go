package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/codegen"
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
	// $1.00 less $0.55 is $0.45, not the 0.44999999999999996 of floats.
	check(newPurse("budget", 1, 0.55, nil), 0.45, "")
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

// TestShareOf: a member's share is what is left, less what the running
// members' shares hold, divided by the members still to be given one, to a
// billionth of a dollar and never below 0.
func TestShareOf(t *testing.T) {
	for _, tc := range []struct {
		left, held float64
		waiting    int
		want       float64
	}{
		{1, 0, 5, 0.2},
		{1, 0.8, 1, 0.2}, // 1 - 0.8 is 0.19999999999999996
		{0.6, 0, 3, 0.2},
		{0.95, 0, 4, 0.2375},
		{1, 0, 3, 0.333333333},
		{2, 0.5, 2, 0.75},
		{0.5, 0.5, 2, 0},
		{0.4, 0.6, 2, 0}, // a member ran past its share
		{4, 0, 1, 4},
		{4, 0, 0, 4},
		{0.000000003, 0, 2, 0.000000001},
	} {
		if got := shareOf(tc.left, tc.held, tc.waiting); got != tc.want {
			t.Errorf("shareOf(%v, %v, %d) = %v; want %v", tc.left, tc.held, tc.waiting, got, tc.want)
		}
	}
}

// TestSplit: the members of a parallel group are given shares that, for
// those running at once, add up to no more than what is left; a member that
// ends gives back what it left of its share to those that start after it.
func TestSplit(t *testing.T) {
	limitOf := func(p *purse) float64 {
		_, l := p.state()
		return l
	}
	// Five at once under $1.00: $0.20 each.
	run := newPurse("budget", 1, 0, nil)
	s := newSplit(run, 5)
	sum := 0.0
	for range 5 {
		p := s.share()
		if !p.share || p.parent != run || limitOf(p) != 0.2 {
			t.Fatalf("share %+v; want $0.20 under the run's", p)
		}
		sum += limitOf(p)
	}
	if sum > 1 {
		t.Errorf("five shares of $1.00 add up to %v", sum)
	}

	// Two at a time (--jobs 2): the third starts once the first ended
	// having spent $0.05 of its $0.20, while the second holds its $0.20.
	run = newPurse("budget", 1, 0, nil)
	s = newSplit(run, 5)
	a, b := s.share(), s.share()
	a.charge(0.05)
	s.end(a)
	c := s.share()
	if got := limitOf(c); got != 0.25 { // (0.95 - 0.2) / 3
		t.Errorf("third share %v; want 0.25", got)
	}
	// The second ran past its share: what is left is the others'.
	b.charge(0.5)
	s.end(b)
	d := s.share()
	if got := limitOf(d); got != 0.1 { // (0.45 - 0.25) / 2
		t.Errorf("fourth share %v; want 0.1", got)
	}
	// The fourth runs past its share while the third holds its own.
	d.charge(0.3)
	e := s.share()
	if got := limitOf(e); got != 0 {
		t.Errorf("fifth share %v; want 0, the rest held", got)
	}
	if _, _, err := e.left(); err == nil || err.Error() != "no share of the budget left: the steps running beside it hold the rest" {
		t.Errorf("a share of nothing: left() = %v", err)
	}

	// No budget, or a spent one: no share, the run's purse itself.
	for _, over := range []*purse{newPurse("budget", 0, 3, nil), newPurse("budget", 1, 1, nil)} {
		if p := newSplit(over, 2).share(); p != over {
			t.Errorf("a split of %+v gave a share", over)
		}
	}
}

// TestShareCauses: a share gives way to the budget over it: on a tie the
// budget is the tightest, and when both were passed the budget is the
// cause; a share passed alone is its own cause.
func TestShareCauses(t *testing.T) {
	run := newPurse("budget", 1, 0.6, nil)
	share := &purse{what: "share of the budget", limit: 0.4, parent: run, share: true}
	if _, tightest, _ := share.left(); tightest != run {
		t.Errorf("on a tie, the tightest is %q; want the run's budget", tightest.what)
	}
	step := newPurse("step budget", 0.4, 0, share)
	if _, tightest, _ := step.left(); tightest != step {
		t.Errorf("on a tie with a step's budget, the tightest is %q; want the step's", tightest.what)
	}
	share.charge(0.3)
	if err := share.passed(); err != nil {
		t.Errorf("passed() = %v within the share", err)
	}
	run = newPurse("budget", 1, 0, nil)
	share = &purse{what: "share of the budget", limit: 0.2, parent: run, share: true}
	share.charge(0.6)
	if err := share.passed(); err == nil || err.Error() != "share of the budget spent: $0.60 of $0.20" {
		t.Errorf("passed() = %v; want the share's", err)
	}
	if err := run.spentOver(); err != nil {
		t.Errorf("spentOver() = %v with $0.40 left", err)
	}
	run.charge(0.6)
	if err := share.passed(); err == nil || err.Error() != "budget spent: $1.20 of $1.00" {
		t.Errorf("passed() = %v; want the run's budget's", err)
	}
	run.charge(1.8)
	if err := run.spentOver(); err == nil || err.Error() != "budget spent: $3.00 of $1.00" {
		t.Errorf("spentOver() = %v; want what the run really spent", err)
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
		if len(warned) != tc.want || tc.want > 0 && warned[0] != `step "ask": a session's CLI has no prices for its model and reported no cost, nor has cairn a price for it, so no budget can count what it spent [budget-unmeasured]` {
			t.Errorf("budget %v: warned %q", tc.budget, warned)
		}
	}
}

// TestShareOfJQ holds a compiled script's jq (codegen.BashUSDJQ: floor_usd,
// sum_usd, share_of) to the arithmetic of cairn run's shares and what is
// left: the same amounts, over amounts written by hand and sums of random
// costs, so that both give a session the same --max-budget-usd.
func TestShareOfJQ(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not on PATH")
	}
	type tc struct {
		limit, spent, held float64
		waiting            int
	}
	cases := []tc{{1, 0, 0, 5}, {1, 0.55, 0.25, 2}, {1, 0.2, 0.8, 1}, {0.15, 0.0712, 0, 1}, {4, 1.5, 0, 3}, {1, 0.4, 0.6, 2}, {0.3, 0.1, 0.1, 1}}
	r := rand.New(rand.NewPCG(26, 4))
	for range 300 {
		limit := math.Round(r.Float64()*500) / 100
		spent, held := 0.0, 0.0
		for range r.IntN(4) {
			spent = sumUSD(spent, math.Round(r.Float64()*limit/2*1e7)/1e7)
		}
		for range r.IntN(3) {
			held = sumUSD(held, math.Round(r.Float64()*limit/3*1e9)/1e9)
		}
		cases = append(cases, tc{limit, spent, held, 1 + r.IntN(6)})
	}
	var in, want strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&in, "[%s,%s,%s,%d]\n", strconv.FormatFloat(c.limit, 'g', -1, 64), strconv.FormatFloat(c.spent, 'g', -1, 64), strconv.FormatFloat(c.held, 'g', -1, 64), c.waiting)
		left := floorUSD(c.limit - c.spent)
		fmt.Fprintf(&want, "%s %s\n", strconv.FormatFloat(left, 'f', -1, 64), strconv.FormatFloat(shareOf(left, c.held, c.waiting), 'f', -1, 64))
	}
	cmd := exec.Command("jq", "-r", codegen.BashUSDJQ+`
. as [$limit, $spent, $held, $waiting] | ($limit - $spent | floor_usd) as $left
| "\($left | plain) \(share_of($left; $held; $waiting) | plain)"`)
	cmd.Stdin = strings.NewReader(in.String())
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("jq: %v", err)
	}
	gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("jq printed %d lines; want %d", len(gotLines), len(wantLines))
	}
	for i := range wantLines {
		if gotLines[i] != wantLines[i] {
			t.Errorf("%+v: jq %q; want %q", cases[i], gotLines[i], wantLines[i])
		}
	}
}
