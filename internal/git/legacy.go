package git

import (
	"context"
	"io"
	"os/exec"
)

// legacy is a Git on env that finds git as exec does, on the process's
// PATH, as these functions always have.
func legacy(env []string) *Git {
	g := New(env)
	g.bin.once.Do(func() { g.bin.path, g.bin.err = exec.LookPath("git") })
	return g
}

// Run runs git -C dir with args in the environment env.
func Run(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	return legacy(env).Run(ctx, dir, args...)
}

// RunInput is Run with stdin as git's standard input.
func RunInput(ctx context.Context, dir string, env []string, stdin string, args ...string) (string, error) {
	return legacy(env).RunInput(ctx, dir, stdin, args...)
}

// Stream is Run writing git's stdout to w as it comes.
func Stream(ctx context.Context, dir string, env []string, w io.Writer, args ...string) error {
	return legacy(env).Stream(ctx, dir, w, args...)
}

// Head is the commit checked out at dir, "" when there is none.
func Head(ctx context.Context, dir string, env []string) string {
	return legacy(env).Head(ctx, dir)
}
