package git

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Repo is a git repository found by Discover.
type Repo struct {
	// Root is the top of the working tree.
	Root string
	// CommonDir is the realpath of the git common dir: the same for every
	// worktree of one repository, so it names the repository in records and
	// locks.
	CommonDir string
}

// Discover finds the git repository holding dir, running git in env. It
// fails when dir is not inside a git repository, or is inside a bare one,
// with a message that says what to do.
func Discover(ctx context.Context, dir string, env []string) (Repo, error) {
	out, err := Run(ctx, dir, env, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir")
	if err != nil {
		var gerr *Error
		if errors.As(err, &gerr) {
			switch {
			case strings.Contains(gerr.stderr, "not a git repository"):
				return Repo{}, fmt.Errorf("%s is not inside a git repository; run cairn in one, or give -C DIR", dir)
			case strings.Contains(gerr.stderr, "must be run in a work tree"):
				return Repo{}, fmt.Errorf("%s is inside a bare git repository; cairn needs a working tree", dir)
			}
		}
		return Repo{}, fmt.Errorf("open the git repository at %s: %w", dir, err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 || lines[0] == "" || lines[1] == "" {
		return Repo{}, fmt.Errorf("open the git repository at %s: unexpected output of git rev-parse: %q", dir, out)
	}
	common, err := filepath.EvalSymlinks(lines[1])
	if err != nil {
		return Repo{}, fmt.Errorf("open the git repository at %s: %w", dir, err)
	}
	return Repo{Root: lines[0], CommonDir: common}, nil
}

// Head is the commit checked out at dir, "" when there is none (a
// repository with no commits yet).
func Head(ctx context.Context, dir string, env []string) string {
	out, err := Run(ctx, dir, env, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}
