// Package proc starts and stops the processes cairn runs, each in its own
// process group (and, where the machine offers one, its own cgroup), so
// that stopping one stops everything it started; it records the groups a
// run has running, ends what a crashed run left, and holds file locks.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// ErrNoProcess is the error of a signal to a process that is gone.
var ErrNoProcess = errors.New("no such process")

// DefaultGrace is how long a stopped process group has between SIGTERM and
// SIGKILL.
const DefaultGrace = 5 * time.Second

// Proc is one process a step starts — a bash script, an agent CLI — in its
// own process group, so that stopping it stops everything it started.
type Proc struct {
	Argv []string
	Dir  string
	// Env is the environment the process starts with, whole: nothing of
	// cairn's own is inherited but the step token.
	Env    []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Timeout ends the process group when it runs longer; zero means none.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL; zero means
	// DefaultGrace.
	Grace time.Duration
	// Groups, when set, records the process's group while it runs, for
	// a later cairn to end when this one crashes.
	Groups *Groups
}

// Result is how a process ended. ExitCode is -1 when it was killed by a
// signal or never started.
type Result struct {
	ExitCode int
	// TimedOut is set when Timeout ended it; Stopped when the context did.
	TimedOut bool
	Stopped  bool
}

// Cause words how a process ended, for a step's record: "exit status 3",
// "timed out after 45m0s", "stopped".
func (r Result) Cause(timeout time.Duration) string {
	switch {
	case r.TimedOut:
		return fmt.Sprintf("timed out after %s", timeout)
	case r.Stopped:
		return "stopped"
	case r.ExitCode < 0:
		return "killed by a signal"
	}
	return fmt.Sprintf("exit status %d", r.ExitCode)
}

// killKey keys the kill channel of a context (WithKill).
type killKey struct{}

// WithKill returns a copy of ctx that carries kill: once ctx is done, the
// processes it stops get their grace period (SIGTERM, then SIGKILL) only
// until kill closes, when they get SIGKILL at once. A second interrupt
// closes it.
func WithKill(ctx context.Context, kill <-chan struct{}) context.Context {
	return context.WithValue(ctx, killKey{}, kill)
}

// killOf is ctx's kill channel (WithKill); nil, which never closes, when it
// has none.
func killOf(ctx context.Context) <-chan struct{} {
	kill, _ := ctx.Value(killKey{}).(<-chan struct{})
	return kill
}

// exitCode is the exit status in err from exec.Cmd.Wait: 0 for nil, -1 for a
// signal or an error that is not an exit.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// It exited 0; what it left held its output open.
		return 0
	}
	return -1
}
