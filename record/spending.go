package record

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

// DayFormat is how a UTC day is written: 2026-12-04.
const DayFormat = "2006-01-02"

// DaySpending is what the runs started on one UTC day used, in all and by
// process (ProcessSpending, by name).
type DaySpending struct {
	Day       string            `json:"day"`
	Runs      int               `json:"runs"`
	Usage     ir.Usage          `json:"usage,omitzero"`
	Processes []ProcessSpending `json:"processes"`
}

// ProcessSpending is what one process's runs of a day used.
type ProcessSpending struct {
	Process string   `json:"process"`
	Runs    int      `json:"runs"`
	Usage   ir.Usage `json:"usage,omitzero"`
}

// Spending sums what runs (ListRuns's) used by the UTC day they started,
// newest day first, and within a day by process. A run whose record could
// not be read counts for nothing.
func Spending(runs []RunInfo) []DaySpending {
	byDay := map[string]*DaySpending{}
	for _, r := range runs {
		if r.Record == nil {
			continue
		}
		day := r.Record.Start.UTC().Format(DayFormat)
		d := byDay[day]
		if d == nil {
			d = &DaySpending{Day: day}
			byDay[day] = d
		}
		d.Runs++
		d.Usage = d.Usage.Plus(r.Record.Usage)
		i := slices.IndexFunc(d.Processes, func(p ProcessSpending) bool { return p.Process == r.Record.Process })
		if i < 0 {
			d.Processes = append(d.Processes, ProcessSpending{Process: r.Record.Process})
			i = len(d.Processes) - 1
		}
		d.Processes[i].Runs++
		d.Processes[i].Usage = d.Processes[i].Usage.Plus(r.Record.Usage)
	}
	days := make([]DaySpending, 0, len(byDay))
	for _, d := range byDay {
		slices.SortFunc(d.Processes, func(a, b ProcessSpending) int { return cmp.Compare(a.Process, b.Process) })
		days = append(days, *d)
	}
	slices.SortFunc(days, func(a, b DaySpending) int { return cmp.Compare(b.Day, a.Day) })
	return days
}

// SpentToday is what the runs of home ($CAIRN_HOME/runs) that started on
// now's UTC day used, by their records, but the run in the folder except
// (none when empty): what a daily budget has spent. A record that cannot
// be read counts for nothing, and its error is returned with the rest.
func SpentToday(home string, now time.Time, except string) (ir.Usage, error) {
	var (
		u    ir.Usage
		errs []error
	)
	dir := RunsDir(home)
	es, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return u, fmt.Errorf("count what today's runs spent: %w", err)
	}
	day := now.UTC().Format(DayFormat)
	for _, e := range es {
		start, _, ok := runFolderTime(e.Name())
		if !ok || !e.IsDir() || start.UTC().Format(DayFormat) != day {
			continue
		}
		d := filepath.Join(dir, e.Name())
		if starting(d) || except != "" && sameFolder(d, except) {
			continue
		}
		rec, err := Load(d)
		if err != nil {
			errs = append(errs, fmt.Errorf("count what run %s spent today: %w", e.Name(), err))
			continue
		}
		u = u.Plus(rec.Usage)
	}
	return u, errors.Join(errs...)
}

// sameFolder reports whether a and b name the same folder.
func sameFolder(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}
