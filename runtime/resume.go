package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/catalogue"
	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/tracing"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/worktree"
)

// ResumeRequest asks to resume the run whose folder is Dir, from the
// directory WorkDir, which must be in the repository the run ran in, whose
// git is Git. Access and Budget may tighten the run's ("" and 0: as it
// was started), and Directive replaces its directive (nil: as it was
// started). Stderr is told of what a crashed run left running, once ended.
type ResumeRequest struct {
	Dir       string
	WorkDir   string
	Git       *git.Git
	Access    string
	Budget    float64
	Directive *string
	Stderr    io.Writer
}

// Resumption is what resuming a run does (docs/design.md §7.7), as
// PrepareResume decided it from the run's record.
type Resumption struct {
	// Name is the run's folder's name; Record is its record.
	Name   string
	Record *record.Record
	// Done is set when there is nothing to resume: the run succeeded, or
	// it is inconclusive (its work is done, and resume judges nothing
	// again). Lines say so, for stderr.
	Done  bool
	Lines []string
	// Source is the run's process file, unchanged since the run started;
	// Flags are the flags it was started with, tightened by the request's;
	// Directive is its directive, or the request's.
	Source    []byte
	Flags     record.RecordFlags
	Directive string
}

// PrepareResume decides what resuming the run of q does (docs/design.md
// §7.7). What a crashed run left running is ended first, whatever follows.
// A succeeded run has nothing to resume, nor has an inconclusive one: its
// work is done, and nothing judges it again. A failed, interrupted or
// crashed run goes on in its folder with the flags it was started with,
// once its process file is read again, unchanged, in the repository it ran
// in; q's access and budget may only tighten the run's.
func PrepareResume(ctx context.Context, q ResumeRequest) (*Resumption, error) {
	name := filepath.Base(q.Dir)
	rec, err := record.Load(q.Dir)
	if err != nil {
		return nil, err
	}
	if rec.Status == record.StatusCrashed {
		EndCrashed(q.Stderr, name, q.Dir)
	}
	res := &Resumption{Name: name, Record: rec}
	switch rec.Status {
	case record.StatusSucceeded:
		res.Done = true
		res.Lines = []string{fmt.Sprintf("cairn: run %s succeeded; nothing to resume", name)}
		return res, nil
	case record.StatusInconclusive:
		// The run's own lines say why it is inconclusive, under one
		// saying that resume does nothing.
		res.Done = true
		res.Lines = []string{fmt.Sprintf("cairn: run %s is inconclusive; nothing to resume: its work is done, and resume judges nothing again", name)}
		for _, s := range InconclusiveSteps(rec.Steps) {
			res.Lines = append(res.Lines, InconclusiveLine(rec.Process, s))
		}
		res.Lines = append(res.Lines, catalogue.InconclusiveChildren(rec.Process, q.Dir, rec.Steps)...)
		return res, nil
	}
	if !Resumable(rec) {
		return nil, fmt.Errorf("run %s is %s; only failed, interrupted and crashed runs resume", name, rec.Status)
	}
	repo, err := git.Discover(ctx, q.Git, q.WorkDir)
	if err != nil {
		return nil, err
	}
	if rec.Repo != "" && rec.Repo != repo.CommonDir {
		return nil, fmt.Errorf("run %s ran in the repository at %s; resume it there (cairn -C DIR resume)", name, rec.Repo)
	}
	src, err := source.ReadFile(rec.File, repo.Root)
	if err != nil {
		return nil, fmt.Errorf("run %s: read its process file: %w", name, err)
	}
	if sum := sha256.Sum256(src); hex.EncodeToString(sum[:]) != rec.SHA256 {
		return nil, fmt.Errorf("run %s: its process file %s changed since the run started; nothing was resumed (start a new run with cairn run)", name, rec.File)
	}
	res.Source, res.Flags, res.Directive = src, rec.Flags, rec.Directive
	res.Flags.Access = tighterAccess(rec.Flags.Access, q.Access)
	res.Flags.Budget = tighterBudget(rec.Flags.Budget, q.Budget)
	if q.Directive != nil {
		res.Directive = *q.Directive
	}
	return res, nil
}

// tighterAccess is the lower of two --access values, either of which may be
// empty (no flag): a resumed run keeps the ceiling it was started with,
// and may only lower it.
func tighterAccess(started, now string) string {
	if started == "" || now != "" && ir.AccessLevel(now) < ir.AccessLevel(started) {
		return now
	}
	return started
}

// tighterBudget is the lower of two --budget values, either of which may be
// 0 (no flag): a resumed run keeps the budget it was started with, and may
// only lower it.
func tighterBudget(started, now float64) float64 {
	if started == 0 || now > 0 && now < started {
		return now
	}
	return started
}

// Resumable reports whether a run that stands as rec may be resumed
// (docs/design.md §7.7): a failed, interrupted or crashed one. A running record is taken
// for crashed here; OpenFolder tells the two apart by the folder's lock.
func Resumable(rec *record.Record) bool {
	switch rec.Status {
	case record.StatusFailed, record.StatusInterrupted, record.StatusCrashed, record.StatusRunning:
		return true
	}
	return false
}

// Resume carries on the run whose folder is dir (docs/design.md §7.7) with o's plan, made
// again from the same process file: in the same folder, its steps that
// succeeded, were inconclusive or skipped are kept and not run again, and
// every other step runs, from the first, keeping what its sessions used
// before: the run's budget counts what it spent before the resume.
// Throwaway worktrees start again from the commits they started from, with
// the changes saved in their patches; a commit-mode run goes on committing
// in the repository. It refuses a run another cairn holds (ErrRunning), one
// that may not be resumed, and a plan whose steps are not the run's.
func Resume(ctx context.Context, dir string, o Options) (status record.Status, err error) {
	if err := o.complete(); err != nil {
		return record.StatusFailed, err
	}
	ctx, span := tracing.Run(ctx, o.Plan.Process, "resume")
	span.SetRun(filepath.Base(dir))
	defer func() {
		spent(span, dir)
		span.End(string(status), causeOf(err))
	}()
	if o.Plan.Commit {
		if err := CheckIdentity(ctx, o.Repo); err != nil {
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
	r := &run{o: o, folder: folder, groups: newGroups(folder.Dir), base: o.Env, index: map[string]int{}, wrote: map[string]bool{}, resumed: &found, done: map[string]bool{}, issue: is}
	if err := r.merge(&found); err != nil {
		folder.Close()
		return record.StatusFailed, err
	}
	if o.Plan.Commit {
		if r.commits, err = newCommitter(ctx, o.Repo, folder.Dir, o.Plan.Process, o.Stubs != nil); err != nil {
			folder.Close()
			return record.StatusFailed, err
		}
		// A run that committed its start goes on from there.
		rel, _ := filepath.Rel(o.Repo.Root, filepath.Join(folder.Dir, record.RecordFile))
		_, lsErr := o.Repo.Run(ctx, "ls-files", "--error-unmatch", "--", filepath.ToSlash(rel))
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
	// The plan names the worktrees a run that crashed while it made them
	// did not record.
	own := recordedWorktrees(&found)
	for _, p := range o.Plan.Worktrees {
		own = append(own, worktree.Worktree{Name: p.Name, Kind: p.Kind})
	}
	left, err := worktree.Salvage(ctx, o.Home, o.Repo, folder.Name(), filepath.Join(folder.Dir, record.WorktreesDir), own)
	r.warnLeft(left)
	if err != nil {
		status, cause := record.StatusFailed, err.Error()
		if ctx.Err() != nil {
			// Stopped while it saved what the crashed run left: what
			// it did not save yet is where it was, for the next resume.
			status, cause, err = record.StatusInterrupted, "", nil
		}
		r.warn(folder.Update(func(rec *record.Record) {
			end := time.Now().UTC()
			rec.Status, rec.End, rec.Expires, rec.Cause = status, &end, expiry(o.Plan, status, end), cause
		}))
		return status, err
	}
	return r.carry(ctx, "resume")
}

// recordedWorktrees are the worktrees rec says its run opened.
func recordedWorktrees(rec *record.Record) []worktree.Worktree {
	var wts []worktree.Worktree
	for _, w := range rec.Worktrees {
		wts = append(wts, worktree.Worktree{Name: w.Name, Kind: w.Kind, Path: w.Path, Base: w.Base})
	}
	return wts
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
		// What its earlier attempts spent stays spent: the step's
		// usage, the run's, and its budgets go on from there.
		r.initial[i].Usage, r.initial[i].JudgeUsage = old.Usage, old.JudgeUsage
	}
	return nil
}
