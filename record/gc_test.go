package record

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/realpath"
)

// gcNow is the fixed time the gc tests run at.
var gcNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// gcRun writes the run folder name in home's runs: a record of process in
// repo with status, start, end (none when zero) and expires.
func gcRun(t *testing.T, home, name, repo, process string, status Status, start, end time.Time, expires string) string {
	t.Helper()
	rec := Record{Version: RecordVersion, Process: process, Repo: repo, Status: status, Start: start, Expires: expires}
	if !end.IsZero() {
		rec.End = &end
	}
	return gcRecord(t, RunsDir(home), name, rec)
}

// gcRecord writes the run folder name in the runs folder runs, with rec as
// its record.
func gcRecord(t *testing.T, runs, name string, rec Record) string {
	t.Helper()
	dir := filepath.Join(runs, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, RecordFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// days is n days before gcNow.
func days(n int) time.Time { return gcNow.Add(-time.Duration(n) * 24 * time.Hour) }

// names are the runs' names, sorted.
func names(runs []GCRun) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}

// testGC are the options of a test's gc: a dry run or not, and a run's
// worktrees pruned as the runtime's PruneWorktrees would, with no git.
func testGC(dryRun bool) GCOptions {
	return GCOptions{DryRun: dryRun, PruneWorktrees: func(home, name, _ string) error {
		return os.RemoveAll(filepath.Join(home, "worktrees", name))
	}}
}

// reasons are why each run was kept, by name.
func reasons(runs []GCRun) map[string]string {
	out := map[string]string{}
	for _, r := range runs {
		out[r.Name] = r.Reason
	}
	return out
}

func TestGC(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	past := days(1).Format(time.RFC3339)
	later := gcNow.Add(time.Hour).Format(time.RFC3339)
	// The newest of hunt in /r: expired, but kept.
	gcRun(t, home, "hunt_2026-05-20T000000Z", "/r", "hunt", StatusSucceeded, days(12), days(12), past)
	// Older hunts.
	gcRun(t, home, "hunt_2026-05-10T000000Z", "/r", "hunt", StatusFailed, days(22), days(22), past)
	gcRun(t, home, "hunt_2026-05-09T000000Z", "/r", "hunt", StatusSucceeded, days(23), days(23), "never")
	gcRun(t, home, "hunt_2026-05-08T000000Z", "/r", "hunt", StatusSucceeded, days(24), days(24), later)
	gcRun(t, home, "hunt_2026-05-07T000000Z", "/r", "hunt", StatusSucceeded, days(25), days(25), "soon")
	// Legacy records without expires: 30 days after a success, 90 after
	// anything else.
	gcRun(t, home, "hunt_2026-04-01T000000Z", "/r", "hunt", StatusSucceeded, days(61), days(31), "")
	gcRun(t, home, "hunt_2026-03-31T000000Z", "/r", "hunt", StatusSucceeded, days(62), days(29), "")
	gcRun(t, home, "hunt_2026-03-30T000000Z", "/r", "hunt", StatusFailed, days(63), days(60), "")
	gcRun(t, home, "hunt_2026-01-01T000000Z", "/r", "hunt", StatusInterrupted, days(151), days(91), "")
	// Crashed runs (running, lock free) expire 90 days after their start.
	gcRun(t, home, "hunt_2025-12-31T000000Z", "/r", "hunt", StatusRunning, days(152), time.Time{}, "")
	gcRun(t, home, "hunt_2026-03-01T000000Z", "/r", "hunt", StatusRunning, days(89), time.Time{}, "")
	// The same process in another repository has its own newest.
	gcRun(t, home, "hunt_2026-01-02T000000Z", "/other", "hunt", StatusSucceeded, days(150), days(150), past)
	// A running run (its lock held) is kept, expired or not.
	held := gcRun(t, home, "lint_2026-01-01T000000Z", "/r", "lint", StatusRunning, days(200), time.Time{}, "")
	gcRun(t, home, "lint_2026-05-30T000000Z", "/r", "lint", StatusSucceeded, days(2), days(2), past)
	lock, err := proc.Lock(filepath.Join(held, LockFile), false)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	// An unreadable folder is left alone.
	if err := os.MkdirAll(filepath.Join(RunsDir(home), "broken_2026-01-01T000000Z"), 0o700); err != nil {
		t.Fatal(err)
	}

	wantDeleted := []string{
		"hunt_2025-12-31T000000Z",
		"hunt_2026-01-01T000000Z",
		"hunt_2026-04-01T000000Z",
		"hunt_2026-05-10T000000Z",
	}
	wantKept := map[string]string{
		"hunt_2026-05-20T000000Z": KeptNewest,
		"hunt_2026-05-09T000000Z": KeptNever,
		"hunt_2026-05-08T000000Z": KeptNotExpired,
		"hunt_2026-05-07T000000Z": KeptBadExpiry,
		"hunt_2026-03-31T000000Z": KeptNotExpired,
		"hunt_2026-03-30T000000Z": KeptNotExpired,
		"hunt_2026-03-01T000000Z": KeptNotExpired,
		"hunt_2026-01-02T000000Z": KeptNewest,
		"lint_2026-01-01T000000Z": KeptRunning,
		"lint_2026-05-30T000000Z": KeptNewest,
	}
	check := func(r GCReport) {
		t.Helper()
		if got := names(r.Deleted); !slices.Equal(got, wantDeleted) {
			t.Errorf("deleted %q, want %q", got, wantDeleted)
		}
		got := reasons(r.Kept)
		for name, want := range wantKept {
			if got[name] != want {
				t.Errorf("%s kept for %q, want %q", name, got[name], want)
			}
		}
		if len(got) != len(wantKept) {
			t.Errorf("kept %v, want %d runs", got, len(wantKept))
		}
		if len(r.Unreadable) != 1 || r.Unreadable[0].Name != "broken_2026-01-01T000000Z" || r.Unreadable[0].Err == nil {
			t.Errorf("unreadable %+v", r.Unreadable)
		}
	}

	r, err := GC(context.Background(), home, nil, gcNow, testGC(true))
	if err != nil {
		t.Fatal(err)
	}
	if !r.DryRun {
		t.Error("a dry run's report says it is not one")
	}
	check(r)
	entries, _ := os.ReadDir(RunsDir(home))
	if len(entries) != len(wantDeleted)+len(wantKept)+1 {
		t.Fatalf("the dry run deleted folders: %d left", len(entries))
	}
	for _, r := range r.Deleted {
		if r.Name == "hunt_2026-05-10T000000Z" && !r.Expires.Equal(days(1).Truncate(time.Second)) {
			t.Errorf("%s expires %v, want %v", r.Name, r.Expires, days(1))
		}
		if r.Name == "hunt_2025-12-31T000000Z" && !r.Expires.Equal(days(62)) {
			t.Errorf("%s expires %v, want 90 days after its start", r.Name, r.Expires)
		}
	}

	r, err = GC(context.Background(), home, nil, gcNow, testGC(false))
	if err != nil {
		t.Fatal(err)
	}
	check(r)
	for _, name := range wantDeleted {
		if _, err := os.Stat(filepath.Join(RunsDir(home), name)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", name, err)
		}
	}
	for name := range wantKept {
		if _, err := os.Stat(filepath.Join(RunsDir(home), name, RecordFile)); err != nil {
			t.Errorf("%s was deleted: %v", name, err)
		}
	}
}

// A run whose lock is taken between the listing and the deletion is kept.
func TestGCSkipsLockedAtDeletion(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	gcRun(t, home, "hunt_2026-05-20T000000Z", "/r", "hunt", StatusSucceeded, days(12), days(12), "")
	dir := gcRun(t, home, "hunt_2026-01-01T000000Z", "/r", "hunt", StatusFailed, days(200), days(200), "")
	lock, err := proc.Lock(filepath.Join(dir, LockFile), false)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	owned, err := realpath.Folders([]string{RunsDir(home)})
	if err != nil {
		t.Fatal(err)
	}
	deleted, err := deleteRun(owned, "hunt_2026-01-01T000000Z", dir)
	if err != nil || deleted {
		t.Fatalf("deleteRun = %v, %v; want kept", deleted, err)
	}
	if _, err := os.Stat(filepath.Join(dir, RecordFile)); err != nil {
		t.Fatal(err)
	}
}

// A run held by a live Folder is running and kept.
func TestGCKeepsOpenFolder(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	f, err := NewFolder(RunsDir(home), "hunt", days(300))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Begin(&Record{Process: "hunt", Repo: "/r", Status: StatusRunning, Start: days(300)}); err != nil {
		t.Fatal(err)
	}
	gcRun(t, home, "hunt_2026-05-20T000000Z", "/r", "hunt", StatusSucceeded, days(12), days(12), "")
	r, err := GC(context.Background(), home, nil, gcNow, testGC(false))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Deleted) != 0 || reasons(r.Kept)[f.Name()] != KeptRunning {
		t.Fatalf("report %+v", r)
	}
}

// expired is a finished run's record of process, from file in /r, started
// at start and long expired.
func expired(process, file string, start time.Time) Record {
	end := start.Add(time.Minute)
	return Record{Version: RecordVersion, Process: process, File: file, Repo: "/r", Status: StatusSucceeded, Start: start, End: &end, Expires: days(300).Format(time.RFC3339)}
}

// gcCheck runs GC on home (and repoRoot) and checks the runs it deleted
// and why it kept the others.
func gcCheck(t *testing.T, home, repoRoot string, wantDeleted []string, wantKept map[string]string) {
	t.Helper()
	r, err := GC(context.Background(), home, &git.Repo{Root: repoRoot, Git: git.New(os.Environ())}, gcNow, testGC(false))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(r.Deleted); !slices.Equal(got, wantDeleted) {
		t.Errorf("deleted %q, want %q", got, wantDeleted)
	}
	if got := reasons(r.Kept); !maps.Equal(got, wantKept) {
		t.Errorf("kept %q, want %q", got, wantKept)
	}
}

// A start a clock skew put in the future does not make a run the newest:
// it is kept, and so is the latest run that started by now.
func TestGCNewestNotFromTheFuture(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	gcRecord(t, RunsDir(home), "hunt_2026-05-31T000000Z", expired("hunt", "/r/hunt.toml", days(1)))
	gcRecord(t, RunsDir(home), "hunt_2026-05-01T000000Z", expired("hunt", "/r/hunt.toml", gcNow.Add(48*time.Hour)))
	gcRecord(t, RunsDir(home), "hunt_2026-04-01T000000Z", expired("hunt", "/r/hunt.toml", days(61)))
	gcCheck(t, home, "", []string{"hunt_2026-04-01T000000Z"}, map[string]string{
		"hunt_2026-05-31T000000Z": KeptNewest,
		"hunt_2026-05-01T000000Z": KeptFuture,
	})
}

// Two process files of one name are two processes, each with its newest.
func TestGCNewestPerProcessFile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	gcRecord(t, RunsDir(home), "review_2026-05-31T000000Z", expired("review", "/r/a/review.toml", days(1)))
	gcRecord(t, RunsDir(home), "review_2026-05-30T000000Z", expired("review", "/r/b/review.toml", days(2)))
	gcRecord(t, RunsDir(home), "review_2026-05-29T000000Z", expired("review", "/r/a/review.toml", days(3)))
	gcCheck(t, home, "", []string{"review_2026-05-29T000000Z"}, map[string]string{
		"review_2026-05-31T000000Z": KeptNewest,
		"review_2026-05-30T000000Z": KeptNewest,
	})
}

// The runs a repository carries in its .cairn/runs, whose records anyone
// who commits there writes, do not stand for the newest of $CAIRN_HOME's;
// and a run folder there named as one of $CAIRN_HOME's does not take that
// run's worktrees with it.
func TestGCRepoRunsApart(t *testing.T) {
	t.Parallel()
	home, root := t.TempDir(), t.TempDir()
	inRepo := filepath.Join(root, ".cairn", "runs")
	gcRecord(t, RunsDir(home), "hunt_2026-05-01T000000Z", expired("hunt", "/r/hunt.toml", days(31)))
	never := expired("hunt", "/r/hunt.toml", days(151))
	never.Expires = "never"
	gcRecord(t, RunsDir(home), "hunt_2026-01-01T000000Z", never)
	wt := filepath.Join(home, "worktrees", "hunt_2026-01-01T000000Z", "a")
	if err := os.MkdirAll(wt, 0o700); err != nil {
		t.Fatal(err)
	}
	gcRecord(t, inRepo, "hunt_2026-05-31T000000Z", expired("hunt", "/r/hunt.toml", days(1)))
	gcRecord(t, inRepo, "hunt_2026-01-01T000000Z", expired("hunt", "/r/hunt.toml", days(151)))
	gcCheck(t, home, root, []string{"hunt_2026-01-01T000000Z"}, map[string]string{
		"hunt_2026-05-31T000000Z": KeptNewest,
		"hunt_2026-05-01T000000Z": KeptNewest,
		"hunt_2026-01-01T000000Z": KeptNever,
	})
	if _, err := os.Stat(filepath.Join(inRepo, "hunt_2026-01-01T000000Z")); !os.IsNotExist(err) {
		t.Errorf("the expired run in the repository is still there: %v", err)
	}
	if _, err := os.Stat(wt); err != nil {
		t.Errorf("the worktrees of the run in $CAIRN_HOME are gone: %v", err)
	}
}
