package record

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/realpath"
	"github.com/cairn-dev/cairn/ir"
)

// Why gc keeps a run (docs/design.md §7.7).
const (
	KeptRunning    = "running"
	KeptNewest     = "newest of its process"
	KeptNever      = "never expires"
	KeptNotExpired = "not expired"
	KeptBadExpiry  = "expires is not a date"
	KeptFuture     = "starts in the future"
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

// GCOptions are how gc runs. The two functions do what a run's record
// alone cannot: the packages that own process groups (runtime) and
// worktrees (worktree) supply them, and a nil one does nothing.
type GCOptions struct {
	// DryRun deletes nothing and ends nothing: GC lists what it would
	// delete.
	DryRun bool
	// EndCrashed ends what the crashed run whose folder is dir left
	// running.
	EndCrashed func(dir string) error
	// PruneWorktrees removes what is left of the worktrees of the run
	// named name under home, and has the repository whose git common dir
	// is repo forget them.
	PruneWorktrees func(home, name, repo string) error
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

// GC deletes the expired runs of home (docs/design.md §7.7): a run expires at its
// `expires`, which a user may edit ("never" pins it); a record without one
// expires run_expiry's or failed_run_expiry's default after its end, and a
// crashed run 90 days after its start. The newest run of each process file
// of each repository in each runs folder is always kept, and so is any run
// whose lock is held. Deleting a run removes its folder and whatever is
// left of its worktrees under home/worktrees/RUN, which git is then told to
// forget. A dry run deletes nothing and lists what it would.
//
// With repo (nil outside one), the commit-mode runs in its working tree's
// .cairn/runs are swept too (docs/design.md §7.6), and the removal of those that were
// committed is committed in one commit of those paths alone, by git run
// with ctx.
//
// gc deletes only inside the folders it owns, by their real paths, and
// never through a symbolic link: a runs folder that is one is refused, and
// a link where a run's worktrees would be is removed itself, never what it
// points to.
func GC(ctx context.Context, home string, repo *git.Repo, now time.Time, o GCOptions) (GCReport, error) {
	dryRun := o.DryRun
	report := GCReport{DryRun: dryRun}
	homeRuns := RunsDir(home)
	if err := realpath.Folder(homeRuns); err != nil {
		return report, fmt.Errorf("gc: %w", err)
	}
	folders := []string{homeRuns}
	inRepo := ""
	if repo != nil {
		var err error
		if inRepo, err = RepoRunsDir(repo.Root); err != nil {
			return report, fmt.Errorf("gc: %w", err)
		}
		folders = append(folders, inRepo)
	}
	owned, err := realpath.Folders(folders)
	if err != nil {
		return report, fmt.Errorf("gc: %w", err)
	}
	runs, err := ListRuns(home, folders[1:]...)
	if err != nil {
		return report, err
	}
	// Two folders of one name share home/worktrees/NAME: its worktrees go
	// with the last of them.
	named := map[string]int{}
	for _, r := range runs {
		named[r.Name]++
	}
	var removed []string
	newest := map[newestKey]bool{}
	var errs []error
	for _, r := range runs {
		if r.Record == nil {
			report.Unreadable = append(report.Unreadable, GCRun{Name: r.Name, Dir: r.Dir, Err: r.Err})
			continue
		}
		if !dryRun && o.EndCrashed != nil && r.Record.Status == StatusCrashed {
			errs = append(errs, o.EndCrashed(r.Dir))
		}
		run := GCRun{Name: r.Name, Dir: r.Dir, Repo: r.Record.Repo, Process: r.Record.Process}
		// A start is the one clock a run has (its folder's name is the same
		// clock), and a start after now, a clock skew's, cannot be ordered
		// against the others: such a run is kept, and does not stand for
		// the newest, which is the latest run that started by now.
		future := r.Record.Start.After(now)
		first := false
		if !future {
			key := keyOf(r)
			first = !newest[key]
			newest[key] = true
		}
		expires, reason := runExpiry(r.Record)
		run.Expires = expires
		switch {
		case r.Record.Status == StatusRunning:
			run.Reason = KeptRunning
		case future:
			run.Reason = KeptFuture
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
		deleted, err := deleteRun(owned, r.Name, r.Dir)
		switch {
		case err != nil:
			run.Err = err
			errs = append(errs, err)
			report.Kept = append(report.Kept, run)
		case !deleted:
			run.Reason = KeptRunning
			report.Kept = append(report.Kept, run)
		default:
			named[r.Name]--
			// Its folder is gone; an error is about what it left.
			if named[r.Name] == 0 && o.PruneWorktrees != nil {
				errs = append(errs, o.PruneWorktrees(home, r.Name, r.Record.Repo))
			}
			report.Deleted = append(report.Deleted, run)
			if inRepo != "" && filepath.Dir(r.Dir) == inRepo {
				removed = append(removed, r.Dir)
			}
		}
	}
	if len(removed) > 0 {
		if err := commitRemoval(ctx, repo, removed); err != nil {
			errs = append(errs, err)
		}
	}
	return report, errors.Join(errs...)
}

// newestKey is what gc keeps the newest run of: a process file (its name,
// for a record that has no file) of a repository, in one runs folder. Two
// files of one name are two processes; and the runs a repository carries
// in its .cairn/runs, whose records anyone who can commit there writes, do
// not stand for the newest of $CAIRN_HOME's.
type newestKey struct {
	folder, repo, file, process string
}

// keyOf is the newestKey of the run r, whose record is read.
func keyOf(r RunInfo) newestKey {
	k := newestKey{folder: filepath.Dir(r.Dir), repo: r.Record.Repo, file: r.Record.File}
	if k.file == "" {
		k.process = r.Record.Process
	}
	return k
}

// commitRemoval commits the removal of the run folders dirs from repo's
// working tree, those of them git tracks, in one commit of those paths
// only: whatever else the user has staged stays staged.
func commitRemoval(ctx context.Context, repo *git.Repo, dirs []string) error {
	root := repo.Root
	var tracked []string
	for _, d := range dirs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if out, err := repo.Run(ctx, "ls-files", "--", rel); err == nil && out != "" {
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
	if _, err := repo.Run(ctx, args...); err != nil {
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
	def := ir.DefaultFailedRunExpiry
	if rec.Status == StatusSucceeded {
		def = ir.DefaultRunExpiry
	}
	d, err := ir.ParseDuration(def)
	if err != nil {
		d = crashedRunExpiry
	}
	return rec.End.Add(d), ""
}

// deleteRun removes the run folder dir, an entry of one of the folders
// owned (real paths), holding its lock so that no cairn takes the run up
// meanwhile; deleted is false when another holds the lock (the run is
// running).
func deleteRun(owned []string, name, dir string) (deleted bool, err error) {
	info, err := realpath.Entry(owned, dir)
	if err != nil {
		return false, fmt.Errorf("delete run %q: %w", name, err)
	}
	if !info.IsDir() {
		return false, fmt.Errorf("delete run %q: %s is no folder", name, dir)
	}
	lock, err := proc.Lock(filepath.Join(dir, LockFile), false)
	if errors.Is(err, proc.ErrWouldBlock) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete run %q: %w", name, err)
	}
	// os.RemoveAll removes a link it meets, never what it points to.
	err = os.RemoveAll(dir)
	proc.Unlock(lock)
	if err != nil {
		return false, fmt.Errorf("delete run %q: %w", name, err)
	}
	return true, nil
}
