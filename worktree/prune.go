package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/realpath"
)

// Prune removes home/worktrees/NAME, what a crashed run left of its
// throwaway worktrees and the issue-branch worktrees its run kept, and has
// the repository whose git common dir is repo forget them. A worktree on a
// branch with uncommitted work is left in place, with an error that says
// so: its work is the user's. A repository that is gone has nothing to
// forget. Nothing is removed outside home/worktrees, whose real path is
// checked: a symbolic link there (NAME, or an entry in it) is removed
// itself, and no git runs in what it points to. git runs through g.
func Prune(ctx context.Context, g *git.Git, home, name, repo string) error {
	if !validRunName(name) {
		return nil
	}
	root := filepath.Join(home, "worktrees")
	wtDir := filepath.Join(root, name)
	if _, err := os.Lstat(wtDir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	fail := func(err error) error {
		return fmt.Errorf("remove the worktrees of run %q: %w", name, err)
	}
	if err := realpath.Folder(root); err != nil {
		return fail(err)
	}
	owned, err := realpath.Folders([]string{root})
	if err != nil {
		return fail(err)
	}
	info, err := realpath.Entry(owned, wtDir)
	if err != nil {
		return fail(err)
	}
	var kept []error
	if info.IsDir() {
		if kept, err = removeWorktreeEntries(ctx, g, wtDir, name); err != nil {
			return fail(err)
		}
	}
	if len(kept) == 0 {
		if err := os.Remove(wtDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fail(err)
		}
	}
	if repo == "" {
		return errors.Join(kept...)
	}
	if info, err := os.Stat(repo); err != nil || !info.IsDir() {
		return nil
	}
	unlock, err := lockWorktrees(worktreeLockPath(home, repo))
	if err != nil {
		return fmt.Errorf("prune the worktrees of run %q: %w", name, err)
	}
	defer unlock()
	if _, err := g.Run(ctx, repo, "--git-dir="+repo, "worktree", "prune"); err != nil {
		return fmt.Errorf("prune the worktrees of run %q: %w", name, err)
	}
	return errors.Join(kept...)
}

// removeWorktreeEntries removes the entries of wtDir, a real folder in
// home/worktrees, but for an issue branch's worktree holding uncommitted
// work: kept says where each such is. An entry that is no folder (a
// symbolic link) is removed itself; git looks only into real folders, as a
// link's target may be any repository.
func removeWorktreeEntries(ctx context.Context, g *git.Git, wtDir, name string) (kept []error, err error) {
	owned, err := realpath.Folders([]string{wtDir})
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(wtDir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		path := filepath.Join(wtDir, e.Name())
		info, err := realpath.Entry(owned, path)
		if err != nil {
			return kept, err
		}
		if !info.IsDir() {
			if err := os.Remove(path); err != nil {
				return kept, err
			}
			continue
		}
		// An issue branch's worktree the run kept may hold work not yet
		// committed: that is the user's, and stays.
		if branch, dirty := uncommittedBranch(ctx, g, path); dirty {
			kept = append(kept, fmt.Errorf("left worktree %s of run %q in place: it holds uncommitted work on branch %q", path, name, branch))
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			return kept, err
		}
	}
	return kept, nil
}

// uncommittedBranch reports whether the worktree at path has a branch
// checked out (which it names) and work not committed on it, or cannot
// tell. A folder with no .git file of its own, as a linked worktree has,
// is none: git in it would answer for whatever repository holds it.
func uncommittedBranch(ctx context.Context, g *git.Git, path string) (branch string, dirty bool) {
	if info, err := os.Lstat(filepath.Join(path, ".git")); err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	out, err := g.Run(ctx, path, "symbolic-ref", "-q", "--short", "HEAD")
	if err != nil {
		return "", false
	}
	branch = strings.TrimSpace(out)
	status, err := g.Run(ctx, path, "status", "--porcelain")
	return branch, err != nil || strings.TrimSpace(status) != ""
}
