//go:build unix

package runtime

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn/catalogue"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/testwait"
	"github.com/cairn-dev/cairn/record"
)

// needProcesses skips a test that needs to list the machine's processes
// where cairn cannot.
func needProcesses(t *testing.T) {
	t.Helper()
	if goruntime.GOOS != "linux" {
		t.Skip("listing processes needs /proc")
	}
}

// running lists the processes whose command line is exactly argv.
func running(argv ...string) []int {
	want := strings.Join(argv, "\x00") + "\x00"
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && string(b) == want {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitGone waits until no process runs argv, failing after
// testwait.Patience (and killing them).
func waitGone(t *testing.T, argv ...string) {
	t.Helper()
	if testwait.Until(func() bool { return len(running(argv...)) == 0 }) {
		return
	}
	pids := running(argv...)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	t.Fatalf("%q still runs (pid %v) after %s", strings.Join(argv, " "), pids, testwait.Patience)
}

// orphan starts a process group as a crashed cairn's step would have left
// it: bash, carrying token, that starts `sleep ARG` in its group and
// `sleep ARG+1` out of it, and waits. It returns the group's record, once
// both sleeps run, and kills what is left at the test's end.
func orphan(t *testing.T, token string, arg int) proc.Group {
	t.Helper()
	a, b := strconv.Itoa(arg), strconv.Itoa(arg+1)
	cmd := exec.Command("bash", "-c", "sleep "+a+" & setsid sleep "+b+" & wait")
	cmd.Env = append(os.Environ(), proc.EnvStepToken+"="+token)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Reaped at once: a killed bash is gone, not a zombie of the test.
	reaped := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(reaped)
	}()
	t.Cleanup(func() {
		for _, n := range []string{a, b} {
			for _, pid := range running("sleep", n) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-reaped
	})
	if !testwait.Until(func() bool { return len(running("sleep", a)) > 0 && len(running("sleep", b)) > 0 }) {
		t.Fatal("the orphan's sleeps did not start")
	}
	// Only the token: the processes are found by it alone.
	return proc.Group{Token: token, Boot: proc.BootID()}
}

// writeGroups writes a run folder at dir whose groups file holds groups.
func writeGroups(t *testing.T, dir string, groups ...proc.Group) {
	t.Helper()
	b, err := json.Marshal(groups)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, groupsFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestEndOrphans holds that EndOrphans ends a crashed run's recorded
// groups and those of its child runs, and nothing of a run whose lock is
// held, nor through a groups file that is a symlink. What proves a group
// theirs is proc's (TestEndGroups).
func TestEndOrphans(t *testing.T) {
	t.Parallel()
	needProcesses(t)
	t.Run("crashed", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		g := orphan(t, newToken(), 3071)
		writeGroups(t, dir, g)
		n, err := EndOrphans(dir)
		if err != nil {
			t.Fatal(err)
		}
		if n < 3 {
			t.Errorf("EndOrphans ended %d processes; want bash and both sleeps", n)
		}
		waitGone(t, "sleep", "3071")
		waitGone(t, "sleep", "3072")
		if _, err := os.Stat(filepath.Join(dir, groupsFile)); !os.IsNotExist(err) {
			t.Errorf("the groups file is left: %v", err)
		}
	})
	t.Run("child", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		child := filepath.Join(dir, catalogue.ChildrenDir, "fix_2026-01-02T030405Z")
		if err := os.MkdirAll(child, 0o700); err != nil {
			t.Fatal(err)
		}
		rec := record.Record{Version: record.RecordVersion, Status: record.StatusRunning, Steps: []record.StepRecord{{Name: "publish", Children: []string{catalogue.ChildrenDir + "/fix_2026-01-02T030405Z"}}}}
		b, err := json.Marshal(&rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, record.RecordFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
		writeGroups(t, child, orphan(t, newToken(), 3079))
		if n, err := EndOrphans(dir); err != nil || n < 3 {
			t.Fatalf("EndOrphans = %d, %v; want the child run's bash and sleeps ended", n, err)
		}
		waitGone(t, "sleep", "3079")
		waitGone(t, "sleep", "3080")
	})
	t.Run("hostile", func(t *testing.T) {
		t.Parallel()
		// A record that names its own folder as its child, and a
		// groups file that is a symlink to one that holds a live
		// group: nothing loops, nothing is read through the link.
		dir := t.TempDir()
		rec := record.Record{Version: record.RecordVersion, Status: record.StatusRunning, Steps: []record.StepRecord{{Name: "publish", Children: []string{".", dir, "children/../."}}}}
		b, err := json.Marshal(&rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, record.RecordFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
		elsewhere := t.TempDir()
		writeGroups(t, elsewhere, orphan(t, newToken(), 3081))
		if err := os.Symlink(filepath.Join(elsewhere, groupsFile), filepath.Join(dir, groupsFile)); err != nil {
			t.Fatal(err)
		}
		if n, err := EndOrphans(dir); err != nil || n != 0 {
			t.Fatalf("EndOrphans = %d, %v; want nothing ended", n, err)
		}
		if len(running("sleep", "3081")) == 0 {
			t.Error("sleep 3081 was ended through a symlink")
		}
	})
	t.Run("running", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		writeGroups(t, dir, orphan(t, newToken(), 3077))
		lock, err := proc.Lock(filepath.Join(dir, record.LockFile), false)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Close()
		n, err := EndOrphans(dir)
		if err != nil || n != 0 {
			t.Fatalf("EndOrphans = %d, %v; want nothing ended", n, err)
		}
		for _, arg := range []string{"3077", "3078"} {
			if len(running("sleep", arg)) == 0 {
				t.Errorf("sleep %s was ended", arg)
			}
		}
	})
}

// newToken is a fresh step token.
func newToken() string { return rand.Text() }
