package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/ir"
)

// Why gc keeps a run (§7.7).
const (
	KeptRunning    = "running"
	KeptNewest     = "newest of its process"
	KeptNever      = "never expires"
	KeptNotExpired = "not expired"
	KeptBadExpiry  = "expires is not a date"
)

// crashedRunExpiry is how long after its start a crashed run expires.
const crashedRunExpiry = 90 * 24 * time.Hour

// GCRun is one run folder gc looked at: its name, its folder, the
// repository and process of its record, when it expires (zero for never),
// and why it was kept, or why it could not be read or deleted.
type GCRun struct {
	Name    string
	Dir     string
	Repo    string
	Process string
	Expires time.Time
	Reason  string
	Err     error
}

// GCReport is what gc did: the runs it deleted (would delete, on a dry run),
// those it kept with the reason, and the folders it could not read, which it
// leaves alone.
type GCReport struct {
	DryRun     bool
	Deleted    []GCRun
	Kept       []GCRun
	Unreadable []GCRun
}

// GC deletes the expired runs of home (§7.7): a run expires at its
// `expires`, which a user may edit ("never" pins it); a record without one
// expires run_expiry's or failed_run_expiry's default after its end, and a
// crashed run 90 days after its start. The newest run of each (repository,
// process) is always kept, and so is any run whose lock is held. Deleting a
// run removes its folder and whatever is left of its worktrees under
// home/worktrees/RUN, which git is then told to forget. A dry run deletes
// nothing and lists what it would.
//
// With repoRoot, the root of a repository's working tree, the commit-mode
// runs in its .cairn/runs are swept too (§7.6), and the removal of those
// that were committed is committed in one commit of those paths alone.
func GC(home, repoRoot string, now time.Time, dryRun bool) (GCReport, error) {
	report := GCReport{DryRun: dryRun}
	var more []string
	inRepo := ""
	if repoRoot != "" {
		inRepo = RepoRunsDir(repoRoot)
		more = append(more, inRepo)
	}
	runs, err := ListRuns(home, more...)
	if err != nil {
		return report, err
	}
	var removed []string
	newest := map[[2]string]bool{}
	var errs []error
	for _, r := range runs {
		if r.Record == nil {
			report.Unreadable = append(report.Unreadable, GCRun{Name: r.Name, Dir: r.Dir, Err: r.Err})
			continue
		}
		errs = append(errs, endCrashed(r, dryRun))
		run := GCRun{Name: r.Name, Dir: r.Dir, Repo: r.Record.Repo, Process: r.Record.Process}
		key := [2]string{r.Record.Repo, r.Record.Process}
		first := !newest[key]
		newest[key] = true
		expires, reason := runExpiry(r.Record)
		run.Expires = expires
		switch {
		case r.Record.Status == StatusRunning:
			run.Reason = KeptRunning
		case first:
			run.Reason = KeptNewest
		case reason != "":
			run.Reason = reason
		case !expires.Before(now):
			run.Reason = KeptNotExpired
		}
		if run.Reason != "" {
			report.Kept = append(report.Kept, run)
			continue
		}
		if dryRun {
			report.Deleted = append(report.Deleted, run)
			continue
		}
		deleted, err := deleteRun(home, r.Name, r.Dir, r.Record.Repo)
		switch {
		case err != nil && !deleted:
			run.Err = err
			errs = append(errs, err)
			report.Kept = append(report.Kept, run)
		case !deleted:
			run.Reason = KeptRunning
			report.Kept = append(report.Kept, run)
		default:
			// Its folder is gone; an error is about what it left.
			if err != nil {
				errs = append(errs, err)
			}
			report.Deleted = append(report.Deleted, run)
			if inRepo != "" && filepath.Dir(r.Dir) == inRepo {
				removed = append(removed, r.Dir)
			}
		}
	}
	if len(removed) > 0 {
		if err := commitRemoval(repoRoot, removed); err != nil {
			errs = append(errs, err)
		}
	}
	return report, errors.Join(errs...)
}

// commitRemoval commits the removal of the run folders dirs from the
// repository at root, those of them git tracks, in one commit of those
// paths only: whatever else the user has staged stays staged.
func commitRemoval(root string, dirs []string) error {
	var tracked []string
	for _, d := range dirs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if out, err := gitOutput(root, nil, nil, "ls-files", "--", rel); err == nil && out != "" {
			tracked = append(tracked, rel)
		}
	}
	if len(tracked) == 0 {
		return nil
	}
	subject := fmt.Sprintf("[cairn] Remove %d expired runs", len(tracked))
	if len(tracked) == 1 {
		subject = "[cairn] Remove 1 expired run"
	}
	args := append([]string{"commit", "--quiet", "--only", "--no-verify", "-m", subject, "--"}, tracked...)
	if _, err := gitOutput(root, nil, nil, args...); err != nil {
		return fmt.Errorf("commit the removal of expired runs: %w", err)
	}
	return nil
}

// runExpiry is when rec expires, and the reason to keep it whatever the
// time when it never does ("never", or an `expires` that is not a date).
func runExpiry(rec *Record) (time.Time, string) {
	switch rec.Expires {
	case ir.Never:
		return time.Time{}, KeptNever
	case "":
	default:
		t, err := time.Parse(time.RFC3339, rec.Expires)
		if err != nil {
			return time.Time{}, KeptBadExpiry
		}
		return t, ""
	}
	if rec.Status == StatusCrashed || rec.Status == StatusRunning || rec.End == nil {
		return rec.Start.Add(crashedRunExpiry), ""
	}
	def := check.DefaultFailedRunExpiry
	if rec.Status == StatusSucceeded {
		def = check.DefaultRunExpiry
	}
	d, err := ir.ParseDuration(def)
	if err != nil {
		d = crashedRunExpiry
	}
	return rec.End.Add(d), ""
}

// deleteRun removes the run folder dir, holding its lock so that no cairn
// takes the run up meanwhile; deleted is false when another holds the lock
// (the run is running). What is left of the run's worktrees under
// home/worktrees/NAME is removed too, and the repository at repo (its git
// common dir), when it still exists, forgets them.
func deleteRun(home, name, dir, repo string) (deleted bool, err error) {
	lock, err := lockPath(filepath.Join(dir, lockFile), false)
	if errors.Is(err, errWouldBlock) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete run %q: %w", name, err)
	}
	err = os.RemoveAll(dir)
	lock.Close()
	if err != nil {
		return false, fmt.Errorf("delete run %q: %w", name, err)
	}
	return true, pruneWorktrees(home, name, repo)
}

// pruneWorktrees removes home/worktrees/NAME, what a crashed run left of its
// throwaway worktrees and the issue-branch worktrees its run kept, and has
// the repository whose git common dir is repo forget them. A worktree on a
// branch with uncommitted work is left in place, with an error that says
// so: its work is the user's. A repository that is gone has nothing to
// forget.
func pruneWorktrees(home, name, repo string) error {
	if !validRunName(name) {
		return nil
	}
	wtDir := filepath.Join(home, "worktrees", name)
	if _, err := os.Lstat(wtDir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	entries, err := os.ReadDir(wtDir)
	if err != nil {
		return fmt.Errorf("remove the worktrees of run %q: %w", name, err)
	}
	var kept []error
	for _, e := range entries {
		path := filepath.Join(wtDir, e.Name())
		// An issue branch's worktree the run kept may hold work not yet
		// committed: that is the user's, and stays.
		if branch, err := gitOutput(path, nil, nil, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
			if out, err := gitOutput(path, nil, nil, "status", "--porcelain"); err != nil || strings.TrimSpace(out) != "" {
				kept = append(kept, fmt.Errorf("left worktree %s of run %q in place: it holds uncommitted work on branch %q", path, name, strings.TrimSpace(branch)))
				continue
			}
		}
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("remove the worktrees of run %q: %w", name, err)
		}
	}
	if len(kept) == 0 {
		if err := os.Remove(wtDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the worktrees of run %q: %w", name, err)
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
	if _, err := gitOutput(repo, nil, nil, "--git-dir="+repo, "worktree", "prune"); err != nil {
		return fmt.Errorf("prune the worktrees of run %q: %w", name, err)
	}
	return errors.Join(kept...)
}
