package git

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Repo is the git repository cairn works on, as Discover found it.
type Repo struct {
	// Root is the top of the working tree.
	Root string
	// CommonDir is the realpath of the git common dir: the same for every
	// worktree of one repository, so it names the repository in records and
	// locks.
	CommonDir string
	// Git runs git for this repository, its worktrees and submodules:
	// the one Discover was given.
	Git *Git
	// gitDir is the real path of the worktree's git dir when Find read
	// the repository from its files: BaseBranch then reads them too
	// (unless core.ignorecase is set).
	gitDir string
}

// Discover finds the git repository holding dir, running git through g.
// It fails when dir is not inside a git repository, or is inside a bare
// one, with a message that says what to do.
func Discover(ctx context.Context, g *Git, dir string) (*Repo, error) {
	out, err := g.Run(ctx, dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir")
	if err != nil {
		var gerr *Error
		if errors.As(err, &gerr) {
			switch {
			case strings.Contains(gerr.stderr, "not a git repository"):
				return nil, notInside(dir)
			case strings.Contains(gerr.stderr, "must be run in a work tree"):
				return nil, fmt.Errorf("%s is inside a bare git repository; cairn needs a working tree", dir)
			}
		}
		return nil, fmt.Errorf("open the git repository at %s: %w", dir, err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 || lines[0] == "" || lines[1] == "" {
		return nil, fmt.Errorf("open the git repository at %s: unexpected output of git rev-parse: %q", dir, out)
	}
	common, err := filepath.EvalSymlinks(lines[1])
	if err != nil {
		return nil, fmt.Errorf("open the git repository at %s: %w", dir, err)
	}
	return &Repo{Root: lines[0], CommonDir: common, Git: g}, nil
}

// Run runs git in the repository's working tree and returns its stdout.
func (r *Repo) Run(ctx context.Context, args ...string) (string, error) {
	return r.Git.Run(ctx, r.Root, args...)
}

// Base resolves the base branch worktrees start from, and the commit it
// names: want, the config's base_branch (a local branch, else origin's
// branch of that name), else, when want is "", origin's default branch
// (refs/remotes/origin/HEAD, at origin's commit), else HEAD's branch
// ("HEAD" when detached). It runs one git process, two when it falls back
// to HEAD. A repository with no commits has no base, and the error says so.
func (r *Repo) Base(ctx context.Context, want string) (branch, sha string, err error) {
	args := []string{"for-each-ref", "--format=%(refname)%00%(objectname)%00%(symref)"}
	if want != "" {
		args = append(args, "refs/heads/"+want, "refs/remotes/origin/"+want)
	} else {
		args = append(args, "refs/remotes/origin/HEAD")
	}
	out, err := r.Run(ctx, args...)
	if err != nil {
		return "", "", fmt.Errorf("resolve the base branch: %w", err)
	}
	refs := map[string][2]string{} // refname → objectname, symref
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "\x00")
		if len(f) == 3 {
			refs[f[0]] = [2]string{f[1], f[2]}
		}
	}
	if want != "" {
		for _, ref := range []string{"refs/heads/" + want, "refs/remotes/origin/" + want} {
			if v, ok := refs[ref]; ok {
				return want, v[0], nil
			}
		}
		if r.empty(ctx) {
			return "", "", fmt.Errorf("the repository at %s has no commits yet; commit something to branch %q first", r.Root, want)
		}
		return "", "", fmt.Errorf("base branch %q (the config's base_branch) is neither a local branch nor %q", want, "origin/"+want)
	}
	if v, ok := refs["refs/remotes/origin/HEAD"]; ok && strings.HasPrefix(v[1], "refs/remotes/origin/") {
		return strings.TrimPrefix(v[1], "refs/remotes/origin/"), v[0], nil
	}
	out, err = r.Run(ctx, "rev-parse", "HEAD", "--symbolic-full-name", "HEAD")
	if err != nil {
		if r.empty(ctx) {
			return "", "", fmt.Errorf("the repository at %s has no commits yet; cairn starts worktrees from a commit, so commit something first", r.Root)
		}
		return "", "", fmt.Errorf("resolve HEAD as the base branch: %w", err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 {
		return "", "", fmt.Errorf("resolve HEAD as the base branch: unexpected output of git rev-parse: %q", out)
	}
	return strings.TrimPrefix(lines[1], "refs/heads/"), lines[0], nil
}

// empty reports whether the repository has no commits at all: HEAD names
// none and no branch exists. It only runs on the way to an error.
func (r *Repo) empty(ctx context.Context) bool {
	if _, err := r.Run(ctx, "rev-parse", "--verify", "-q", "HEAD"); err == nil {
		return false
	}
	out, err := r.Run(ctx, "for-each-ref", "--count=1", "refs/heads", "refs/remotes")
	return err == nil && strings.TrimSpace(out) == ""
}
