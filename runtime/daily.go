package runtime

import (
	"time"

	"github.com/cairn-dev/cairn/record"
)

// spendingParent is the purse above the run's own: its parent run's for
// a child run of run-published-issue (under which the daily budget
// already is), else the config's daily budget (docs/costs.md), which has
// spent what the runs of the home that started today (UTC) used, by their
// records, but this run's own; nil when there is neither. A run whose
// daily budget is spent starts no session: its first fails with "budget
// spent: $2.10 of $2.00 today".
func (r *run) spendingParent() *purse {
	if r.o.parent != nil {
		return r.o.parent
	}
	b := r.o.Plan.Limits.DailyBudgetUSD
	if b == nil || b.Value <= 0 {
		return nil
	}
	spent, err := record.SpentToday(r.o.Home, time.Now(), r.folder.Dir)
	r.warn(err)
	p := newPurse("budget", b.Value, spent.Cost(), nil)
	p.daily = true
	return p
}
