// Package git is the one way cairn runs git: through a Git, which carries
// the whole environment git runs in; every call takes its caller's context
// and the directory, never asks for credentials on a terminal, and fails
// with an *Error naming the command, its exit code and the first line git
// wrote to stderr that says what went wrong.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Error is a git command that failed: it exited non-zero, did not start, or
// was stopped by its context.
type Error struct {
	// Args are git's arguments, without the -C DIR Run adds.
	Args []string
	// ExitCode is git's exit status, -1 when it did not exit on its own.
	ExitCode int
	// Stderr is the first line git wrote to stderr that says something,
	// trimmed: not blank, and not the "To URL" a refused push starts with
	// (its next line names the ref and why).
	Stderr string
	// Err is how the command ended: an *exec.ExitError, a start failure, or
	// the context's error when it was stopped.
	Err error
	// stderr is all git wrote to stderr, for Discover to recognise.
	stderr string
}

// Error is one line: the command and what git said, else how it ended. An
// argument may span lines (a commit message); the error does not.
func (e *Error) Error() string {
	msg := e.Stderr
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(strings.Fields(strings.Join(e.Args, " ")), " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the exit status of the git command err reports: 0 for nil,
// -1 when err is not a git command that exited on its own.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var gerr *Error
	if errors.As(err, &gerr) {
		return gerr.ExitCode
	}
	return -1
}

// Git is how cairn runs git: the environment every git process gets,
// whole, and the git found on that environment's PATH. One is made from
// the environment cmd/cairn's main reads once, where a repository is opened
// (load, the commands), and handed down with it (Repo.Git); nothing below
// reads the process's environment. Each call takes its caller's context,
// which ends the git process it started, and the directory git runs in
// (git -C DIR).
type Git struct {
	env []string
	bin *gitBinary
}

// gitBinary is where git is, found once for a Git and those With made from it
// that keep its PATH.
type gitBinary struct {
	once sync.Once
	path string
	err  error
}

// New is the Git that runs git in env, the whole of it: nothing of cairn's
// own environment is added but GIT_TERMINAL_PROMPT=0.
func New(env []string) *Git {
	return &Git{env: slices.Clip(slices.Clone(env)), bin: &gitBinary{}}
}

// With is g with env's NAME=VALUE set over its environment, for one kind of
// call (a temporary index, literal pathspecs, a committer).
func (g *Git) With(env ...string) *Git {
	w := &Git{env: slices.Clip(append(slices.Clone(g.env), env...)), bin: g.bin}
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			w.bin = &gitBinary{}
		}
	}
	return w
}

// Run runs git -C dir with args and returns its stdout.
func (g *Git) Run(ctx context.Context, dir string, args ...string) (string, error) {
	var stdout bytes.Buffer
	err := g.run(ctx, dir, nil, &stdout, args)
	return stdout.String(), err
}

// RunInput is Run with stdin as git's standard input.
func (g *Git) RunInput(ctx context.Context, dir, stdin string, args ...string) (string, error) {
	var stdout bytes.Buffer
	err := g.run(ctx, dir, strings.NewReader(stdin), &stdout, args)
	return stdout.String(), err
}

// Stream is Run writing git's stdout to w as it comes, for output too large
// to hold.
func (g *Git) Stream(ctx context.Context, dir string, w io.Writer, args ...string) error {
	return g.run(ctx, dir, nil, w, args)
}

// Head is the commit checked out at dir, "" when there is none (a
// repository with no commits yet).
func (g *Git) Head(ctx context.Context, dir string) string {
	out, err := g.Run(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// waitDelay is how long a child of git (a remote helper, ssh, a hook) may
// keep git's output open once git has ended, by itself or by its context,
// before the call returns without waiting for it.
const waitDelay = 2 * time.Second

func (g *Git) run(ctx context.Context, dir string, stdin io.Reader, stdout io.Writer, args []string) error {
	gerr := &Error{Args: args, ExitCode: -1}
	path, err := g.path()
	if err != nil {
		gerr.Err = err
		return gerr
	}
	cmd := exec.CommandContext(ctx, path, append([]string{"-C", dir}, args...)...)
	// Nobody is there to answer a prompt for credentials: a remote that
	// wants them fails instead of hanging.
	cmd.Env = append(slices.Clone(g.env), "GIT_TERMINAL_PROMPT=0")
	cmd.WaitDelay = waitDelay
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, &stderr
	err = cmd.Run()
	if err == nil || errors.Is(err, exec.ErrWaitDelay) && ctx.Err() == nil {
		// ErrWaitDelay: git exited 0, and what it started kept its
		// output open past waitDelay.
		return nil
	}
	gerr.Err, gerr.stderr = err, stderr.String()
	if ctx.Err() != nil {
		gerr.Err = ctx.Err()
		return gerr
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		gerr.ExitCode = exit.ExitCode()
	}
	gerr.Stderr = sayingLine(gerr.stderr)
	return gerr
}

// pushTo is the line a push's report of its refs starts with.
var pushTo = regexp.MustCompile(`^To \S+$`)

// sayingLine is Error.Stderr of stderr.
func sayingLine(stderr string) string {
	for line := range strings.Lines(stderr) {
		if t := strings.TrimSpace(line); t != "" && !pushTo.MatchString(t) {
			return t
		}
	}
	return ""
}

// path is the git on the PATH of g's environment, looked up once. A folder
// of PATH that is not absolute is passed over, as exec refuses a program
// found relative to the working directory.
func (g *Git) path() (string, error) {
	b := g.bin
	b.once.Do(func() {
		path, _ := lookupEnv(g.env, "PATH")
		for _, dir := range filepath.SplitList(path) {
			if !filepath.IsAbs(dir) {
				continue
			}
			p := filepath.Join(dir, "git")
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				b.path = p
				return
			}
		}
		b.err = errors.New("git is not on the PATH cairn was given; install git")
	})
	return b.path, b.err
}
