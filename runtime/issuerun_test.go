package runtime

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/internal/fakegh"
	"github.com/cairn-dev/cairn/internal/ghtest"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/testrepo"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// thisHost is the host the claim tests' holders run on.
func thisHost(t *testing.T) string {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Skipf("no hostname: %v", err)
	}
	return host
}

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// asClaimed is err as a *forge.ClaimedError, failing the test when it is not one.
func asClaimed(t *testing.T, err error) *forge.ClaimedError {
	t.Helper()
	var claimed *forge.ClaimedError
	if !errors.As(err, &claimed) {
		t.Fatalf("error %v, want a *forge.ClaimedError", err)
	}
	return claimed
}

func TestTakeClaimLiveRefusedEvenWithTakeOver(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	ctx := context.Background()
	host := thisHost(t)
	folder := filepath.Join(t.TempDir(), "fix_2026-03-01T090000Z")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := proc.Lock(filepath.Join(folder, record.LockFile), false)
	if err != nil {
		t.Fatal(err)
	}
	// Its process is gone, but its run folder's lock is held: the lock
	// decides, as a pid may be reused.
	live := forge.Holder{Host: host, Run: filepath.Base(folder), PID: deadPID(t), Folder: folder}
	first, err := forge.TakeClaim(ctx, f.Repo, 9, live, false, claimStaleness)
	if err != nil {
		t.Fatal(err)
	}
	next := forge.Holder{Host: host, Run: "fix_2026-03-01T100000Z", PID: os.Getpid()}
	_, err = forge.TakeClaim(ctx, f.Repo, 9, next, true, claimStaleness)
	if claimed := asClaimed(t, err); claimed.Stale || claimed.Holder.Folder != folder {
		t.Errorf("a live claim was taken as stale: %+v", claimed)
	}
	if !strings.Contains(err.Error(), "still running") {
		t.Errorf("the refusal %q does not say the holder runs", err)
	}
	if got := testrepo.Git(t, f.Origin, "rev-parse", forge.ClaimRef(9)); got != first.Commit {
		t.Error("the live claim was replaced")
	}
	lock.Close()
	eventually(t, "the holder's lock free", lockFree(filepath.Join(folder, record.LockFile)))
	if _, err := forge.TakeClaim(ctx, f.Repo, 9, next, true, claimStaleness); err != nil {
		t.Errorf("take-over once the holder's lock is free: %v", err)
	}
}

// A crashed run resumed holds its own folder's lock, which its claim names:
// the claim is its own, not a live run's.
func TestTakeClaimResumedRunHoldsItsLock(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	ctx := context.Background()
	folder := filepath.Join(t.TempDir(), "fix_2026-03-01T090000Z")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	crashed := forge.Holder{Host: thisHost(t), Run: filepath.Base(folder), PID: deadPID(t), Folder: folder}
	if _, err := forge.TakeClaim(ctx, f.Repo, 6, crashed, false, claimStaleness); err != nil {
		t.Fatal(err)
	}
	lock, err := proc.Lock(filepath.Join(folder, record.LockFile), false)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	resumed := crashed
	resumed.PID = os.Getpid()
	c, err := forge.TakeClaim(ctx, f.Repo, 6, resumed, false, claimStaleness)
	if err != nil {
		t.Fatalf("the resumed run could not take back its own claim: %v", err)
	}
	if got := testrepo.Git(t, f.Origin, "rev-parse", forge.ClaimRef(6)); got != c.Commit {
		t.Error("origin's claim is not the resumed run's")
	}
	// Another run of the same name in another folder is not this run.
	other := filepath.Join(t.TempDir(), filepath.Base(folder))
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	stranger := forge.Holder{Host: resumed.Host, Run: resumed.Run, PID: os.Getpid(), Folder: other}
	_, err = forge.TakeClaim(ctx, f.Repo, 6, stranger, true, claimStaleness)
	if claimed := asClaimed(t, err); claimed.Stale {
		t.Errorf("a live claim was taken as stale: %+v", claimed)
	}
}

// TestIssueFileLeavesTreeClean holds that the issue file is excluded from
// git before it is written, so that it never makes the tree dirty.
func TestIssueFileLeavesTreeClean(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	f.WriteIssue(t, fakegh.Issue{Number: 42, Title: "Fix the parser", Body: "It crashes.", Author: "alice", CreatedAt: ghtest.At(0)})
	is, err := forge.OpenIssue(context.Background(), f.Repo, "#42", nil, f.Env)
	if err != nil {
		t.Fatal(err)
	}
	path, err := writeIssueFile(context.Background(), git.New(f.Env), is, f.Root)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(f.Root, ir.IssueFile) {
		t.Errorf("writeIssueFile wrote %s, want %s", path, filepath.Join(f.Root, ir.IssueFile))
	}
	if status := testrepo.Git(t, f.Root, "status", "--porcelain"); status != "" {
		t.Errorf("the issue file makes the tree dirty:\n%s", status)
	}
}
