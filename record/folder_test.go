package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

func TestNewFolderNames(t *testing.T) {
	t.Parallel()
	runs := filepath.Join(t.TempDir(), "runs")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	var names []string
	for range 3 {
		f, err := NewFolder(runs, "hunt", now)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		names = append(names, f.Name())
		if !filepath.IsAbs(f.Dir) || filepath.Base(f.Dir) != f.Name() {
			t.Errorf("dir %q of %q", f.Dir, f.Name())
		}
	}
	want := "hunt_2026-01-02T020405Z hunt_2026-01-02T020405Z-2 hunt_2026-01-02T020405Z-3"
	if strings.Join(names, " ") != want {
		t.Fatalf("got %q, want %q", strings.Join(names, " "), want)
	}
}

// TestFolderModes holds that a run folder and everything cairn writes in it
// are its owner's only.
func TestFolderModes(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	if err := f.LogStep(&StepRecord{Name: "a", Outcome: Succeeded}, false); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	home := filepath.Dir(filepath.Dir(f.Dir))
	if err := Activity(home, "event=start", "run="+f.Name()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{
		{filepath.Dir(f.Dir), 0o700},
		{f.Dir, 0o700},
		{filepath.Join(f.Dir, ResultsDir), 0o700},
		{filepath.Join(f.Dir, TracesDir), 0o700},
		{filepath.Join(f.Dir, WorktreesDir), 0o700},
		{filepath.Join(f.Dir, RecordFile), 0o600},
		{filepath.Join(f.Dir, EventsFile), 0o600},
		{filepath.Join(f.Dir, LogFile), 0o600},
		{filepath.Join(f.Dir, LockFile), 0o600},
		{filepath.Join(home, ActivityFile), 0o600},
	} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Error(err)
			continue
		}
		if got := fi.Mode().Perm(); got != c.mode {
			t.Errorf("%s: mode %v, want %v", c.path, got, c.mode)
		}
	}
	entries, _ := os.ReadDir(f.Dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "."+RecordFile) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestLogLine holds the log's lines to their logfmt.
func TestLogLine(t *testing.T) {
	t.Parallel()
	var got strings.Builder
	for _, l := range []LogLine{
		{Step: "a", Kind: "command", Worktree: "a", Duration: 1234 * time.Millisecond, Outcome: Failed, Cause: "exit status 3"},
		{Step: "b", Kind: "session", Worktree: "a", Harness: "claude", Model: "opus", Effort: "high", Duration: 90 * time.Second, Outcome: Succeeded},
		{Step: "c", Kind: "session", Worktree: "a", Harness: "claude", Duration: time.Second, Outcome: Failed, Cause: "budget spent: $4.02 of $4.00",
			Usage: ir.Usage{Turns: ir.Count(3), InputTokens: ir.Count(1520), CacheReadTokens: ir.Count(8), CacheWriteTokens: ir.Count(2), OutputTokens: ir.Count(402), CostUSD: ir.Dollars(0.07125001)}},
		{Step: "d", Kind: "session", Worktree: "a", Harness: "codex", Duration: time.Second, Outcome: Succeeded,
			Usage: ir.Usage{OutputTokens: ir.Count(20)}},
	} {
		got.WriteString(l.String() + "\n")
	}
	want := `step=a kind=command worktree=a harness=- model=- effort=- duration=1.2s outcome=failed cause="exit status 3"
step=b kind=session worktree=a harness=claude model=opus effort=high duration=1m30s outcome=succeeded
step=c kind=session worktree=a harness=claude model=- effort=- duration=1s turns=3 tokens_in=1530 tokens_out=402 cost=$0.0713 outcome=failed cause="budget spent: $4.02 of $4.00"
step=d kind=session worktree=a harness=codex model=- effort=- duration=1s tokens_out=20 outcome=succeeded
`
	if got.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", got.String(), want)
	}
}

func TestStepLogLine(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.Add(2500 * time.Millisecond)
	s := StepRecord{Name: "judge", Worktree: "b", Outcome: Failed, Cause: "Not logged in", Start: &start, End: &end,
		Actions: []ActionRecord{{Kind: "session", Harness: "claude", Model: "opus"}, {Kind: "session", Harness: "codex", Model: "opus"}}}
	got := StepLogLine(&s).String()
	want := `step=judge kind=session worktree=b harness=claude+codex model=opus effort=- duration=2.5s outcome=failed cause="Not logged in"`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestFolderErr holds that the first write to a run folder that failed is
// kept, for the run to end failed with it, whatever succeeds after.
func TestFolderErr(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	if err := f.Err(); err != nil {
		t.Fatalf("a fresh folder: Err() = %v", err)
	}
	good := f.log
	bad, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	f.log = bad
	if err := f.LogStep(&StepRecord{Name: "a", Outcome: Succeeded}, false); err == nil {
		t.Fatal("LogStep to a read-only file succeeded")
	}
	f.log = good
	bad.Close()
	if err := f.LogStep(&StepRecord{Name: "b", Outcome: Succeeded}, false); err != nil {
		t.Fatal(err)
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Err(); err == nil || !strings.Contains(err.Error(), "write the run's log") {
		t.Errorf("Err() = %v, want the failed write of the log", err)
	}
}

// TestLogStepTells holds that a step's log line and its step_end event are
// one: the same figures, the event stamped with the run's name.
func TestLogStepTells(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	var got []RunEvent
	f.Watch(func(ev RunEvent) { got = append(got, ev) })
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.Add(1500 * time.Millisecond)
	s := StepRecord{Name: ItemName("each", 2), Item: []byte(`"b"`), Worktree: "a", Optional: true, Outcome: Failed,
		ExitCode: 3, Cause: "exit status 3", Start: &start, End: &end, Actions: []ActionRecord{{Kind: "session", Harness: "codex"}},
		Usage: ir.Usage{Turns: ir.Count(2), InputTokens: ir.Count(10), CacheReadTokens: ir.Count(5), CostUSD: ir.Dollars(0.5), CostEstimated: true}}
	f.StepStarted(&s, true)
	if err := f.LogStep(&s, true); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(f.Dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	wantLine := "step=each[2] kind=session worktree=a harness=codex model=- effort=- duration=1.5s turns=2 tokens_in=15 cost=~$0.5000 outcome=failed cause=\"exit status 3\" stubbed=true\n"
	if string(b) != wantLine {
		t.Errorf("log %q, want %q", b, wantLine)
	}
	if len(got) != 2 || got[0].Type != EventStepStart || got[1].Type != EventStepEnd {
		t.Fatalf("events %+v, want a step_start and a step_end", got)
	}
	e := got[1]
	if e.V != RunEventVersion || e.Run != f.Name() || e.Time.IsZero() || e.Step != "each[2]" || e.Of != "each" || e.Index == nil || *e.Index != 2 ||
		string(e.Item) != `"b"` || e.Kind != "session" || e.Harness != "codex" || !e.Optional || !e.Stubbed ||
		*e.DurationMS != 1500 || e.Outcome != Failed || *e.ExitCode != 3 || e.Cause != "exit status 3" {
		t.Errorf("step_end %+v", e)
	}
	if u := e.Usage; u == nil || *u.Turns != 2 || *u.TokensIn != 15 || u.TokensOut != nil || *u.CostUSD != 0.5 || !u.CostEstimated {
		t.Errorf("step_end usage %+v", u)
	}
	if got[0].Outcome != "" || got[0].DurationMS != nil || got[0].Usage != nil {
		t.Errorf("step_start %+v carries an end", got[0])
	}
}
