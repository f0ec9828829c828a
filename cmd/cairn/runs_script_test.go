//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cairn-dev/cairn/internal/testwait"
)

// The script commands and setup of the status, show and stop scripts, which
// write run folders by hand.
func init() {
	scriptCmds["expand"] = expandFile
	scriptCmds["hold-run"] = holdRun
	scriptCmds["wait-stopped"] = waitStopped
	scriptSetups = append(scriptSetups, func(e *testscript.Env) error {
		// $WORK as cairn names a repository in it in records: by its
		// realpath.
		work, err := filepath.EvalSymlinks(e.WorkDir)
		if err != nil {
			return err
		}
		e.Setenv("REALWORK", work)
		return nil
	})
}

// expandFile is the script command "expand SRC DST": it writes SRC to DST
// (making its folders) with $VAR and ${VAR} replaced by the script's
// environment, so that a record can name a repository ($REALWORK/repo/.git)
// or a pid.
func expandFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand SRC DST")
	}
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o700))
	ts.Check(os.WriteFile(dst, []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o600))
}

// runHolder is a run's cairn as hold-run fakes it: a process to signal, and
// the run folder's lock, held by the test.
type runHolder struct {
	cmd  *exec.Cmd
	lock *os.File
	done chan error
}

var (
	holdersMu sync.Mutex
	holders   = map[*testscript.TestScript]*runHolder{}
)

// holdRun is the script command "hold-run DIR": it makes the run folder DIR
// look running, as its cairn would: it holds DIR/.lock and starts a process
// ($RUN_PID) for `cairn stop` to signal. Both end with the script.
func holdRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: hold-run DIR")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o700))
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	ts.Check(err)
	ts.Check(syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	cmd := exec.Command("sleep", "600")
	ts.Check(cmd.Start())
	h := &runHolder{cmd: cmd, lock: lock, done: make(chan error, 1)}
	go func() { h.done <- cmd.Wait() }()
	holdersMu.Lock()
	holders[ts] = h
	holdersMu.Unlock()
	ts.Setenv("RUN_PID", strconv.Itoa(cmd.Process.Pid))
	ts.Defer(func() {
		_ = cmd.Process.Kill()
		lock.Close()
		holdersMu.Lock()
		delete(holders, ts)
		holdersMu.Unlock()
	})
}

// waitStopped is the script command "wait-stopped": it waits for the
// process of hold-run to end, and fails unless SIGTERM ended it.
func waitStopped(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: wait-stopped")
	}
	holdersMu.Lock()
	h := holders[ts]
	holdersMu.Unlock()
	if h == nil {
		ts.Fatalf("wait-stopped: no hold-run before it")
	}
	select {
	case err := <-h.done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("the run's process ended with %v, not a signal", err)
		}
		ws, ok := ee.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			ts.Fatalf("the run's process ended with %v, not SIGTERM", err)
		}
	case <-testwait.After():
		ts.Fatalf("the run's process did not end within %s of cairn stop", testwait.Patience)
	}
}
