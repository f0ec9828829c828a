//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cairn-dev/cairn/internal/testwait"
)

// The script command of the process scripts: processes that must be gone.
func init() {
	scriptCmds["procs-gone"] = procsGone
}

// procsGone is the script command "procs-gone PROG ARGS...": it waits until
// no process of the machine runs with exactly that command line (PROG
// compared by its base name), and fails, killing them, after
// testwait.Patience: a killed process is gone a moment after the kill, not
// at once.
func procsGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: procs-gone PROG [ARGS...]")
	}
	if testwait.Until(func() bool { return len(processesRunning(args)) == 0 }) {
		return
	}
	pids := processesRunning(args)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	ts.Fatalf("%q still runs (pid %v) after %s", strings.Join(args, " "), pids, testwait.Patience)
}

// processesRunning lists the processes whose command line is argv, its
// first word compared by base name.
func processesRunning(argv []string) []int {
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		words := strings.Split(string(bytes.TrimSuffix(b, []byte{0})), "\x00")
		if len(words) != len(argv) || filepath.Base(words[0]) != argv[0] {
			continue
		}
		same := true
		for i := 1; i < len(argv); i++ {
			same = same && words[i] == argv[i]
		}
		if same {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestRunClosedOutput holds that a run whose stdout and stderr go to a pipe
// nobody reads any more (cairn run X 2>&1 | head -1, once head is gone)
// runs to its end: its progress and its results are lost, not the run.
func TestRunClosedOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"out.toml": `version = 1

[[steps]]
name = "first"
command = "echo first"

[[steps]]
name = "last"
command = "echo last"
`,
		".gitignore": "/home/\n",
	})
	gitRepo(t, dir)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd := exec.Command("cairn", "run", "out.toml")
	cmd.Dir, cmd.Env = dir, environ(t, dir)
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Run()
	w.Close()
	if err != nil {
		t.Fatalf("cairn run with its output closed: %v; want exit 0", err)
	}
	stdout, stderr, code := cairnIn(t, dir, "show")
	if code != 0 {
		t.Fatalf("cairn show exited %d\n%s", code, stderr)
	}
	for _, want := range []string{`(?m)^status +succeeded$`, `step=last .* outcome=succeeded`} {
		if !regexp.MustCompile(want).Match(stdout) {
			t.Errorf("cairn show lacks %s:\n%s", want, stdout)
		}
	}
}

// exitOfErr is the exit code in exec's error: 0 for nil, -1 for a signal.
func exitOfErr(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return 0
}
