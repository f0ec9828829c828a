package runtime

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
)

// purse is a budget (docs/design.md §6.3) and what has been spent against it, in US
// dollars, as the sessions' CLIs reported their cost: the run's, whose
// parent is its parent run's for a child run of run-published-issue; a
// parallel group's member's share of it (split), whose parent is the run's;
// or one step's, whose parent is its share or its run's. A session's cost
// is charged to its purse and every purse above it.
type purse struct {
	// what names the budget in a cause: "budget" for the run's, "step
	// budget", "budget of run NAME" for a parent run's, "share of the
	// budget" for a member's share.
	what   string
	limit  float64 // 0: no budget, but for a share
	parent *purse
	// share marks a member's share of the budget over a parallel group:
	// a limit even at 0, and on a tie, or when a budget above it was
	// passed too, that budget is the cause rather than the share.
	share bool
	// daily marks the config's daily budget, over every run of a UTC
	// day: its cause ends "today".
	daily bool

	mu    sync.Mutex
	spent float64
}

// newPurse is a purse of limit (0: none) that has spent spent already,
// under parent (nil for none).
func newPurse(what string, limit, spent float64, parent *purse) *purse {
	return &purse{what: what, limit: limit, spent: spent, parent: parent}
}

// minBudgetLeft is the least a session may be given to spend: below it a
// budget counts as spent, whatever a sum of costs left over.
const minBudgetLeft = 1e-9

// charge adds usd to p and every purse above it.
func (p *purse) charge(usd float64) {
	for q := p; q != nil; q = q.parent {
		q.mu.Lock()
		q.spent = sumUSD(q.spent, usd)
		q.mu.Unlock()
	}
}

// state is what p has spent and its limit, read under its lock.
func (p *purse) state() (spent, limit float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.spent, p.limit
}

// budgeted reports whether p has a budget: a limit above 0, or a share.
func (p *purse) budgeted(limit float64) bool {
	return limit > 0 || p.share
}

// spentErr is the cause of a session stopped by p's budget: "budget spent:
// $4.02 of $4.00"; for a share given nothing, because the members running
// beside it hold what was left, "no share of the budget left: …".
func (p *purse) spentErr() error {
	spent, limit := p.state()
	if p.share && limit < minBudgetLeft {
		return fmt.Errorf("no %s left: the steps running beside it hold the rest", p.what)
	}
	if p.daily {
		return fmt.Errorf("%s spent: %s of %s today", p.what, ir.FormatSpent(spent, limit), ir.FormatUSD(limit))
	}
	return fmt.Errorf("%s spent: %s of %s", p.what, ir.FormatSpent(spent, limit), ir.FormatUSD(limit))
}

// left is what a session under p may still spend: the least any budget of
// p and those above it has left, floored to a billionth of a dollar
// (floorUSD), and
// 0 when none has a budget. The purse with the least left is tightest (the
// nearer on a tie, but for a share, which gives way to the budget above
// it); err is its cause when it has less than minBudgetLeft left.
func (p *purse) left() (usd float64, tightest *purse, err error) {
	usd = math.Inf(1)
	for q := p; q != nil; q = q.parent {
		spent, limit := q.state()
		if !q.budgeted(limit) {
			continue
		}
		if l := limit - spent; l < usd || l == usd && tightest != nil && tightest.share {
			usd, tightest = l, q
		}
	}
	switch {
	case tightest == nil:
		return 0, nil, nil
	case usd < minBudgetLeft:
		return 0, tightest, tightest.spentErr()
	}
	return floorUSD(usd), tightest, nil
}

// floorUSD is usd kept to a trillionth of a dollar, as sums of costs are,
// then floored to a billionth: $1.00 less $0.55 is $0.45, never the
// $0.449999999 that flooring 0.44999999999999996 would give. A compiled
// script's jq_budget computes it the same.
func floorUSD(usd float64) float64 {
	return math.Floor(math.Round(usd*1e12)/1000) / 1e9
}

// passed is the cause of the first budget of p and those above it that its
// sessions spent more than, a share's only when they passed no other; nil
// when none.
func (p *purse) passed() error {
	var share *purse
	for q := p; q != nil; q = q.parent {
		if spent, limit := q.state(); q.budgeted(limit) && spent > limit {
			if !q.share {
				return q.spentErr()
			}
			if share == nil {
				share = q
			}
		}
	}
	if share != nil {
		return share.spentErr()
	}
	return nil
}

// spentOver is the cause of the first budget of p and those above it that
// is spent (less than minBudgetLeft left), with what its sessions really
// spent by now; nil when none is. A run that a budget stopped ends with it.
func (p *purse) spentOver() error {
	for q := p; q != nil; q = q.parent {
		if spent, limit := q.state(); q.budgeted(limit) && limit-spent < minBudgetLeft {
			return q.spentErr()
		}
	}
	return nil
}

// split is the budget over a parallel group (docs/design.md §6.3) shared among its
// members, so that together they are given no more than it has left (claude
// is given its member's share as --max-budget-usd). A member is given its
// share as it starts: what the budget has left, less what the shares of the
// members running still hold, divided by the members still to be given a
// share (shareOf). A member that ends gives back what it left of its share,
// to the members that start after it (--jobs). A budget that is spent, or
// no budget at all, gives no share: the member's sessions meet the budget
// itself.
type split struct {
	over *purse

	mu      sync.Mutex
	waiting int      // members still to be given a share
	running []*purse // the shares of the members running, in start order
}

// newSplit shares what over has left among a parallel group of members.
func newSplit(over *purse, members int) *split {
	return &split{over: over, waiting: members}
}

// share is the purse of the next member to start: its share, under over,
// or over itself when it has no budget or has spent it.
func (s *split) share() *purse {
	s.mu.Lock()
	defer s.mu.Unlock()
	waiting := s.waiting
	if s.waiting > 1 {
		s.waiting--
	}
	left, tightest, err := s.over.left()
	if tightest == nil || err != nil {
		return s.over
	}
	held := 0.0
	for _, p := range s.running {
		if spent, limit := p.state(); limit > spent {
			held = sumUSD(held, limit-spent)
		}
	}
	p := &purse{what: "share of the " + tightest.what, limit: shareOf(left, held, waiting), parent: s.over, share: true}
	s.running = append(s.running, p)
	return p
}

// end is told that the member with the purse p (share's) ended: what it
// left of its share is no longer held.
func (s *split) end(p *purse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, q := range s.running {
		if q == p {
			s.running = append(s.running[:i], s.running[i+1:]...)
			return
		}
	}
}

// shareOf is a member's share of a budget over a parallel group that has
// left, when the shares of the members running hold held of it and waiting
// members, this one among them, are still to be given one: (left - held) /
// waiting, floored to a billionth of a dollar (floorUSD), and 0 when the
// running members hold it all. A compiled script's jq_budget computes it
// the same.
func shareOf(left, held float64, waiting int) float64 {
	return max(floorUSD((left-held)/float64(max(waiting, 1))), 0)
}

// sumUSD is a + b kept to a trillionth of a dollar, as sums of costs are
// (ir.Usage.Plus).
func sumUSD(a, b float64) float64 {
	return ir.Usage{CostUSD: ir.Dollars(a)}.Plus(ir.Usage{CostUSD: ir.Dollars(b)}).Cost()
}

// stepSpending is what one step's sessions used and spent (step.Meter): it
// charges their cost to the step's purse, keeps the step's usage and its
// judges' share, and the cause of the first session a budget stopped.
type stepSpending struct {
	step  string
	purse *purse
	// warn, when set, shows a warning: that a budget cannot count a
	// session whose CLI knew no prices for its model (unpricedWarning).
	warn func(error)

	mu     sync.Mutex
	usage  ir.Usage
	judges ir.Usage
	// ends are the last end of each CLI session by its id: the CLI of a
	// session that resumes one may count its usage from the session's
	// first start.
	ends     map[string]harness.SessionEnd
	stopped  error
	unpriced bool
}

// newStepSpending starts counting the sessions of the step st, whose
// record sr holds what its earlier attempts used, under run: the run's
// purse, or the step's share of it in a parallel group. Its own budget is
// the least budget_usd of its session actions.
func newStepSpending(st *ir.PlanStep, sr *record.StepRecord, run *purse) *stepSpending {
	limit := 0.0
	for _, a := range st.Actions {
		if b := a.BudgetUSD; b != nil && b.Value > 0 && (limit == 0 || b.Value < limit) {
			limit = b.Value
		}
	}
	p := run
	if limit > 0 {
		p = newPurse("step budget", limit, sr.Usage.Cost(), run)
	}
	return &stepSpending{step: st.Name, purse: p, usage: sr.Usage, judges: sr.JudgeUsage, ends: map[string]harness.SessionEnd{}}
}

// meter is the step.Meter of a step's sessions; judges is set for its
// judge's, whose usage is also the judges' share.
func (s *stepSpending) meter(judges bool) step.Meter {
	return &spendingMeter{s: s, judges: judges}
}

// spendingMeter is a step.Meter on a stepSpending.
type spendingMeter struct {
	s      *stepSpending
	judges bool
}

// Before refuses a session once a budget over it is spent, and otherwise
// gives it what the tightest budget has left.
func (m *spendingMeter) Before() (float64, error) {
	left, _, err := m.s.purse.left()
	if err != nil {
		m.s.stop(err)
		return 0, err
	}
	return left, nil
}

// After counts what the session used, charging its cost; it fails the
// session when its CLI stopped it at its budget, or it spent more than a
// budget over it.
func (m *spendingMeter) After(resumed string, end harness.SessionEnd) error {
	s := m.s
	s.mu.Lock()
	var prior *harness.SessionEnd
	if e, ok := s.ends[resumed]; ok && resumed != "" {
		prior = &e
	}
	if end.ID != "" {
		s.ends[end.ID] = end
	}
	used := end.Used(prior)
	s.usage = s.usage.Plus(used)
	if m.judges {
		s.judges = s.judges.Plus(used)
	}
	_, tightest, _ := s.purse.left()
	warn := end.Unpriced && tightest != nil && !s.unpriced && s.warn != nil
	if warn {
		s.unpriced = true
	}
	s.mu.Unlock()
	if warn {
		s.warn(unpricedWarning(s.step))
	}
	s.purse.charge(used.Cost())
	err := s.purse.passed()
	if err == nil && end.Budget {
		// The CLI stopped at the budget it was given: the tightest's.
		if _, tightest, _ := s.purse.left(); tightest != nil {
			err = tightest.spentErr()
		}
	}
	if err != nil {
		s.stop(err)
	}
	return err
}

// unpricedWarning is the warning, once a step, that a budget cannot count
// a session of the step whose CLI reports cost but knew no prices for its
// model, nor does cairn's price table (harness.SessionEnd's Unpriced):
// check's budget-unmeasured, which cannot know it before the run.
func unpricedWarning(step string) error {
	return fmt.Errorf("step %q: a session's CLI has no prices for its model and reported no cost, nor has cairn a price for it, so no budget can count what it spent [budget-unmeasured]", step)
}

// stop keeps err as the cause of the first session a budget stopped.
func (s *stepSpending) stop(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped == nil {
		s.stopped = err
	}
}

// result is what the step's sessions used, its judges' share, and the
// cause of the first session a budget stopped (nil when none was).
func (s *stepSpending) result() (usage, judges ir.Usage, stopped error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage, s.judges, s.stopped
}

// childrenUsage is what the child runs in dirs (a step's record's
// Children, of the run folder runDir) used, by their records; a record
// that cannot be read adds nothing, and its error is returned.
func childrenUsage(runDir string, dirs []string) (ir.Usage, error) {
	var (
		u    ir.Usage
		errs []error
	)
	for _, d := range dirs {
		rec, err := record.Load(record.InRunFolder(runDir, d))
		if err != nil {
			errs = append(errs, fmt.Errorf("count what child run %s used: %w", filepath.Base(d), err))
			continue
		}
		u = u.Plus(rec.Usage)
	}
	return u, errors.Join(errs...)
}
