// Package git is the one way cairn runs git: every call takes a context, the
// directory, and the whole environment from its caller, never asks for
// credentials on a terminal, and fails with an *Error naming the command,
// its exit code and the first line git wrote to stderr.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/cairn-dev/cairn/internal/text"
)

// Error is a git command that failed: it exited non-zero, did not start, or
// was stopped by its context.
type Error struct {
	// Args are git's arguments, without the -C DIR Run adds.
	Args []string
	// ExitCode is git's exit status, -1 when it did not exit on its own.
	ExitCode int
	// Stderr is the first non-blank line git wrote to stderr, trimmed.
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

// Run runs git -C dir with args in the environment env (the whole of it:
// the caller passes os.Environ() to inherit its own) and returns its stdout.
func Run(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	var stdout bytes.Buffer
	err := run(ctx, dir, env, nil, &stdout, args)
	return stdout.String(), err
}

// RunInput is Run with stdin as git's standard input.
func RunInput(ctx context.Context, dir string, env []string, stdin string, args ...string) (string, error) {
	var stdout bytes.Buffer
	err := run(ctx, dir, env, strings.NewReader(stdin), &stdout, args)
	return stdout.String(), err
}

// Stream is Run writing git's stdout to w as it comes, for output too large
// to hold.
func Stream(ctx context.Context, dir string, env []string, w io.Writer, args ...string) error {
	return run(ctx, dir, env, nil, w, args)
}

func run(ctx context.Context, dir string, env []string, stdin io.Reader, stdout io.Writer, args []string) error {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	// Nobody is there to answer a prompt for credentials: a remote that
	// wants them fails instead of hanging. The slice is fresh so the
	// caller's keeps its own backing array.
	cmd.Env = append(append(make([]string, 0, len(env)+1), env...), "GIT_TERMINAL_PROMPT=0")
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return nil
	}
	gerr := &Error{Args: args, ExitCode: -1, Err: err, stderr: stderr.String()}
	if ctx.Err() != nil {
		gerr.Err = ctx.Err()
		return gerr
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		gerr.ExitCode = exit.ExitCode()
	}
	gerr.Stderr = text.FirstLine(gerr.stderr)
	return gerr
}
