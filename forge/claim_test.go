package forge

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/internal/ghtest"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/testrepo"
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

// claimOnOrigin is the commit message of the claim on issue n on origin, ""
// when there is none.
func claimOnOrigin(t *testing.T, f *ghtest.Fixture, n int) string {
	t.Helper()
	out := testrepo.Git(t, f.Origin, "for-each-ref", "--format=%(objectname)", ClaimRef(n))
	if out == "" {
		return ""
	}
	return testrepo.Git(t, f.Origin, "log", "-1", "--format=%B", out)
}

// asClaimed is err as a *ClaimedError, failing the test when it is not one.
func asClaimed(t *testing.T, err error) *ClaimedError {
	t.Helper()
	var claimed *ClaimedError
	if !errors.As(err, &claimed) {
		t.Fatalf("error %v, want a *ClaimedError", err)
	}
	return claimed
}

func TestTakeClaimRace(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	other := filepath.Join(t.TempDir(), "other")
	testrepo.Git(t, "", "clone", "-q", f.Origin, other)
	head := testrepo.Git(t, f.Root, "rev-parse", "HEAD")
	host := thisHost(t)

	repos := []*git.Repo{f.Repo, {Root: other, Git: git.New(f.Env)}}
	holders := []Holder{{Host: host, Run: "fix_2026-03-01T090000Z", PID: os.Getpid()}, {Host: host, Run: "fix_2026-03-01T090001Z", PID: os.Getpid()}}
	claims := make([]*Claim, 2)
	errs := make([]error, 2)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			<-start
			claims[i], errs[i] = TakeClaim(context.Background(), repos[i], 42, holders[i], false, nil)
		})
	}
	close(start)
	wg.Wait()

	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("both or neither won: %v / %v", errs[0], errs[1])
	}
	win, lose := 0, 1
	if errs[0] != nil {
		win, lose = 1, 0
	}
	claimed := asClaimed(t, errs[lose])
	if claimed.Holder.Run != holders[win].Run || claimed.Stale || !claimed.Local {
		t.Errorf("the loser was told %+v, want the live winner %+v", claimed, holders[win])
	}
	for _, want := range []string{"issue #42 is claimed by run " + `"` + holders[win].Run + `"`, `on host "` + host + `"`, "still running"} {
		if !strings.Contains(errs[lose].Error(), want) {
			t.Errorf("the loser's error %q does not say %q", errs[lose], want)
		}
	}
	msg := claimOnOrigin(t, f, 42)
	if !strings.Contains(msg, "run: "+holders[win].Run) || !strings.Contains(msg, "host: "+host) {
		t.Errorf("the claim on origin says:\n%s", msg)
	}
	if claims[win].Commit != testrepo.Git(t, f.Origin, "rev-parse", ClaimRef(42)) {
		t.Error("the winner's claim is not the commit on origin")
	}
	// Claiming touched neither the working tree, the index nor HEAD.
	if status := testrepo.Git(t, f.Root, "status", "--porcelain"); status != "" {
		t.Errorf("claiming changed the working tree:\n%s", status)
	}
	if got := testrepo.Git(t, f.Root, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved from %s to %s", head, got)
	}
}

func TestTakeClaimStale(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	ctx := context.Background()
	host := thisHost(t)
	crashed := Holder{Host: host, Run: "fix_2026-03-01T090000Z", PID: deadPID(t)}
	if _, err := TakeClaim(ctx, f.Repo, 7, crashed, false, nil); err != nil {
		t.Fatal(err)
	}
	next := Holder{Host: host, Run: "fix_2026-03-01T100000Z", PID: os.Getpid()}
	_, err := TakeClaim(ctx, f.Repo, 7, next, false, nil)
	if claimed := asClaimed(t, err); !claimed.Stale {
		t.Errorf("a crashed holder's claim is not stale: %+v", claimed)
	}
	if !strings.Contains(err.Error(), "no longer runs; pass --take-over") {
		t.Errorf("the refusal %q does not say how to take over", err)
	}
	c, err := TakeClaim(ctx, f.Repo, 7, next, true, nil)
	if err != nil {
		t.Fatalf("take-over of a stale claim: %v", err)
	}
	if msg := claimOnOrigin(t, f, 7); !strings.Contains(msg, "run: "+next.Run) {
		t.Errorf("after take-over origin's claim says:\n%s", msg)
	}
	if err := c.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestTakeClaimOtherHost(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	ctx := context.Background()
	away := Holder{Host: "build-box-" + thisHost(t), Run: "fix_2026-03-01T090000Z", PID: deadPID(t)}
	if _, err := TakeClaim(ctx, f.Repo, 3, away, false, nil); err != nil {
		t.Fatal(err)
	}
	_, err := TakeClaim(ctx, f.Repo, 3, Holder{Host: thisHost(t), Run: "fix_2026-03-01T100000Z", PID: os.Getpid()}, true, nil)
	if claimed := asClaimed(t, err); claimed.Stale || claimed.Local {
		t.Errorf("another host's claim: %+v, want neither local nor stale", claimed)
	}
	for _, want := range []string{`host "build-box-`, "cannot tell", `git push origin --delete refs/cairn/claims/3`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
}

func TestTakeClaimResumedRun(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	ctx := context.Background()
	run := Holder{Host: thisHost(t), Run: "fix_2026-03-01T090000Z", PID: deadPID(t)}
	if _, err := TakeClaim(ctx, f.Repo, 5, run, false, nil); err != nil {
		t.Fatal(err)
	}
	run.PID = os.Getpid()
	if _, err := TakeClaim(ctx, f.Repo, 5, run, false, nil); err != nil {
		t.Errorf("the same run, resumed after a crash, could not claim its issue again: %v", err)
	}
}

func TestReleaseClaim(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	ctx := context.Background()
	host := thisHost(t)
	c, err := TakeClaim(ctx, f.Repo, 11, Holder{Host: host, Run: "fix_2026-03-01T090000Z", PID: deadPID(t)}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	taker, err := TakeClaim(ctx, f.Repo, 11, Holder{Host: host, Run: "fix_2026-03-01T100000Z", PID: os.Getpid()}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The first holder came back: its release leaves the new claim alone.
	err = c.Release(ctx)
	if err == nil || !strings.Contains(err.Error(), `now held by run "fix_2026-03-01T100000Z"`) {
		t.Errorf("releasing a claim taken over: %v", err)
	}
	if got := testrepo.Git(t, f.Origin, "rev-parse", ClaimRef(11)); got != taker.Commit {
		t.Error("a release deleted another run's claim")
	}
	if err := taker.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if msg := claimOnOrigin(t, f, 11); msg != "" {
		t.Errorf("the claim is still on origin after its release:\n%s", msg)
	}
	if err := taker.Release(ctx); err != nil {
		t.Errorf("a second release: %v", err)
	}
	if err := (*Claim)(nil).Release(ctx); err != nil {
		t.Errorf("releasing no claim: %v", err)
	}
}

func TestTakeClaimNoOrigin(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	testrepo.Git(t, f.Root, "remote", "set-url", "origin", filepath.Join(t.TempDir(), "gone.git"))
	_, err := TakeClaim(context.Background(), f.Repo, 1, Holder{Host: thisHost(t), Run: "r", PID: os.Getpid()}, false, nil)
	if err == nil || !strings.Contains(err.Error(), "claim issue #1: git ") {
		t.Fatalf("a claim with origin unreachable: %v, want git's error", err)
	}
	var claimed *ClaimedError
	if errors.As(err, &claimed) {
		t.Errorf("an unreachable origin was taken for a claim: %v", err)
	}
}
