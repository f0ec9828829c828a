//go:build unix

package proc

import (
	"context"
	"errors"
	"os/exec"
	goruntime "runtime"
	"syscall"
	"time"
)

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
