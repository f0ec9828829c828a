package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// DefaultGrace is how long a stopped process group has between SIGTERM and
// SIGKILL.
const DefaultGrace = 5 * time.Second

// Proc is one process a step starts — a bash script, an agent CLI — in its
// own process group, so that stopping it stops everything it started.
type Proc struct {
	Argv   []string
	Dir    string
	Env    []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Timeout ends the process group when it runs longer; zero means none.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL; zero means
	// DefaultGrace.
	Grace time.Duration
}

// ProcResult is how a process ended. ExitCode is -1 when it was killed by a
// signal or never started.
type ProcResult struct {
	ExitCode int
	// TimedOut is set when Timeout ended it; Stopped when the context did.
	TimedOut bool
	Stopped  bool
}

// Cause words how a process ended, for a step's record: "exit status 3",
// "timed out after 45m0s", "stopped".
func (r ProcResult) Cause(timeout time.Duration) string {
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

// Run starts the process and waits for it. When ctx is done or the timeout
// passes, the whole process group gets SIGTERM, then SIGKILL after the
// grace period. The error is only for a process that could not start.
func (p *Proc) Run(ctx context.Context) (ProcResult, error) {
	if len(p.Argv) == 0 {
		return ProcResult{ExitCode: -1}, errors.New("no command to run")
	}
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Dir, cmd.Env = p.Dir, p.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Stdin, p.Stdout, p.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return ProcResult{ExitCode: -1}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var timeout <-chan time.Time
	if p.Timeout > 0 {
		t := time.NewTimer(p.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var res ProcResult
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		res.Stopped = true
		err = stopGroup(cmd.Process.Pid, p.grace(), done)
	case <-timeout:
		res.TimedOut = true
		err = stopGroup(cmd.Process.Pid, p.grace(), done)
	}
	res.ExitCode = exitCode(err)
	return res, nil
}

func (p *Proc) grace() time.Duration {
	if p.Grace > 0 {
		return p.Grace
	}
	return DefaultGrace
}

// stopGroup sends SIGTERM to the process group pgid, and SIGKILL when it has
// not ended after grace; it returns the process's wait error.
func stopGroup(pgid int, grace time.Duration, done <-chan error) error {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case err := <-done:
		// The leader is gone; make sure nothing it started lingers.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		return err
	case <-t.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		return <-done
	}
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
	return -1
}
