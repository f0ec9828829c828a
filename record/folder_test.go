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
	if err := f.LogStep(LogLine{Step: "a", Kind: "command", Outcome: Succeeded}); err != nil {
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

func TestLogStep(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	for _, l := range []LogLine{
		{Step: "a", Kind: "command", Worktree: "a", Duration: 1234 * time.Millisecond, Outcome: Failed, Cause: "exit status 3"},
		{Step: "b", Kind: "session", Worktree: "a", Harness: "claude", Model: "opus", Effort: "high", Duration: 90 * time.Second, Outcome: Succeeded},
		{Step: "c", Kind: "session", Worktree: "a", Harness: "claude", Duration: time.Second, Outcome: Failed, Cause: "budget spent: $4.02 of $4.00",
			Usage: ir.Usage{Turns: ir.Count(3), InputTokens: ir.Count(1520), CacheReadTokens: ir.Count(8), CacheWriteTokens: ir.Count(2), OutputTokens: ir.Count(402), CostUSD: ir.Dollars(0.07125001)}},
		{Step: "d", Kind: "session", Worktree: "a", Harness: "codex", Duration: time.Second, Outcome: Succeeded,
			Usage: ir.Usage{OutputTokens: ir.Count(20)}},
	} {
		if err := f.LogStep(l); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(f.Dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	want := `step=a kind=command worktree=a harness=- model=- effort=- duration=1.2s outcome=failed cause="exit status 3"
step=b kind=session worktree=a harness=claude model=opus effort=high duration=1m30s outcome=succeeded
step=c kind=session worktree=a harness=claude model=- effort=- duration=1s turns=3 tokens_in=1530 tokens_out=402 cost=$0.0713 outcome=failed cause="budget spent: $4.02 of $4.00"
step=d kind=session worktree=a harness=codex model=- effort=- duration=1s tokens_out=20 outcome=succeeded
`
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
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
	if err := f.LogStep(LogLine{Step: "a", Outcome: Succeeded}); err == nil {
		t.Fatal("LogStep to a read-only file succeeded")
	}
	f.log = good
	bad.Close()
	if err := f.LogStep(LogLine{Step: "b", Outcome: Succeeded}); err != nil {
		t.Fatal(err)
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Err(); err == nil || !strings.Contains(err.Error(), "write the run's log") {
		t.Errorf("Err() = %v, want the failed write of the log", err)
	}
}
