package runtime

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/record"
)

// gcNow is the fixed time the gc tests run at.
var gcNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// days is n days before gcNow.
func days(n int) time.Time { return gcNow.Add(-time.Duration(n) * 24 * time.Hour) }

// gcRun writes the run folder name in home's runs: a record of process in
// repo with status, start, end (none when zero).
func gcRun(t *testing.T, home, name, repo, process string, status record.Status, start, end time.Time) {
	t.Helper()
	rec := record.Record{Version: record.RecordVersion, Process: process, Repo: repo, Status: status, Start: start}
	if !end.IsZero() {
		rec.End = &end
	}
	dir := filepath.Join(record.RunsDir(home), name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, record.RecordFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// names are the runs' names, sorted.
func names(runs []record.GCRun) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}

// Deleting a run removes what is left of its worktrees and has git forget
// them; a repository that is gone is fine.
func TestGCPrunesWorktrees(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	home := t.TempDir()
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+home, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "init")
	common, err := filepath.EvalSymlinks(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	old := "hunt_2026-01-01T000000Z"
	wt := filepath.Join(home, "worktrees", old, "a")
	if err := os.MkdirAll(filepath.Dir(wt), 0o700); err != nil {
		t.Fatal(err)
	}
	git("worktree", "add", "-q", "--detach", wt)
	gcRun(t, home, old, common, "hunt", record.StatusRunning, days(200), time.Time{})
	gcRun(t, home, "hunt_2026-05-20T000000Z", common, "hunt", record.StatusSucceeded, days(12), days(12))
	gcRun(t, home, "hunt_2025-12-01T000000Z", "/gone/.git", "hunt", record.StatusFailed, days(300), days(300))
	gcRun(t, home, "hunt_2026-05-21T000000Z", "/gone/.git", "hunt", record.StatusFailed, days(11), days(11))
	if err := os.MkdirAll(filepath.Join(home, "worktrees", "hunt_2025-12-01T000000Z", "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	r, err := record.GC(home, "", gcNow, record.GCOptions{PruneWorktrees: PruneWorktrees})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(r.Deleted); !slices.Equal(got, []string{"hunt_2025-12-01T000000Z", old}) {
		t.Fatalf("deleted %q", got)
	}
	for _, name := range []string{old, "hunt_2025-12-01T000000Z"} {
		if _, err := os.Stat(filepath.Join(home, "worktrees", name)); !os.IsNotExist(err) {
			t.Errorf("the worktrees of %s are still there: %v", name, err)
		}
	}
	out, err := exec.Command("git", "-C", repo, "worktree", "list", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for l := range strings.Lines(string(out)) {
		if strings.HasPrefix(l, "worktree ") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("git still lists the deleted run's worktree:\n%s", out)
	}
}

// A kept issue-branch worktree with uncommitted work survives the gc of its
// run, and gc says where it is; a clean one goes (its branch stays).
func TestGCKeepsUncommittedBranchWork(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	home, repo := t.TempDir(), t.TempDir()
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+home, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(repo, "init", "-q", "-b", "main")
	git(repo, "commit", "-q", "--allow-empty", "-m", "init")
	common, err := filepath.EvalSymlinks(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	old := "fix_2026-01-01T000000Z"
	dirty := filepath.Join(home, "worktrees", old, "fix")
	clean := filepath.Join(home, "worktrees", old, "docs")
	if err := os.MkdirAll(filepath.Dir(dirty), 0o700); err != nil {
		t.Fatal(err)
	}
	git(repo, "worktree", "add", "-q", "-b", "cairn/42-fix", dirty)
	git(repo, "worktree", "add", "-q", "-b", "cairn/43-docs", clean)
	if err := os.WriteFile(filepath.Join(dirty, "half-done.txt"), []byte("wip\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gcRun(t, home, old, common, "fix", record.StatusFailed, days(200), days(200))
	gcRun(t, home, "fix_2026-05-20T000000Z", common, "fix", record.StatusSucceeded, days(12), days(12))
	r, err := record.GC(home, "", gcNow, record.GCOptions{PruneWorktrees: PruneWorktrees})
	if err == nil || !strings.Contains(err.Error(), "uncommitted work on branch \"cairn/42-fix\"") {
		t.Errorf("GC error = %v; want one naming the worktree kept", err)
	}
	if got := names(r.Deleted); !slices.Equal(got, []string{old}) {
		t.Errorf("deleted %q, want the expired run", got)
	}
	if _, err := os.Stat(filepath.Join(dirty, "half-done.txt")); err != nil {
		t.Errorf("the uncommitted work is gone: %v", err)
	}
	if _, err := os.Stat(clean); !os.IsNotExist(err) {
		t.Errorf("the clean worktree is still there: %v", err)
	}
}
