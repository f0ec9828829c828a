package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
)

// Salvage saves and removes what a crashed run, named run, left of its
// throwaway worktrees under home/worktrees/RUN: each one's changes become
// its patch in patchDir, the run folder's (as its run would have saved
// them), so that a resumed run starts it again from its base with them.
// recorded are the run's worktrees, as its record names them (for their
// kinds and bases) and as its plan does: only those are cairn's. A
// symbolic link where one of them would be, as cairn makes none, is
// removed itself: neither git nor a removal goes through it. Anything else
// there cairn did not make (a step wrote it beside its worktree, in ../):
// it stays, with the folder, and left names it by path.
func Salvage(ctx context.Context, home string, repo *git.Repo, run, patchDir string, recorded []Worktree) (left []string, err error) {
	g := repo.Git
	runDir := filepath.Join(home, "worktrees", run)
	info, err := os.Lstat(runDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
	}
	if !info.IsDir() {
		if err := os.Remove(runDir); err != nil {
			return nil, fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
		}
		return nil, nil
	}
	entries, err := os.ReadDir(runDir)
	if err != nil {
		return nil, fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
	}
	bases, kinds, own := map[string]string{}, map[string]string{}, map[string]bool{}
	for _, w := range recorded {
		own[w.Name] = true
		if w.Base != "" {
			bases[w.Name] = w.Base
		}
		if w.Kind != "" {
			kinds[w.Name] = w.Kind
		}
	}
	unlock, err := lockWorktrees(worktreeLockPath(home, repo.CommonDir))
	if err != nil {
		return nil, fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
	}
	defer unlock()
	kept := false
	for _, e := range entries {
		wt := Worktree{Name: e.Name(), Kind: ir.Throwaway, Path: filepath.Join(runDir, e.Name()), Base: bases[e.Name()]}
		if !own[wt.Name] {
			left = append(left, wt.Path)
			continue
		}
		if !e.IsDir() {
			if err := os.Remove(wt.Path); err != nil {
				return left, fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
			}
			continue
		}
		if isBranchWorktree(ctx, g, wt.Path, kinds[wt.Name]) {
			// An issue branch's worktree, kept with whatever it holds:
			// the resumed run carries on in it.
			kept = true
			continue
		}
		if gitDir, err := repoGitDir(wt.Path); err == nil && !exists(filepath.Join(gitDir, "index")) {
			// Its files were still being checked out (make): no step
			// ever ran in it.
			if err := removeWorktree(ctx, g, repo.Root, wt.Path); err != nil {
				return left, fmt.Errorf("remove worktree %q, left by the crashed run: %w", wt.Name, err)
			}
			continue
		}
		if wt.Base == "" {
			wt.Base = g.Head(ctx, wt.Path)
		}
		// A worktree whose saved changes were being applied when the run
		// crashed is left out by savePatch; any other one had them all
		// applied, and holds less only by its steps' doing.
		if err := savePatch(ctx, g, wt, patchDir, true); err != nil {
			return left, fmt.Errorf("save the changes of worktree %q, left by the crashed run: %w; it is left at %s", wt.Name, err, wt.Path)
		}
		if err := removeWorktree(ctx, g, repo.Root, wt.Path); err != nil {
			return left, fmt.Errorf("remove worktree %q, left by the crashed run: %w", wt.Name, err)
		}
	}
	if _, err := g.Run(ctx, repo.Root, "worktree", "prune"); err != nil {
		return left, fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
	}
	if kept || len(left) > 0 {
		return left, nil
	}
	return nil, os.Remove(runDir)
}

// isBranchWorktree reports whether the worktree at path is an issue
// branch's: its recorded kind says so, or, unrecorded, it has a branch
// checked out (a throwaway is detached).
func isBranchWorktree(ctx context.Context, g *git.Git, path, kind string) bool {
	if kind != "" {
		return kind == ir.IssueBranch
	}
	_, err := g.Run(ctx, path, "symbolic-ref", "-q", "HEAD")
	return err == nil
}

// Reopen brings a resumed run's throwaway worktrees back to where the run
// left them: each starts again from the commit it started from the first
// time, as recorded has it, and the patches of what was done in it, saved
// in patchDir, are applied. Once they all are, the worktree's applying
// marker (BeginReopen) goes; until a step runs in it (Worked), Close keeps
// its saved changes rather than save less.
func (w *Worktrees) Reopen(ctx context.Context, recorded []Worktree, patchDir string) error {
	bases := map[string]string{}
	for _, r := range recorded {
		bases[r.Name] = r.Base
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.list {
		wt := &w.list[i]
		if wt.Kind != ir.Throwaway {
			continue
		}
		if base := bases[wt.Name]; base != "" && base != wt.Base {
			if _, err := w.git.Run(ctx, wt.Path, "checkout", "--quiet", "--detach", base); err != nil {
				return fmt.Errorf("worktree %q: start again from %.12s: %w", wt.Name, base, err)
			}
			wt.Base = base
		}
		if err := applyPatches(ctx, w.git, *wt, patchDir); err != nil {
			return err
		}
		// A marker left would keep what the steps do from being saved.
		if err := os.Remove(filepath.Join(patchDir, wt.Name+applyingSuffix)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("worktree %q: its saved changes are applied, but: %w", wt.Name, err)
		}
		w.reopened[wt.Name] = true
	}
	return nil
}

// Worked records that a step runs in the worktree name: what it holds from
// then on is the step's work, which Close saves even when it is less than
// the changes the worktree was reopened with.
func (w *Worktrees) Worked(name string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.reopened, name)
}

// exists reports whether there is a file (of any kind) at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
