//go:build unix

package proc

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
)

func TestWithToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"A=1"}, "t2"},
		{[]string{"A=1", EnvStepToken + "=t1"}, "t1 t2"},
		{[]string{EnvStepToken + "="}, "t2"},
	} {
		got := withToken(tc.env, "t2")
		var value string
		n := 0
		for _, kv := range got {
			if v, ok := strings.CutPrefix(kv, EnvStepToken+"="); ok {
				value, n = v, n+1
			}
		}
		if n != 1 || value != tc.want {
			t.Errorf("withToken(%q) = %q; want %s=%q once", tc.env, got, EnvStepToken, tc.want)
		}
		if !hasToken(value, "t2") || hasToken(value, "t") {
			t.Errorf("hasToken(%q) is wrong", value)
		}
	}
}

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

// TestProcEndsWhatItLeft holds that what a process leaves running ends with
// it: a child that keeps its output open does not hold Run, and neither it
// nor a child that left the process group outlives it.
func TestProcEndsWhatItLeft(t *testing.T) {
	t.Parallel()
	needProcesses(t)
	var out bytes.Buffer
	p := &Proc{Argv: []string{"bash", "-c", "sleep 3061 & setsid sleep 3062 & setsid sleep 3063 >/dev/null 2>&1 </dev/null & echo done"}, Stdout: &out, Stderr: &out, Env: os.Environ()}
	type ran struct {
		res Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := p.Run(context.Background())
		done <- ran{res, err}
	}()
	var r ran
	select {
	case r = <-done:
	case <-testwait.After():
		for _, n := range []string{"3061", "3062", "3063"} {
			for _, pid := range running("sleep", n) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		t.Fatal("Run waited for the children the process left")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.ExitCode != 0 || out.String() != "done\n" {
		t.Fatalf("got %+v %q; want exit 0 and done", r.res, out.String())
	}
	for _, n := range []string{"3061", "3062", "3063"} {
		waitGone(t, "sleep", n)
	}
}

// TestProcKill holds that once the kill channel of its context closes, a
// stopped process that ignores SIGTERM is killed without its grace.
func TestProcKill(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	kill := make(chan struct{})
	var out syncBuffer
	p := &Proc{Argv: []string{"bash", "-c", "trap '' TERM; echo ready; while :; do sleep 0.01; done"}, Stdout: &out, Grace: time.Hour, Env: os.Environ()}
	go func() {
		for !strings.Contains(out.String(), "ready") {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		close(kill)
	}()
	res, err := p.Run(WithKill(ctx, kill))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.ExitCode != -1 {
		t.Fatalf("got %+v, want stopped and killed", res)
	}
}

// TestGroupsRecorded holds that a process's group is in its
// Groups file while it runs, with its token and its leader's start
// time, and no longer once it has ended.
func TestGroupsRecorded(t *testing.T) {
	t.Parallel()
	needProcesses(t)
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	var out syncBuffer
	p := &Proc{
		Argv:   []string{"bash", "-c", `echo "$CAIRN_STEP_TOKEN"; while [ ! -e "$1" ]; do sleep 0.01; done`, "bash", release},
		Stdout: &out,
		Groups: NewGroups(filepath.Join(dir, groupsFile)),
		Env:    os.Environ(),
	}
	type ran struct {
		res Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := p.Run(context.Background())
		done <- ran{res, err}
	}()
	for !strings.Contains(out.String(), "\n") {
		time.Sleep(5 * time.Millisecond)
	}
	// The group is in the file from before its leader starts; its pgid
	// and start follow once Run has seen it start, which may be after the
	// leader printed its token.
	var groups []Group
	var err error
	started := testwait.Until(func() bool {
		groups = nil
		var b []byte
		if b, err = os.ReadFile(filepath.Join(dir, groupsFile)); err == nil {
			err = json.Unmarshal(b, &groups)
		}
		return err != nil || len(groups) != 1 || groups[0].PGID != 0
	})
	os.WriteFile(release, nil, 0o600)
	r := <-done
	if err != nil {
		t.Fatal(err)
	}
	if !started {
		t.Fatalf("the groups file holds %+v after %s; want the group's pgid", groups, testwait.Patience)
	}
	if r.err != nil || r.res.ExitCode != 0 {
		t.Fatalf("got %+v %v", r.res, r.err)
	}
	token := strings.TrimSpace(out.String())
	if len(groups) != 1 || groups[0].Token != token || groups[0].PGID <= 0 || groups[0].Start == 0 || groups[0].Boot != bootID() {
		t.Fatalf("groups file holds %+v; want one group of token %q with its pgid, start and boot", groups, token)
	}
	if _, err := os.Stat(filepath.Join(dir, groupsFile)); !os.IsNotExist(err) {
		t.Errorf("the groups file outlived the group: %v", err)
	}
	if err := p.Groups.Err(); err != nil {
		t.Error(err)
	}
}

// orphan starts a process group as a crashed cairn's step would have left
// it: bash, carrying token, that starts `sleep ARG` in its group and
// `sleep ARG+1` out of it, and waits. It returns the group's record, once
// both sleeps run, and kills what is left at the test's end.
func orphan(t *testing.T, token string, arg int) Group {
	t.Helper()
	a, b := strconv.Itoa(arg), strconv.Itoa(arg+1)
	cmd := exec.Command("bash", "-c", "sleep "+a+" & setsid sleep "+b+" & wait")
	cmd.Env = withToken(os.Environ(), token)
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
	start, _ := procStart(cmd.Process.Pid)
	return Group{Token: token, PGID: cmd.Process.Pid, Start: start, Boot: bootID()}
}

// groupsFile is the Groups file of the tests.
const groupsFile = ".groups.json"

// writeGroups writes a Groups file in dir that holds groups.
func writeGroups(t *testing.T, dir string, groups ...Group) {
	t.Helper()
	b, err := json.Marshal(groups)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, groupsFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestEndGroups holds that EndGroups ends the recorded groups, the
// processes that left them included, and nothing that is not provably
// theirs: a group whose leader started at another time (its id reused), one
// of another boot, one recorded in a file read through a symlink.
func TestEndGroups(t *testing.T) {
	t.Parallel()
	needProcesses(t)
	t.Run("crashed", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		writeGroups(t, dir, orphan(t, newToken(), 3171))
		n, err := EndGroups(filepath.Join(dir, groupsFile))
		if err != nil {
			t.Fatal(err)
		}
		if n < 3 {
			t.Errorf("EndGroups ended %d processes; want bash and both sleeps", n)
		}
		waitGone(t, "sleep", "3171")
		waitGone(t, "sleep", "3172")
		if _, err := os.Stat(filepath.Join(dir, groupsFile)); !os.IsNotExist(err) {
			t.Errorf("the groups file is left: %v", err)
		}
	})
	t.Run("symlink", func(t *testing.T) {
		t.Parallel()
		dir, elsewhere := t.TempDir(), t.TempDir()
		writeGroups(t, elsewhere, orphan(t, newToken(), 3181))
		link := filepath.Join(dir, groupsFile)
		if err := os.Symlink(filepath.Join(elsewhere, groupsFile), link); err != nil {
			t.Fatal(err)
		}
		if n, err := EndGroups(link); err == nil || n != 0 {
			t.Fatalf("EndGroups = %d, %v; want nothing ended, and an error", n, err)
		}
		if len(running("sleep", "3181")) == 0 {
			t.Error("sleep 3181 was ended through a symlink")
		}
	})
	for _, tc := range []struct {
		name  string
		arg   int
		alter func(*Group)
	}{
		{"reused", 3173, func(g *Group) { g.Start++; g.Token = newToken() }},
		{"another boot", 3175, func(g *Group) { g.Boot = "another" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			g := orphan(t, newToken(), tc.arg)
			tc.alter(&g)
			writeGroups(t, dir, g)
			n, err := EndGroups(filepath.Join(dir, groupsFile))
			if err != nil || n != 0 {
				t.Fatalf("EndGroups = %d, %v; want nothing ended", n, err)
			}
			for _, arg := range []int{tc.arg, tc.arg + 1} {
				if len(running("sleep", strconv.Itoa(arg))) == 0 {
					t.Errorf("sleep %d was ended", arg)
				}
			}
		})
	}
}
