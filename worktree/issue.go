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
	"github.com/cairn-dev/cairn/ir"
)

// addIssueBranch adds the issue-branch worktree wt at its path on its
// branch (docs/design.md §7.4; checkBranchName has passed it): continuing the local branch of that name, else origin's,
// else starting it at base. A branch checked out in a worktree a previous
// run left, clean and with that run over, is moved here; checked out
// anywhere else, it is refused with the place named. The worktree this run
// already has there (a resumed run) is taken as it is. The caller holds
// the worktree lock.
func (w *Worktrees) addIssueBranch(ctx context.Context, wt Worktree) (Worktree, error) {
	branch, base := wt.Branch, wt.Base
	if _, err := w.git.Run(ctx, w.repoRoot, "worktree", "prune"); err != nil {
		return Worktree{}, err
	}
	at, err := checkedOutAt(ctx, w.git, w.repoRoot, branch)
	if err != nil {
		return Worktree{}, err
	}
	if at != "" && samePath(at, wt.Path) {
		return wt, nil
	}
	if at != "" {
		if err := w.freeBranch(ctx, branch, at); err != nil {
			return Worktree{}, err
		}
	}
	var args []string
	switch {
	case refExists(ctx, w.git, w.repoRoot, "refs/heads/"+branch):
		args = []string{"worktree", "add", "--quiet", wt.Path, branch}
	case refExists(ctx, w.git, w.repoRoot, "refs/remotes/origin/"+branch):
		args = []string{"worktree", "add", "--quiet", "--track", "-b", branch, wt.Path, "origin/" + branch}
	default:
		args = []string{"worktree", "add", "--quiet", "--no-track", "-b", branch, wt.Path, base}
	}
	// git adds into an empty folder; making it first gives it the
	// owner-only mode of everything under $CAIRN_HOME.
	if err := os.Mkdir(wt.Path, 0o700); err != nil {
		return Worktree{}, err
	}
	if _, err := w.git.Run(ctx, w.repoRoot, args...); err != nil {
		_ = os.Remove(wt.Path)
		return Worktree{}, err
	}
	return wt, nil
}

// checkBranchName refuses an issue-branch worktree's branch that is missing
// (check's plan holds "cairn/N-…" until a run reads the issue's title) or
// that git would not take.
func checkBranchName(ctx context.Context, g *git.Git, repoRoot, branch string) error {
	if branch == "" || strings.Contains(branch, "…") {
		return errors.New("no branch is named for it; the run names it after its issue (cairn/NUMBER-slug)")
	}
	if _, err := g.Run(ctx, repoRoot, "check-ref-format", "--branch", branch); err != nil || strings.HasPrefix(branch, "-") {
		return fmt.Errorf("invalid branch name %q", branch)
	}
	return nil
}

// refExists reports whether ref names a commit in the repository at root.
func refExists(ctx context.Context, g *git.Git, root, ref string) bool {
	_, err := g.Run(ctx, root, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	return err == nil
}

// checkedOutAt is the path of the worktree that has branch checked out, ""
// when none has.
func checkedOutAt(ctx context.Context, g *git.Git, root, branch string) (string, error) {
	out, err := g.Run(ctx, root, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return "", err
	}
	path := ""
	for _, line := range strings.Split(out, "\x00") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			path = p
		} else if line == "branch refs/heads/"+branch {
			return path, nil
		}
	}
	return "", nil
}

// samePath reports whether a and b are one folder.
func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// freeBranch removes the worktree at path that has branch checked out, when
// a previous run left it (it is home/worktrees/RUN/NAME), that run is over
// (w.running says so) and it holds no uncommitted change: its work is all
// on the branch, which this run continues. Otherwise the branch is
// refused, with where it is checked out.
func (w *Worktrees) freeBranch(ctx context.Context, branch, path string) error {
	worktrees := filepath.Dir(w.runDir)
	run := filepath.Base(filepath.Dir(path))
	if !samePath(filepath.Dir(filepath.Dir(path)), worktrees) {
		return fmt.Errorf("branch %q is checked out at %s; switch that working tree to another branch first", branch, path)
	}
	if w.running == nil || w.running(run) {
		return fmt.Errorf("branch %q is in use by run %q, at %s", branch, run, path)
	}
	status, err := w.git.Run(ctx, path, "status", "--porcelain")
	if err != nil {
		return fmt.Errorf("branch %q is checked out at %s, which cairn cannot read: %w", branch, path, err)
	}
	if strings.TrimSpace(status) != "" {
		return fmt.Errorf("branch %q is checked out at %s, left by run %q with uncommitted changes; commit them on the branch or remove that worktree (git worktree remove --force %s), then run again", branch, path, run, path)
	}
	if _, err := w.git.Run(ctx, w.repoRoot, "worktree", "remove", path); err != nil {
		return fmt.Errorf("branch %q is checked out at %s, left by run %q: %w", branch, path, run, err)
	}
	// The old run's folder goes when nothing else of it is left.
	_ = os.Remove(filepath.Dir(path))
	return nil
}

// KeptBranch is an issue-branch worktree Close left in place, so that no
// work is lost (docs/design.md §7.4), and why.
type KeptBranch struct {
	Worktree string
	Branch   string
	Path     string
	Reason   string
	// Empty says the worktree holds no work: no uncommitted change, and
	// no commit of its branch beyond its base. It is kept for a resume.
	Empty bool
}

// String says what was kept and where, for the run's failure.
func (k KeptBranch) String() string {
	if k.Empty {
		return fmt.Sprintf("worktree %q is kept on branch %q at %s for a resume (%s); no work was done there", k.Worktree, k.Branch, k.Path, k.Reason)
	}
	return fmt.Sprintf("the work of worktree %q is kept on branch %q at %s (%s)", k.Worktree, k.Branch, k.Path, k.Reason)
}

// MarkSucceeded tells Close that the run succeeded: its issue-branch
// worktrees may then be removed, when everything in them is committed and
// on the base or pushed to origin. Without it, Close keeps them all.
func (w *Worktrees) MarkSucceeded() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.succeeded = true
}

// Kept lists the issue-branch worktrees Close left in place.
func (w *Worktrees) Kept() []KeptBranch {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]KeptBranch(nil), w.kept...)
}

// openIssueBranches are the issue-branch worktrees Close has not dealt with
// yet. The caller holds w.mu.
func (w *Worktrees) openIssueBranches() []Worktree {
	var open []Worktree
	for _, wt := range w.list {
		if wt.Kind == ir.IssueBranch && !w.removed[wt.Name] && !w.isKept(wt.Name) {
			open = append(open, wt)
		}
	}
	return open
}

// isKept reports whether Close kept the worktree name. The caller holds
// w.mu.
func (w *Worktrees) isKept(name string) bool {
	for _, k := range w.kept {
		if k.Worktree == name {
			return true
		}
	}
	return false
}

// closeIssueBranches ends issue-branch worktrees: each is kept when the run
// did not succeed, when it has uncommitted changes, or when its branch has
// commits neither on its base nor pushed to origin; otherwise it is removed
// (never its branch). The caller holds w.mu and the worktree lock.
func (w *Worktrees) closeIssueBranches(ctx context.Context, open []Worktree) {
	for _, wt := range open {
		if _, err := os.Lstat(wt.Path); errors.Is(err, fs.ErrNotExist) {
			w.removed[wt.Name] = true
			continue
		}
		reason := w.keepReason(ctx, wt)
		if reason == "" {
			args := []string{"worktree", "remove", wt.Path}
			if len(wt.Excluded) > 0 {
				// What copy and setup left, and only that, is
				// uncommitted: git would keep the worktree for it.
				args = append(args, "--force")
			}
			if _, err := w.git.Run(ctx, w.repoRoot, args...); err != nil {
				reason = err.Error()
			} else {
				w.removed[wt.Name] = true
				continue
			}
		}
		w.kept = append(w.kept, KeptBranch{Worktree: wt.Name, Branch: wt.Branch, Path: wt.Path, Reason: reason, Empty: w.holdsNoWork(ctx, wt)})
	}
}

// keepReason says why wt must be kept: "" when its work is all saved
// elsewhere and the run succeeded.
func (w *Worktrees) keepReason(ctx context.Context, wt Worktree) string {
	if !w.succeeded {
		return "the run did not succeed"
	}
	left, err := Uncommitted(ctx, w.git, wt.Path, wt.Excluded)
	if err != nil {
		return "cairn could not tell whether its work is saved: " + err.Error()
	}
	if len(left) > 0 {
		return "it has uncommitted changes"
	}
	// HEAD too: a session may have left the branch for another.
	out, err := w.git.Run(ctx, wt.Path, "rev-list", "-n", "1", "HEAD", "refs/heads/"+wt.Branch, "--not", wt.Base, "--remotes=origin", "--")
	if err != nil {
		return "cairn could not tell whether its work is saved: " + err.Error()
	}
	if strings.TrimSpace(out) != "" {
		return "its branch has commits that are neither on the base nor pushed to origin"
	}
	return ""
}

// holdsNoWork reports whether wt has neither an uncommitted change nor a
// commit (at HEAD or on its branch) that its base lacks; false when git
// cannot tell.
func (w *Worktrees) holdsNoWork(ctx context.Context, wt Worktree) bool {
	left, err := Uncommitted(ctx, w.git, wt.Path, wt.Excluded)
	if err != nil || len(left) > 0 {
		return false
	}
	out, err := w.git.Run(ctx, wt.Path, "rev-list", "-n", "1", "HEAD", "refs/heads/"+wt.Branch, "--not", wt.Base, "--")
	return err == nil && strings.TrimSpace(out) == ""
}
