package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cairn-dev/cairn/internal/testwait"
)

// The script commands of the run scripts: exit codes, and cairn in the
// background, signalled.
func init() {
	scriptCmds["exit-code"] = exitCode
	scriptCmds["bg"] = startBackground
	scriptCmds["bg-signal"] = signalBackground
	scriptCmds["bg-wait"] = waitBackground
	scriptCmds["wait-file"] = waitFile
	scriptSetups = append(scriptSetups, func(e *testscript.Env) error {
		names := make([]string, 0, len(e.Vars))
		for _, kv := range e.Vars {
			if name, _, ok := strings.Cut(kv, "="); ok {
				names = append(names, name)
			}
		}
		e.Values[envNamesKey{}] = names
		return nil
	})
}

// envNamesKey keys the names of the script's environment in its values.
type envNamesKey struct{}

// exitCode is the script command "exit-code CODE PROG [ARGS...]": it runs
// PROG as exec does (its stdout and stderr are then the script's to check)
// and fails unless it exits CODE.
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exit-code CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d; want %d", args[1], got, want)
	}
}

// background is a command bg started.
type background struct {
	cmd    *exec.Cmd
	stdout *os.File
	stderr *os.File
	done   chan struct{}
	err    error
}

var (
	backgroundMu sync.Mutex
	backgrounds  = map[*testscript.TestScript]map[string]*background{}
)

// startBackground is the script command "bg NAME [VAR=VALUE...] PROG
// [ARGS...]": it starts PROG in the script's folder with the script's
// environment (and the VAR=VALUE given), writing its stdout and stderr to
// $WORK/NAME.stdout and $WORK/NAME.stderr, and goes on. bg-signal signals
// it; bg-wait waits for it. It is killed when the script ends.
func startBackground(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: bg NAME [VAR=VALUE...] PROG [ARGS...]")
	}
	name, args := args[0], args[1:]
	names, _ := ts.Value(envNamesKey{}).([]string)
	var env []string
	for _, n := range names {
		env = append(env, n+"="+ts.Getenv(n))
	}
	for len(args) > 0 && strings.Contains(args[0], "=") {
		env = append(env, args[0])
		args = args[1:]
	}
	if len(args) == 0 {
		ts.Fatalf("bg %s: no program", name)
	}
	prog, err := lookPathIn(ts.Getenv("PATH"), args[0])
	ts.Check(err)
	bg := &background{done: make(chan struct{})}
	bg.stdout, err = os.Create(ts.MkAbs(name + ".stdout"))
	ts.Check(err)
	bg.stderr, err = os.Create(ts.MkAbs(name + ".stderr"))
	ts.Check(err)
	bg.cmd = exec.Command(prog, args[1:]...)
	bg.cmd.Dir, bg.cmd.Env = ts.MkAbs("."), env
	bg.cmd.Stdout, bg.cmd.Stderr = bg.stdout, bg.stderr
	ts.Check(bg.cmd.Start())
	go func() {
		bg.err = bg.cmd.Wait()
		bg.stdout.Close()
		bg.stderr.Close()
		close(bg.done)
	}()
	backgroundMu.Lock()
	if backgrounds[ts] == nil {
		backgrounds[ts] = map[string]*background{}
		ts.Defer(func() {
			backgroundMu.Lock()
			defer backgroundMu.Unlock()
			for _, bg := range backgrounds[ts] {
				_ = bg.cmd.Process.Kill()
				<-bg.done
			}
			delete(backgrounds, ts)
		})
	}
	backgrounds[ts][name] = bg
	backgroundMu.Unlock()
}

// lookPathIn finds prog in the folders of path, as exec does with the
// script's PATH.
func lookPathIn(path, prog string) (string, error) {
	if strings.ContainsRune(prog, '/') {
		return prog, nil
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, prog)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New(prog + " not found on the script's PATH")
}

// findBackground is the command bg started as name.
func findBackground(ts *testscript.TestScript, name string) *background {
	backgroundMu.Lock()
	defer backgroundMu.Unlock()
	bg := backgrounds[ts][name]
	if bg == nil {
		ts.Fatalf("no background command %q", name)
	}
	return bg
}

// signals are the signals bg-signal sends, by name.
var signals = map[string]syscall.Signal{
	"INT":  syscall.SIGINT,
	"TERM": syscall.SIGTERM,
	"KILL": syscall.SIGKILL,
}

// signalBackground is the script command "bg-signal NAME INT|TERM|KILL".
func signalBackground(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: bg-signal NAME INT|TERM|KILL")
	}
	sig, ok := signals[args[1]]
	if !ok {
		ts.Fatalf("unknown signal %q", args[1])
	}
	ts.Check(findBackground(ts, args[0]).cmd.Process.Signal(sig))
}

// waitBackground is the script command "bg-wait NAME CODE|killed": it waits
// for the command bg started as NAME to end, and fails unless it exited CODE
// (or, for "killed", was killed by SIGKILL).
func waitBackground(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: bg-wait NAME CODE|killed")
	}
	bg := findBackground(ts, args[0])
	select {
	case <-bg.done:
	case <-testwait.After():
		ts.Fatalf("%s did not end within %s", args[0], testwait.Patience)
	}
	var ee *exec.ExitError
	code := 0
	if errors.As(bg.err, &ee) {
		code = ee.ExitCode()
	} else if bg.err != nil {
		ts.Fatalf("%s: %v", args[0], bg.err)
	}
	if args[1] == "killed" {
		ws, ok := bg.cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			ts.Fatalf("%s ended with %v; want killed by SIGKILL", args[0], bg.err)
		}
		return
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	if code != want {
		stderr, _ := os.ReadFile(ts.MkAbs(args[0] + ".stderr"))
		ts.Fatalf("%s exited %d; want %d\n%s", args[0], code, want, bytes.TrimSpace(stderr))
	}
}

// waitFile is the script command "wait-file PATTERN...": it waits until
// each glob pattern names a file, polling every 10ms, and fails after
// testwait.Patience.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: wait-file PATTERN...")
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := testwait.After()
	for _, pattern := range args {
		for {
			m, err := filepath.Glob(ts.MkAbs(pattern))
			ts.Check(err)
			if len(m) > 0 {
				break
			}
			select {
			case <-tick.C:
			case <-deadline:
				ts.Fatalf("nothing matched %s within %s", pattern, testwait.Patience)
			}
		}
	}
}

// TestParallelExample runs the README's quick start, examples/parallel.toml,
// in a small repository: it needs nothing but git and bash, and prints the
// summary of its three parallel looks.
func TestParallelExample(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "parallel.toml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"parallel.toml": string(example),
		"main.go":       "package main\n\nfunc main() {}\n",
		".gitignore":    "/home/\n",
	})
	gitRepo(t, dir)
	stdout, stderr, code := cairnIn(t, dir, "run", "parallel.toml")
	if code != 0 {
		t.Fatalf("cairn run parallel.toml exited %d\n%s", code, stderr)
	}
	for _, want := range []string{"Lines of Go: 3\n", "Largest files:\n", "bytes  parallel.toml\n", "Latest commits:\n", " init\n"} {
		if !strings.Contains(string(stdout), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}
