package runtime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
)

// Resumable reports whether a run that stands as rec may be resumed
// (§7.7): a failed, interrupted or crashed one. A running record is taken
// for crashed here; OpenFolder tells the two apart by the folder's lock.
func Resumable(rec *record.Record) bool {
	switch rec.Status {
	case record.StatusFailed, record.StatusInterrupted, record.StatusCrashed, record.StatusRunning:
		return true
	}
	return false
}

// Resume carries on the run whose folder is dir (§7.7) with o's plan, made
// again from the same process file: in the same folder, its steps that
// succeeded, were inconclusive or skipped are kept and not run again, and every other step
// runs, from the first. Throwaway worktrees start again from the commits
// they started from, with the changes saved in their patches; a commit-mode
// run goes on committing in the repository. It refuses a run another cairn
// holds (ErrRunning), one that may not be resumed, and a plan whose steps
// are not the run's.
func Resume(ctx context.Context, dir string, o Options) (record.Status, error) {
	if err := o.complete(); err != nil {
		return record.StatusFailed, err
	}
	if o.Plan.Commit {
		if err := CheckIdentity(o.Repo.Root); err != nil {
			return record.StatusFailed, err
		}
		if _, err := record.RepoRunsDir(o.Repo.Root); err != nil {
			return record.StatusFailed, err
		}
	}
	var is *forge.Issue
	if o.Plan.Issue != "" {
		var err error
		if is, o.Plan, err = openIssue(ctx, o); err != nil {
			return record.StatusFailed, err
		}
	}
	folder, err := record.OpenFolder(dir)
	if err != nil {
		return record.StatusFailed, err
	}
	found := folder.Record()
	if !Resumable(&found) {
		folder.Close()
		return found.Status, fmt.Errorf("run %q %s; there is nothing to resume", folder.Name(), found.Status)
	}
	// Nothing of the run may run again beside what it left running.
	n, err := endOrphans(folder.Dir)
	if err != nil {
		folder.Close()
		return record.StatusFailed, err
	}
	if n > 0 {
		fmt.Fprintln(o.Stderr, OrphansLine(folder.Name(), n))
	}
	r := &run{o: o, folder: folder, groups: newGroups(folder.Dir), base: os.Environ(), index: map[string]int{}, wrote: map[string]bool{}, resumed: &found, done: map[string]bool{}, issue: is}
	if err := r.merge(&found); err != nil {
		folder.Close()
		return record.StatusFailed, err
	}
	if o.Plan.Commit {
		if r.commits, err = newCommitter(o.Repo.Root, folder.Dir, o.Plan.Process); err != nil {
			folder.Close()
			return record.StatusFailed, err
		}
		// A run that committed its start goes on from there.
		rel, _ := filepath.Rel(o.Repo.Root, filepath.Join(folder.Dir, record.RecordFile))
		_, lsErr := git.Run(context.Background(), o.Repo.Root, os.Environ(), "ls-files", "--error-unmatch", "--", filepath.ToSlash(rel))
		r.commits.started = lsErr == nil
	}
	if err := r.takeClaim(ctx); err != nil {
		folder.Close()
		return record.StatusFailed, err
	}
	host, _ := os.Hostname()
	if err := folder.Update(func(rec *record.Record) {
		rec.Status, rec.End, rec.Expires, rec.Cause = record.StatusRunning, nil, "", ""
		rec.Host, rec.PID = host, os.Getpid()
		rec.Directive, rec.Flags = o.Directive, o.Flags
		rec.Steps = r.initial
	}); err != nil {
		folder.Close()
		return record.StatusFailed, fmt.Errorf("resume the run's record: %w", err)
	}
	defer r.folder.Close()
	if err := salvage(o.Home, o.Repo, folder.Dir, &found); err != nil {
		r.warn(folder.Update(func(rec *record.Record) {
			end := time.Now().UTC()
			rec.Status, rec.End, rec.Expires, rec.Cause = record.StatusFailed, &end, expiry(o.Plan, record.StatusFailed, end), err.Error()
		}))
		return record.StatusFailed, err
	}
	return r.carry(ctx, "resume")
}

// salvage saves and removes what a crashed run left of its throwaway
// worktrees under home/worktrees/RUN: each one's changes become its patch
// in the run folder (as its run would have saved them), so that resume
// starts it again from its base with them. A symbolic link there, where
// cairn makes none, is removed itself: neither git nor a removal goes
// through it.
func salvage(home string, repo *check.Repo, dir string, rec *record.Record) error {
	runDir := filepath.Join(home, "worktrees", filepath.Base(dir))
	info, err := os.Lstat(runDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
	}
	if !info.IsDir() {
		if err := os.Remove(runDir); err != nil {
			return fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
		}
		return nil
	}
	entries, err := os.ReadDir(runDir)
	if err != nil {
		return fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
	}
	bases, kinds := map[string]string{}, map[string]string{}
	for _, w := range rec.Worktrees {
		bases[w.Name], kinds[w.Name] = w.Base, w.Kind
	}
	unlock, err := lockWorktrees(worktreeLockPath(home, repo.CommonDir))
	if err != nil {
		return fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
	}
	defer unlock()
	kept := false
	for _, e := range entries {
		wt := Worktree{Name: e.Name(), Kind: ir.Throwaway, Path: filepath.Join(runDir, e.Name()), Base: bases[e.Name()]}
		if !e.IsDir() {
			if err := os.Remove(wt.Path); err != nil {
				return fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
			}
			continue
		}
		if isBranchWorktree(wt.Path, kinds[wt.Name]) {
			// An issue branch's worktree, kept with whatever it holds:
			// the resumed run carries on in it.
			kept = true
			continue
		}
		if wt.Base == "" {
			wt.Base = git.Head(context.Background(), wt.Path, os.Environ())
		}
		if err := savePatch(wt, dir); err != nil {
			return fmt.Errorf("save the changes of worktree %q, left by the crashed run: %w; it is left at %s", wt.Name, err, wt.Path)
		}
		if err := removeWorktree(repo.Root, wt.Path); err != nil {
			return fmt.Errorf("remove worktree %q, left by the crashed run: %w", wt.Name, err)
		}
	}
	if _, err := git.Run(context.Background(), repo.Root, os.Environ(), "worktree", "prune"); err != nil {
		return fmt.Errorf("salvage the worktrees of the crashed run: %w", err)
	}
	if kept {
		return nil
	}
	return os.Remove(runDir)
}

// isBranchWorktree reports whether the worktree at path is an issue
// branch's: its recorded kind says so, or, unrecorded, it has a branch
// checked out (a throwaway is detached).
func isBranchWorktree(path, kind string) bool {
	if kind != "" {
		return kind == ir.IssueBranch
	}
	_, err := git.Run(context.Background(), path, os.Environ(), "symbolic-ref", "-q", "HEAD")
	return err == nil
}

// merge makes the steps a resumed run starts with: the run's own records
// of the steps that succeeded, were inconclusive (their work is done, and
// nothing judges it again) or skipped (which do not run again, their
// results still the later steps'), and the plan's fresh ones for the rest.
// The plan must have the run's steps, in the same order.
func (r *run) merge(found *record.Record) error {
	fresh := record.PlanSteps(r.o.Plan)
	if len(fresh) != len(found.Steps) {
		return fmt.Errorf("run %q has %d steps and the process now has %d; start a new run", r.folder.Name(), len(found.Steps), len(fresh))
	}
	r.initial = make([]record.StepRecord, len(fresh))
	for i := range fresh {
		old := &found.Steps[i]
		if old.Name != fresh[i].Name {
			return fmt.Errorf("run %q has step %q where the process now has %q; start a new run", r.folder.Name(), old.Name, fresh[i].Name)
		}
		r.index[old.Name] = i
		if old.Outcome == record.Succeeded || old.Outcome == record.Inconclusive || old.Outcome == record.Skipped {
			r.initial[i] = old.Clone()
			r.done[old.Name] = true
			if old.Result != "" {
				if _, err := os.Stat(r.resultFile(old.Name)); err == nil {
					r.wrote[old.Name] = true
				}
			}
			continue
		}
		r.initial[i] = fresh[i]
		r.initial[i].Baseline = old.Baseline
	}
	// The results of the steps kept are the later steps' earlier results,
	// in file order, as they were when those steps ran.
	for _, stage := range r.o.Plan.Stages {
		for _, st := range stage {
			if r.done[st.Name] && r.wrote[st.Name] {
				r.results = append(r.results, step.Earlier{Step: st.Name, Path: r.resultFile(st.Name)})
			}
		}
	}
	return nil
}

// reopen brings a resumed run's throwaway worktrees back to where the run
// left them: each starts again from the commit it started from the first
// time, and the patches of what was done in it are applied.
func (r *run) reopen(wts *Worktrees) error {
	bases := map[string]string{}
	for _, w := range r.resumed.Worktrees {
		bases[w.Name] = w.Base
	}
	wts.mu.Lock()
	defer wts.mu.Unlock()
	for i := range wts.list {
		wt := &wts.list[i]
		if wt.Kind != ir.Throwaway {
			continue
		}
		if base := bases[wt.Name]; base != "" && base != wt.Base {
			if _, err := git.Run(context.Background(), wt.Path, os.Environ(), "checkout", "--quiet", "--detach", base); err != nil {
				return fmt.Errorf("worktree %q: start again from %.12s: %w", wt.Name, base, err)
			}
			wt.Base = base
		}
		if err := applyPatches(*wt, filepath.Join(r.folder.Dir, record.WorktreesDir)); err != nil {
			return err
		}
	}
	return nil
}
