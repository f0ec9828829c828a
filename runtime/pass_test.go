package runtime

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/testwait"
	"github.com/cairn-dev/cairn/record"
)

// TestHelperHoldLock is not a test: it is the process the lock tests start
// to hold a lock from another process, until it is killed. CAIRN_TEST_HOLD
// says which: "pass HOME REPO RUN" or "folder DIR".
func TestHelperHoldLock(t *testing.T) {
	args := strings.Fields(os.Getenv("CAIRN_TEST_HOLD"))
	if len(args) == 0 {
		t.Skip("the helper process of the lock tests")
	}
	switch args[0] {
	case "pass":
		l, h, err := AcquirePass(args[1], args[2])
		if err != nil || l == nil {
			fmt.Printf("not locked: %v %+v\n", err, h)
			os.Exit(1)
		}
		if err := l.SetRun(args[3]); err != nil {
			fmt.Printf("not locked: %v\n", err)
			os.Exit(1)
		}
	case "folder":
		// A lock the test process probed (Held) a moment ago is held
		// until a process another test forked then has exec'd.
		var err error
		eventually(t, "the folder's lock", func() bool {
			_, err = proc.Lock(filepath.Join(args[1], record.LockFile), false)
			return !errors.Is(err, proc.ErrWouldBlock)
		})
		if err != nil {
			fmt.Printf("not locked: %v\n", err)
			os.Exit(1)
		}
	}
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// eventually waits until cond holds, failing the test after
// testwait.Patience. A lock file this process let go of stays locked while
// a process another test is starting has not yet exec'd: it holds a copy
// of every open file until then.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !testwait.Until(cond) {
		t.Fatalf("%s: not within %s", what, testwait.Patience)
	}
}

// lockFree is a condition for eventually: no open file holds the lock at
// path.
func lockFree(path string) func() bool {
	return func() bool {
		held, err := proc.Held(path)
		return err != nil || !held
	}
}

// holdLock starts a process holding a lock (TestHelperHoldLock) and waits
// until it says it holds it; the returned function SIGKILLs it and waits
// for it to be gone.
func holdLock(t *testing.T, what ...string) (kill func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "CAIRN_TEST_HOLD="+strings.Join(what, " "))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := false
	kill = func() {
		if done {
			return
		}
		done = true
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		stdin.Close()
	}
	t.Cleanup(kill)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		kill()
		t.Fatalf("the lock holder said %q (%v)", line, err)
	}
	return kill
}

func TestAcquirePassTwice(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	l, h, err := AcquirePass(home, "/r/.git")
	if err != nil || l == nil || h != nil {
		t.Fatalf("first: %v %v %v", l, h, err)
	}
	if err := l.SetRun("hunt_2026-01-02T030405Z"); err != nil {
		t.Fatal(err)
	}
	l2, h2, err := AcquirePass(home, "/r/.git")
	if err != nil || l2 != nil || h2 == nil {
		t.Fatalf("second: %v %v %v", l2, h2, err)
	}
	if h2.Run != "hunt_2026-01-02T030405Z" || h2.PID != os.Getpid() || h2.Since.IsZero() {
		t.Fatalf("holder %+v", h2)
	}
	// Another repository has its own Pass.
	other, _, err := AcquirePass(home, "/s/.git")
	if err != nil || other == nil {
		t.Fatalf("other repository: %v %v", other, err)
	}
	other.Release()
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("second release: %v", err)
	}
	var l3 *PassLock
	eventually(t, "the pass after its release", func() bool {
		l3, _, err = AcquirePass(home, "/r/.git")
		return err != nil || l3 != nil
	})
	if err != nil || l3 == nil {
		t.Fatalf("after release: %v %v", l3, err)
	}
	l3.Release()
	fi, err := os.Stat(PassLockPath(home, "/r/.git"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v %v", fi, err)
	}
	if !strings.HasPrefix(filepath.Base(PassLockPath(home, "/r/.git")), "pass-") || len(filepath.Base(PassLockPath(home, "/r/.git"))) != len("pass-0123456789abcdef.lock") {
		t.Errorf("lock name %s", PassLockPath(home, "/r/.git"))
	}
}

// TestPassFreedWhenHolderDies holds that a Pass whose cairn was killed does
// not block the next.
func TestPassFreedWhenHolderDies(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	kill := holdLock(t, "pass", home, "/r/.git", "hunt_1")
	l, h, err := AcquirePass(home, "/r/.git")
	if err != nil || l != nil {
		t.Fatalf("taken while held: %v %v", l, err)
	}
	if h.Run != "hunt_1" || h.PID == os.Getpid() || h.PID == 0 {
		t.Fatalf("holder %+v", h)
	}
	kill()
	l, h, err = AcquirePass(home, "/r/.git")
	if err != nil || l == nil {
		t.Fatalf("not taken after the holder died: %v %+v %v", l, h, err)
	}
	l.Release()
}

// TestCrashedDetection holds that a running record is running while
// another process holds its folder's lock, and crashed once that process is
// killed.
func TestCrashedDetection(t *testing.T) {
	t.Parallel()
	f, err := record.NewFolder(filepath.Join(t.TempDir(), "runs"), "hunt", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Begin(&record.Record{Process: "hunt", Status: record.StatusRunning}); err != nil {
		t.Fatal(err)
	}
	// Let go of this process's own lock, as a run that crashed would.
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the folder's lock free", lockFree(filepath.Join(f.Dir, record.LockFile)))
	rec, err := record.Load(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != record.StatusCrashed {
		t.Fatalf("status %q with the lock free, want crashed", rec.Status)
	}
	kill := holdLock(t, "folder", f.Dir)
	if rec, err = record.Load(f.Dir); err != nil || rec.Status != record.StatusRunning {
		t.Fatalf("status %v %v while another process holds the lock, want running", rec.Status, err)
	}
	kill()
	if rec, err = record.Load(f.Dir); err != nil || rec.Status != record.StatusCrashed {
		t.Fatalf("status %v %v after the holder died, want crashed", rec.Status, err)
	}
}
