package worktree

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testrepo"
)

// Pruning a run removes what is left of its worktrees and has git forget
// them; a repository that is gone is fine.
func TestPrune(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	repo, common := testrepo.New(t)
	old := "hunt_2026-01-01T000000Z"
	wt := filepath.Join(home, "worktrees", old, "a")
	if err := os.MkdirAll(filepath.Dir(wt), 0o700); err != nil {
		t.Fatal(err)
	}
	testrepo.Git(t, repo, "worktree", "add", "-q", "--detach", wt)
	gone := "hunt_2025-12-01T000000Z"
	if err := os.MkdirAll(filepath.Join(home, "worktrees", gone, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Prune(context.Background(), testGit(), home, old, common); err != nil {
		t.Fatal(err)
	}
	if err := Prune(context.Background(), testGit(), home, gone, "/gone/.git"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{old, gone} {
		if _, err := os.Stat(filepath.Join(home, "worktrees", name)); !os.IsNotExist(err) {
			t.Errorf("the worktrees of %s are still there: %v", name, err)
		}
	}
	if list := wtList(t, repo); len(list) != 1 {
		t.Errorf("git still lists the pruned run's worktree: %v", list)
	}
	// A run with no worktrees left, or a name that is no run's, is no
	// error.
	for _, name := range []string{old, "../" + old, ""} {
		if err := Prune(context.Background(), testGit(), home, name, common); err != nil {
			t.Errorf("Prune(%q) = %v", name, err)
		}
	}
}

// A kept issue-branch worktree with uncommitted work survives the pruning
// of its run, and the error says where it is; a clean one goes (its branch
// stays).
func TestPruneKeepsUncommittedBranchWork(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	repo, common := testrepo.New(t)
	old := "fix_2026-01-01T000000Z"
	dirty := filepath.Join(home, "worktrees", old, "fix")
	clean := filepath.Join(home, "worktrees", old, "docs")
	if err := os.MkdirAll(filepath.Dir(dirty), 0o700); err != nil {
		t.Fatal(err)
	}
	testrepo.Git(t, repo, "worktree", "add", "-q", "-b", "cairn/42-fix", dirty)
	testrepo.Git(t, repo, "worktree", "add", "-q", "-b", "cairn/43-docs", clean)
	testrepo.Write(t, filepath.Join(dirty, "half-done.txt"), "wip\n")
	err := Prune(context.Background(), testGit(), home, old, common)
	if err == nil || !strings.Contains(err.Error(), "uncommitted work on branch \"cairn/42-fix\"") || !strings.Contains(err.Error(), dirty) {
		t.Errorf("Prune error = %v; want one naming the worktree kept", err)
	}
	if _, err := os.Stat(filepath.Join(dirty, "half-done.txt")); err != nil {
		t.Errorf("the uncommitted work is gone: %v", err)
	}
	if _, err := os.Stat(clean); !os.IsNotExist(err) {
		t.Errorf("the clean worktree is still there: %v", err)
	}
	testrepo.Git(t, repo, "rev-parse", "--verify", "refs/heads/cairn/43-docs")
}
