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
	goruntime "runtime"
	"syscall"
	"time"
)

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

// pipeWait bounds how long a process's output is read after it and what
// it left have ended: a process that escaped its group and its token may
// hold the pipe open, and must not hold the step.
const pipeWait = time.Second

// Run starts the process and waits for it. When ctx is done or the timeout
// passes, the whole process group gets SIGTERM, then SIGKILL after the
// grace period (at once when ctx's kill channel closes, WithKill). When the
// process ends, what it left running ends too: its group, the processes
// that left the group but carry its step token, and, where Groups gives it
// a cgroup of its own (Groups.Method), every process in that cgroup, those
// that dropped the token included. The group is recorded in Groups while it
// runs. The error is only for a process that could not start.
func (p *Proc) Run(ctx context.Context) (Result, error) {
	if len(p.Argv) == 0 {
		return Result{ExitCode: -1}, errors.New("no command to run")
	}
	token := newToken()
	g := p.Groups.add(token)
	defer p.Groups.remove(g)
	cmd, l, cgroup, err := p.start(token, p.Groups.cgroup(g))
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	pgid := cmd.Process.Pid
	p.Groups.started(g, pgid, cgroup)

	var timeout <-chan time.Time
	if p.Timeout > 0 {
		t := time.NewTimer(p.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var res Result
	select {
	case <-l.exited:
	case <-ctx.Done():
		res.Stopped = true
		stopGroup(pgid, token, cgroup, p.grace(), killOf(ctx), l.exited)
	case <-timeout:
		res.TimedOut = true
		stopGroup(pgid, token, cgroup, p.grace(), killOf(ctx), l.exited)
	}
	killLeft(pgid, token, cgroup)
	res.ExitCode = exitCode(l.reap())
	return res, nil
}

// start starts the process, its step token token in its environment, in a
// process group of its own and, when cgroup is not "", in that cgroup,
// made here. When the process could not start in the cgroup it starts in
// none, and the cgroup it runs in is "".
func (p *Proc) start(token, cgroup string) (*exec.Cmd, *leader, string, error) {
	if cgroup != "" {
		if f, err := newCgroup(cgroup); err == nil {
			cmd := p.command(token)
			intoCgroup(cmd.SysProcAttr, f)
			l, err := startLeader(cmd)
			f.Close()
			if err == nil {
				return cmd, l, cgroup, nil
			}
			// The kernel may refuse the cgroup (a cgroup that takes
			// no process, an LSM) as it refuses a missing program:
			// try once more in none.
			_ = removeCgroup(cgroup)
		}
	}
	cmd := p.command(token)
	l, err := startLeader(cmd)
	return cmd, l, "", err
}

// command is the process to start, its step token token in its
// environment, in a process group of its own.
func (p *Proc) command(token string) *exec.Cmd {
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Dir, cmd.Env = p.Dir, withToken(p.Env, token)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Stdin, p.Stdout, p.Stderr
	cmd.WaitDelay = pipeWait
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
	return cmd
}

func (p *Proc) grace() time.Duration {
	if p.Grace > 0 {
		return p.Grace
	}
	return DefaultGrace
}

// leader is the first process of a started group, watched by a goroutine
// locked to the thread that started it: the kernel's death signal
// (setDeathSignal) follows that thread, which must live while the process
// does.
type leader struct {
	// exited is closed once the process has exited; reap reaps it.
	exited chan struct{}
	done   chan struct{}
	err    chan error
}

// startLeader starts cmd and watches it.
func startLeader(cmd *exec.Cmd) (*leader, error) {
	l := &leader{exited: make(chan struct{}), done: make(chan struct{}), err: make(chan error, 1)}
	started := make(chan error, 1)
	go func() {
		goruntime.LockOSThread()
		if err := cmd.Start(); err != nil {
			goruntime.UnlockOSThread()
			started <- err
			return
		}
		started <- nil
		// Where the platform can, wait for the exit without reaping:
		// the group's id stays the group's until what the process left
		// is ended. Elsewhere Wait reaps it, output read.
		var err error
		reaped := !awaitExit(cmd.Process.Pid)
		if reaped {
			err = cmd.Wait()
		}
		goruntime.UnlockOSThread()
		close(l.exited)
		<-l.done
		if !reaped {
			err = cmd.Wait()
		}
		l.err <- err
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return l, nil
}

// reap reaps the exited process, once its output is read, and returns
// exec's error.
func (l *leader) reap() error {
	close(l.done)
	return <-l.err
}

// stopGroup sends SIGTERM to the process group pgid, the processes
// carrying token and those in the cgroup cgroup (none when it is ""), and
// SIGKILL when the group's leader has not exited after grace, or once kill
// closes; it returns once the leader has exited.
func stopGroup(pgid int, token, cgroup string, grace time.Duration, kill <-chan struct{}, exited <-chan struct{}) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	signalCarriers(token, syscall.SIGTERM)
	if cgroup != "" {
		signalCgroup(cgroup, syscall.SIGTERM)
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
		return
	case <-t.C:
	case <-kill:
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	signalCarriers(token, syscall.SIGKILL)
	if cgroup != "" {
		signalCgroup(cgroup, syscall.SIGKILL)
	}
	<-exited
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
