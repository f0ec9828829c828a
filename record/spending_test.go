package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

// TestSpending sums runs by the UTC day they started, newest first, and by
// process within a day; an unreadable record counts for nothing.
func TestSpending(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	run := func(process, start string, usd float64, estimated bool) RunInfo {
		return RunInfo{Record: &Record{Process: process, Start: at(start), Usage: ir.Usage{CostUSD: ir.Dollars(usd), CostEstimated: estimated}}}
	}
	days := Spending([]RunInfo{
		run("b", "2026-12-04T23:59:00Z", 1, false),
		// 00:30 at UTC+2 is the day before in UTC.
		run("a", "2026-12-05T00:30:00+02:00", 0.25, true),
		run("a", "2026-12-05T00:00:00Z", 0.5, false),
		run("a", "2026-12-04T08:00:00Z", 2, false),
		{Err: os.ErrNotExist},
	})
	if len(days) != 2 || days[0].Day != "2026-12-05" || days[1].Day != "2026-12-04" {
		t.Fatalf("days %+v; want 2026-12-05, then 2026-12-04", days)
	}
	if d := days[0]; d.Runs != 1 || d.Usage.CostText() != "$0.5000" || len(d.Processes) != 1 {
		t.Errorf("2026-12-05: %+v", d)
	}
	d := days[1]
	if d.Runs != 3 || d.Usage.CostText() != "~$3.2500" {
		t.Errorf("2026-12-04: %d runs, %s; want 3, ~$3.2500", d.Runs, d.Usage.CostText())
	}
	if len(d.Processes) != 2 || d.Processes[0].Process != "a" || d.Processes[0].Runs != 2 || d.Processes[0].Usage.CostText() != "~$2.2500" ||
		d.Processes[1].Process != "b" || d.Processes[1].Usage.CostText() != "$1.0000" {
		t.Errorf("2026-12-04 by process: %+v", d.Processes)
	}
}

// TestSpentToday counts the runs of home that started on the day, but
// the one excepted, from their records.
func TestSpentToday(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	write := func(name string, usd float64) string {
		dir := filepath.Join(RunsDir(home), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(&Record{Version: RecordVersion, Process: "p", Usage: ir.Usage{CostUSD: ir.Dollars(usd)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, RecordFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	write("p_2026-12-04T080000Z", 1)
	write("p_2026-12-04T235959Z-2", 0.5)
	mine := write("p_2026-12-04T120000Z", 4)
	write("p_2026-12-03T235959Z", 8)
	now, _ := time.Parse(time.RFC3339, "2026-12-04T18:00:00Z")
	u, err := SpentToday(home, now, mine)
	if err != nil || u.CostText() != "$1.5000" {
		t.Errorf("SpentToday = %s, %v; want $1.5000", u.CostText(), err)
	}
	if u, err := SpentToday(t.TempDir(), now, ""); err != nil || u.CostUSD != nil {
		t.Errorf("no runs: %+v, %v; want nothing", u, err)
	}
}
