// Package runtime executes a plan: it walks the stages, runs each step's
// phases in its worktree, judges them, and records every step (docs/design.md §7).
package runtime

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/catalogue"
	"github.com/cairn-dev/cairn/internal/atomicfile"
	"github.com/cairn-dev/cairn/internal/machine"
	"github.com/cairn-dev/cairn/internal/text"
	"github.com/cairn-dev/cairn/notify"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/runtime/progress"
	"github.com/cairn-dev/cairn/step"
	"github.com/cairn-dev/cairn/stubs"
	"github.com/cairn-dev/cairn/worktree"

	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/tracing"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/skills"
	"github.com/cairn-dev/cairn/views"
)

// Options are what a run needs: the plan `cairn check` made (preflight
// included: a plan whose harness cannot start never gets here), where it
// runs, and where it reports.
type Options struct {
	// Dir is the directory cairn works in (-C), which the plan's file is
	// named relative to and the notification runs in; "" for cairn's
	// working directory.
	Dir string
	// Home is $CAIRN_HOME.
	Home string
	// Repo is the repository the run works on; git runs through its Git.
	Repo *git.Repo
	// Env is cairn's environment, whole, which main reads once: every
	// step's environment, and the notification's, starts from it.
	Env       []string
	Harnesses *harness.Registry
	Plan      *ir.Plan
	// Source is the process file's bytes, for its sha256 in the record.
	Source    []byte
	Directive string
	// Jobs bounds how many steps of a parallel group run at once; 0 runs
	// them all.
	Jobs  int
	Flags record.RecordFlags
	// Pass is the Pass lock the run holds, when it is a Pass: it is told
	// the run's name once the run has one.
	Pass *PassLock
	// Stdout gets the last stage's results; Stderr the progress and
	// warnings. Terminal says Stderr is a terminal, for live step lines,
	// and StdoutTerminal that Stdout is one: there, what cairn did not
	// write itself (a result, a cause, a program's output) is shown with
	// its control characters escaped (text.Escaped).
	Stdout         io.Writer
	Stderr         io.Writer
	Terminal       bool
	StdoutTerminal bool
	// Events, when set, gets every event the run tells (record.RunEvent),
	// from its start to its end, one JSON object a line: `cairn run
	// --json`. ExitOf, when set, gives the exit code of a run that ended
	// with a status, for the run_end event.
	Events io.Writer
	ExitOf func(record.Status) int
	// Prepare checks the child process a run-published-issue step starts
	// (docs/design.md §7.8), by name, for a run on issue (an issue URL), as `cairn run
	// NAME issue ISSUE` would: it writes the check's diagnostics to w, and
	// returns the child's plan and its process file's bytes. A run without
	// it starts no child process.
	Prepare func(process, issue string, w io.Writer) (*ir.Plan, []byte, error)
	// RunsDir, when set, is the folder the run's folder is made in instead
	// of $CAIRN_HOME/runs: a child run's is under its parent's folder. A
	// commit-mode run's folder stays in its repository (docs/design.md §7.6).
	RunsDir string
	// Started, when set, is told the run folder's path as soon as it is
	// made, before anything runs.
	Started func(dir string)
	// Stubs, when set, make the run a stubbed one: every agent session
	// and catalogue step is answered from them, and a command step from
	// its stub when it has one (package stubs). A stubbed run never
	// delivers, merges, takes a Claim or starts a child run; its record
	// says it was stubbed and keeps the stubs.
	Stubs *stubs.Stubs
	// parent is the budget of the run a child run is a child of: what the
	// child's sessions spend counts against it too.
	parent *purse
}

// Run carries out a plan (docs/design.md §7): it creates the run folder and its record,
// opens the worktrees, runs the stages in order (a parallel group's steps
// together, at most Jobs at a time), stops at the first failed required
// step, prints the last stage's results on stdout, closes the worktrees
// whatever happened, stamps the record's end and expiry, and sends the
// [notify] notification. When ctx is done (SIGINT, SIGTERM) nothing new
// starts, running steps are stopped and recorded interrupted, and the run
// ends interrupted.
//
// The status is how the run ended: interrupted, else failed, else
// inconclusive, else succeeded. The error says what kept the run from running its steps (a
// run folder that cannot be made, a worktree that cannot be created); the
// run is recorded failed then, with that cause, when it could be recorded
// at all; a run refused so that it leaves no run folder (a Claim another
// holds, a procedure's dirty checkout) says why in the activity log.
func Run(ctx context.Context, o Options) (record.Status, error) {
	if err := o.complete(); err != nil {
		return record.StatusFailed, err
	}
	ctx, span := tracing.Run(ctx, o.Plan.Process, "run")
	dir, started := "", o.Started
	o.Started = func(d string) {
		dir = d
		span.SetRun(filepath.Base(d))
		if started != nil {
			started(d)
		}
	}
	status, err := begin(ctx, o)
	if err != nil && ctx.Err() == nil && !recorded(dir) {
		if err := refusedActivity(o, dir, err); err != nil {
			o.say(fmt.Sprintf("cairn: warning: %v", err))
		}
	}
	spent(span, dir)
	span.End(string(status), causeOf(err))
	return status, err
}

// spent sets on the span of a run what the run in the folder dir used in
// all, as its record says: the totals a budget counts. A run that left no
// record (refused, or every step of a procedure skipped) sets nothing.
func spent(span tracing.Span, dir string) {
	if !span.Recording() || dir == "" {
		return
	}
	if rec, err := record.Load(dir); err == nil {
		span.SetUsage(rec.Usage)
	}
}

// begin is Run, once o is complete.
func begin(ctx context.Context, o Options) (record.Status, error) {
	var is *forge.Issue
	if o.Plan.Issue != "" {
		var err error
		if is, o.Plan, err = openIssue(ctx, o); err != nil {
			return record.StatusFailed, err
		}
	}
	start := time.Now().UTC()
	runs := record.RunsDir(o.Home)
	if o.RunsDir != "" {
		runs = o.RunsDir
	}
	if o.Plan.Commit {
		if err := CheckIdentity(ctx, o.Repo); err != nil {
			return record.StatusFailed, err
		}
		var err error
		if runs, err = record.RepoRunsDir(o.Repo.Root); err != nil {
			return record.StatusFailed, err
		}
	}
	folder, err := record.NewFolder(runs, o.Plan.Process, start)
	if err != nil {
		return record.StatusFailed, err
	}
	if o.Started != nil {
		o.Started(folder.Dir)
	}
	r := &run{o: o, folder: folder, groups: newGroups(folder.Dir), base: o.Env, index: map[string]int{}, wrote: map[string]bool{}, issue: is}
	if o.Plan.Commit {
		if r.commits, err = newCommitter(ctx, o.Repo, folder.Dir, o.Plan.Process, o.Stubs != nil); err != nil {
			folder.Close()
			_ = removeRunFolder(o.Repo.Root, folder.Dir)
			return record.StatusFailed, err
		}
	}
	return r.run(ctx, start)
}

// complete checks that o has a plan and a repository, and fills in what
// may be left out: no output, the harnesses of the plan.
func (o *Options) complete() error {
	if o.Plan == nil || o.Repo == nil {
		return errors.New("a run needs a plan and a repository")
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Harnesses == nil {
		o.Harnesses = harness.NewRegistry(o.Plan.CustomHarnesses)
	}
	return nil
}

// run is one run under way.
type run struct {
	o      Options
	folder *record.Folder
	// groups are the process groups the run's steps have running.
	groups *proc.Groups
	wts    *worktree.Worktrees
	prog   *progress.Progress
	// commits makes the commits of a commit-mode run; nil otherwise.
	commits *committer
	// issue is the issue the run works on, nil for a Pass; claim is its
	// Claim (docs/design.md §7.8), held from the start to the end.
	issue *forge.Issue
	claim *forge.Claim
	// resumed is the record of a resumed run as it was found; done holds
	// its steps that succeeded, were inconclusive or skipped, which are not
	// run again.
	resumed *record.Record
	done    map[string]bool
	// base is the user's environment, under every step's.
	base []string
	// purse is the run's budget and what its sessions spent, theirs
	// before a resume included.
	purse *purse
	// initial are the steps' records as they start (PlanSteps), in file
	// order; index maps a step's name to its place there.
	initial []record.StepRecord
	index   map[string]int

	mu sync.Mutex
	// wrote holds the steps whose result file was written: the later
	// steps that wait for them are given them (earlier).
	wrote map[string]bool
	// dag is the plan's steps with what each waits for, set as the walk
	// starts: a step's when reads the steps it waits for.
	dag *ir.DAG
	// budgetStopped holds the steps a budget stopped: a run that failed
	// at one ends saying what it really spent (failedLine).
	budgetStopped map[string]bool
	// wtErr is the error of the worktree that could not be made, once a
	// step needed it or a stage was to start with it failed.
	wtErr error
	// lastUser maps each worktree to the last step, in file order, that
	// uses it: once that step has ended, the worktree is released
	// (Worktrees.Release). patches is the run folder's worktrees/.
	lastUser map[string]string
	patches  string
	// itemWorktrees maps the throwaway of each item of a step with
	// for_each to the worktree it was made like; items, each such step
	// to the results its items wrote.
	itemWorktrees map[string]string
	items         map[string][]step.Earlier
	// pullRequest is the URL of the run's pull request, once a delivery
	// or self-merge step found it (catalogue.go): the notification names
	// it (docs/design.md §7.9).
	pullRequest string
	// preparings are the worktrees' readying, each done once by the first
	// step in it (prepare.go).
	preparings map[string]*preparing
}

// run runs the plan in r's folder, which it closes.
func (r *run) run(ctx context.Context, start time.Time) (record.Status, error) {
	defer r.folder.Close()
	if r.commits != nil {
		r.commits.exclude = r.excludedAt
	}
	plan := r.o.Plan
	file := plan.File
	if abs, err := workdir.Abs(r.o.Dir, file); err == nil {
		file = abs
	}
	sum := sha256.Sum256(r.o.Source)
	host, _ := os.Hostname()
	r.initial = record.PlanSteps(plan)
	for i, s := range r.initial {
		r.index[s.Name] = i
	}
	rec := record.Record{
		Version:   record.RecordVersion,
		Process:   plan.Process,
		File:      file,
		SHA256:    hex.EncodeToString(sum[:]),
		Repo:      r.o.Repo.CommonDir,
		Issue:     plan.Issue,
		Directive: r.o.Directive,
		Flags:     r.o.Flags,
		Stubbed:   r.o.Stubs != nil,
		Status:    record.StatusRunning,
		Host:      host,
		PID:       os.Getpid(),
		Start:     start,
		Steps:     r.initial,
	}
	if err := r.folder.Begin(&rec); err != nil {
		return record.StatusFailed, fmt.Errorf("begin the run's record: %w", err)
	}
	if r.o.Stubs != nil {
		if err := atomicfile.Write(filepath.Join(r.folder.Dir, record.StubsFile), stubs.Format(r.o.Stubs)); err != nil {
			return record.StatusFailed, fmt.Errorf("keep the run's stubs: %w", err)
		}
	}
	if err := r.takeClaim(ctx); err != nil {
		// Refused before anything ran: the run leaves no folder.
		r.folder.Close()
		if r.commits != nil {
			r.warn(removeRunFolder(r.o.Repo.Root, r.folder.Dir))
		} else {
			r.warn(os.RemoveAll(r.folder.Dir))
		}
		return record.StatusFailed, err
	}
	return r.carry(ctx, "start")
}

// carry runs a begun (or resumed) run to its end: it opens the worktrees,
// walks the stages, closes the worktrees, stamps the record's end, and
// notifies. event names the start in the activity log.
func (r *run) carry(ctx context.Context, event string) (status record.Status, runErr error) {
	plan := r.o.Plan
	if r.o.Pass != nil {
		r.warn(r.o.Pass.SetRun(r.folder.Name()))
	}
	r.warn(record.Activity(r.o.Home, "event="+event, "run="+r.folder.Name(), "process="+plan.Process, "repo="+r.o.Repo.CommonDir,
		"containment="+r.groups.Method()))

	if r.o.Events != nil {
		r.folder.Watch(eventLines(r.o.Events))
	}
	began := time.Now()
	r.folder.Tell(record.RunEvent{Type: record.EventRunStart, Process: plan.Process, Dir: r.folder.Dir, Resumed: r.resumed != nil, Stubbed: r.o.Stubs != nil})
	defer func() { r.tellEnd(began, status, runErr) }()

	r.prog = progress.New(r.o.Stderr, r.o.Terminal, r.o.Env)
	r.prog.Optional = progress.OptionalSteps(plan)
	if r.o.Stubs != nil {
		r.prog.Note(fmt.Sprintf("cairn: stubbed run: agent sessions and catalogue steps answered from %s", r.o.Stubs.File))
	}
	budget := 0.0
	if b := plan.Limits.BudgetUSD; b != nil {
		budget = b.Value
	}
	// A resumed run has spent what its steps' records say they used.
	r.purse = newPurse("budget", budget, record.StepsUsage(r.initial).Cost(), r.spendingParent())
	failed := false
	// A branch an earlier run left checked out is taken over only when
	// that run's folder is not locked.
	running := func(name string) bool {
		held, err := proc.Held(filepath.Join(record.RunsDir(r.o.Home), name, record.LockFile))
		return err != nil || held
	}
	patches := filepath.Join(r.folder.Dir, record.WorktreesDir)
	r.patches, r.lastUser = patches, lastUsers(plan)
	var wts *worktree.Worktrees
	var err error
	if r.resumed != nil {
		// Recorded before the worktrees exist: a resume killed before
		// their changes are back leaves a worktree no save trusts.
		err = worktree.BeginReopen(patches, plan.Worktrees)
	}
	if err == nil {
		order := byFirstUse(plan)
		if r.resumed != nil || r.issue != nil {
			// A resumed run's worktrees get their saved changes back, and
			// a run on an issue writes the issue into each, before the
			// first step.
			wts, err = worktree.Open(ctx, r.o.Repo, r.o.Home, r.folder.Name(), order, running)
		} else {
			wts, err = worktree.Start(ctx, r.o.Repo, r.o.Home, r.folder.Name(), order, running)
		}
	}
	if err == nil && r.resumed != nil {
		if err = wts.Reopen(ctx, recordedWorktrees(r.resumed), patches); err != nil {
			r.warn(wts.Close(context.WithoutCancel(ctx), patches))
			r.warnLeft(wts.Left())
		}
	}
	if err != nil {
		failed = true
		if ctx.Err() == nil {
			runErr = err
		}
		r.cancelAll()
	} else {
		r.wts = wts
		// The record lists them in plan order, whatever order they are
		// made in.
		all := map[string]worktree.Worktree{}
		for _, wt := range wts.All() {
			all[wt.Name] = wt
		}
		var opened []record.WorktreeRecord
		for _, p := range plan.Worktrees {
			if wt, ok := all[p.Name]; ok {
				opened = append(opened, record.WorktreeRecord{Name: wt.Name, Kind: wt.Kind, Path: wt.Path, Base: wt.Base})
			}
		}
		r.warn(r.folder.Update(func(rec *record.Record) { rec.Worktrees = opened }))
		if err := r.writeIssue(ctx); err != nil {
			failed, runErr = true, err
			r.cancelAll()
		} else {
			failed = r.walk(ctx)
		}
		if err := r.worktreeErr(); err != nil {
			failed = true
			if ctx.Err() == nil {
				runErr = err
			}
		}
	}
	status = record.StatusSucceeded
	steps := r.folder.Record().Steps
	inconclusive := InconclusiveSteps(steps)
	children := catalogue.InconclusiveChildren(plan.Process, r.folder.Dir, steps)
	switch {
	case ctx.Err() != nil:
		status = record.StatusInterrupted
	case failed:
		status = record.StatusFailed
	case len(inconclusive) > 0 || len(children) > 0:
		status = record.StatusInconclusive
	}
	if status == record.StatusSucceeded {
		r.wts.MarkSucceeded()
	}
	if err := r.wts.Close(context.WithoutCancel(ctx), patches); err != nil {
		status, runErr = r.failWith(status, runErr, err)
	}
	r.warnLeft(r.wts.Left())
	r.warn(r.groups.Err())
	r.prog.Close()
	for _, k := range r.wts.Kept() {
		r.o.say(fmt.Sprintf("cairn: %s", k))
	}
	r.releaseClaim(ctx)
	r.printResults()
	if status == record.StatusInconclusive {
		for _, s := range inconclusive {
			r.o.say(InconclusiveLine(plan.Process, s))
		}
		for _, l := range children {
			r.o.say(l)
		}
	}
	if status == record.StatusFailed && runErr == nil {
		if l := r.failedLine(steps); l != "" {
			r.o.say(l)
		}
	}

	if err := r.folder.Err(); err != nil {
		status, runErr = r.failWith(status, runErr, err)
	}
	if r.commits != nil {
		if err := r.commits.Err(); err != nil {
			status, runErr = r.failWith(status, runErr, err)
		}
	}
	end := time.Now().UTC()
	expires := expiry(plan, status, end)
	r.warn(r.folder.Update(func(rec *record.Record) {
		rec.Status, rec.End, rec.Expires, rec.Cause = status, &end, expires, causeOf(runErr)
	}))
	if r.commits != nil {
		r.warn(r.folder.Flush())
		committed, err := r.commits.finish(ctx, status)
		if err != nil {
			status, runErr = r.failWith(status, runErr, err)
		}
		if !committed {
			// Every step skipped (or none started): the run leaves
			// nothing behind (docs/design.md §7.6).
			r.warn(r.folder.Close())
			r.warn(removeRunFolder(r.o.Repo.Root, r.folder.Dir))
		}
	}
	if err := r.folder.Close(); err != nil {
		status, runErr = r.failWith(status, runErr, err)
	}
	r.warn(record.Activity(r.o.Home, "event=end", "run="+r.folder.Name(), "process="+plan.Process, "repo="+r.o.Repo.CommonDir, "status="+string(status)))
	if r.commits != nil && !r.commits.started {
		// A run that did nothing leaves nothing, and says nothing.
		return status, runErr
	}
	// ctx may be the one an interrupt ended; the notification of that
	// interrupt must still go out.
	if _, err := notify.Send(context.WithoutCancel(ctx), plan.Notify, notify.Notification{Process: plan.Process, Status: status, Run: r.folder.Dir, PullRequest: r.pullRequestURL(), Dir: r.o.Dir}, r.base, r.o.stderrText()); err != nil {
		r.o.say(fmt.Sprintf("cairn: %v", err))
	}
	return status, runErr
}

// setWorktreeErr keeps err, a worktree's that could not be made, as what
// ended the run; the first one kept stays.
func (r *run) setWorktreeErr(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.wtErr == nil {
		r.wtErr = err
	}
}

// worktreeErr is the error setWorktreeErr kept.
func (r *run) worktreeErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wtErr
}

// byFirstUse is the plan's worktrees in the order its stages first use
// them (those no step uses last), the order they are made in: a
// worktree only a later stage needs never holds up an earlier one.
func byFirstUse(plan *ir.Plan) []ir.PlanWorktree {
	first := map[string]int{}
	for i, stage := range plan.Stages {
		for _, st := range stage {
			if _, ok := first[st.Worktree]; !ok {
				first[st.Worktree] = i
			}
		}
	}
	rank := func(p ir.PlanWorktree) int {
		if i, ok := first[p.Name]; ok {
			return i
		}
		return len(plan.Stages)
	}
	order := slices.Clone(plan.Worktrees)
	slices.SortStableFunc(order, func(a, b ir.PlanWorktree) int { return cmp.Compare(rank(a), rank(b)) })
	return order
}

// warnLeft names, each in a warning, what the cleanup of the run's
// worktrees left because cairn did not make it (a file a step wrote in
// ../): it is not cairn's to delete, and the run ends as its steps did.
func (r *run) warnLeft(paths []string) {
	for _, p := range paths {
		r.warn(fmt.Errorf("left %s where it is: cairn did not make it", p))
	}
}

// failedLine is the one stderr line of a run that failed at a step
// (views.FailedLine). When a budget stopped that step and the run's budget
// (or a parent run's) is spent, its cause is that budget's with what the
// run really spent by its end: the steps of a parallel group that ran past
// it, each stopped with what was spent when it ended, spent more.
func (r *run) failedLine(steps []record.StepRecord) string {
	f := record.FailureOf(&record.Record{Steps: steps})
	r.mu.Lock()
	stopped := f != nil && r.budgetStopped[f.Step]
	r.mu.Unlock()
	if !stopped {
		return views.FailedLine(steps)
	}
	if err := r.purse.spentOver(); err != nil {
		steps = slices.Clone(steps)
		for i := range steps {
			if steps[i].Name == f.Step {
				steps[i].Cause = err.Error()
			}
		}
	}
	return views.FailedLine(steps)
}

// warn shows an error that does not change how the run ends (a record that
// could not be written, a worktree that could not be removed) on stderr,
// and tells it as a warning event.
func (r *run) warn(err error) {
	switch {
	case err == nil:
		return
	case r.prog != nil:
		// Through the progress, so that live lines stay whole.
		r.prog.Note(fmt.Sprintf("cairn: warning: %v", err))
	default:
		r.o.say(fmt.Sprintf("cairn: warning: %v", err))
	}
	r.folder.Tell(record.RunEvent{Type: record.EventWarning, Message: err.Error()})
}

// warnStep shows a warning about step on stderr, and tells it as a
// warning event.
func (r *run) warnStep(step, msg string) {
	r.prog.Note(fmt.Sprintf("warning: step %s: %s", step, msg))
	r.folder.Tell(record.RunEvent{Type: record.EventWarning, Step: step, Message: msg})
}

// tellEnd tells the run_end event of a run that began at began and ended
// with status and err: its exit code when o.ExitOf gives it, and what its
// steps used.
func (r *run) tellEnd(began time.Time, status record.Status, err error) {
	ms := time.Since(began).Milliseconds()
	ev := record.RunEvent{Type: record.EventRunEnd, Status: status, DurationMS: &ms, Cause: causeOf(err),
		Usage: record.UsageEvent(r.folder.Record().Usage)}
	if r.o.ExitOf != nil {
		code := r.o.ExitOf(status)
		ev.ExitCode = &code
	}
	r.folder.Tell(ev)
}

// eventLines writes each event it is given on w as one JSON line. A
// reader that went away does not stop the run: what cannot be written is
// dropped.
func eventLines(w io.Writer) func(record.RunEvent) {
	return func(ev record.RunEvent) {
		b, err := json.Marshal(ev)
		if err != nil {
			return
		}
		w.Write(append(b, '\n'))
	}
}

// say writes a line on o's stderr, escaped on a terminal (text.Escaped):
// it may hold what a program wrote, a step's cause among them.
func (o *Options) say(line string) {
	if o.Terminal {
		line = text.Escaped(line)
	}
	fmt.Fprintln(o.Stderr, line)
}

// stderrText is o's stderr for what a program cairn started wrote, escaped
// on a terminal (text.Escaped), each write on its own.
func (o *Options) stderrText() io.Writer {
	if !o.Terminal {
		return o.Stderr
	}
	return escapedWriter{o.Stderr}
}

// escapedWriter writes what it is given escaped (text.Escaped), each write
// whole: for text written in one piece.
type escapedWriter struct{ w io.Writer }

func (e escapedWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(e.w, text.Escaped(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// walk runs each step of the plan as soon as the steps it needs have
// ended (docs/design.md §7.3), at most --jobs at a time, and reports whether
// a required step failed. After the first failure, once a worktree could
// not be made, or once ctx is done, every step not started is cancelled.
func (r *run) walk(ctx context.Context) bool {
	d := ir.NewDAG(r.o.Plan)
	r.dag = d
	done := make([]bool, len(d.Steps))
	todo := map[int]int{} // by stage: its members still to run
	for i, st := range d.Steps {
		done[i] = r.done[st.Name]
		if !done[i] {
			todo[d.Stage[i]]++
		}
	}
	// The members of a parallel group that run share the budget: the
	// group's split is made as its first member starts.
	splits := map[int]*split{}
	stopped := false
	ok := func() bool {
		if err := r.wts.Err(); err != nil && !stopped {
			// A worktree that could not be made ends the run, as it
			// would have before its first step.
			r.setWorktreeErr(err)
			stopped = true
		}
		return !stopped
	}
	start := func(i int) func(context.Context) record.Outcome {
		var shares *split
		if k := d.Stage[i]; todo[k] > 1 {
			if splits[k] == nil {
				splits[k] = newSplit(r.purse, todo[k])
			}
			shares = splits[k]
		}
		return r.start(d.Steps[i], r.earlier(d, i), shares)
	}
	ended := func(int) { r.warn(r.folder.Snapshot()) }
	cancel := func(i int) { r.cancel(d.Steps[i]) }
	return schedule(ctx, d, done, r.o.Jobs, start, cancel, ok, ended)
}

// earlier are the results of the steps step i of d waits for, directly or
// not, that wrote one, in file order: what it is given of the steps before
// it.
func (r *run) earlier(d *ir.DAG, i int) []step.Earlier {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []step.Earlier
	for _, j := range d.Above[i] {
		name := d.Steps[j].Name
		if items, ok := r.items[name]; ok {
			// A step with for_each gives each item's result.
			out = append(out, items...)
		} else if r.wrote[name] {
			out = append(out, step.Earlier{Step: name, Path: r.resultFile(name)})
		}
	}
	return out
}

// schedule runs the steps of d, each as soon as the steps it needs have
// ended, in file order among those ready, at most jobs at a time (0: no
// bound), and reports whether a required step failed. done marks the
// steps that have ended already (those a resumed run keeps). start is
// called for each step as it starts and returns what runs it; ok is asked
// before steps start and stops the run when false; ended is told of each
// step's end. Once a required step has failed, ok says no, or ctx is done,
// nothing more starts: the steps running finish (or are stopped by ctx),
// then those never started are cancelled, in file order.
func schedule(ctx context.Context, d *ir.DAG, done []bool, jobs int, start func(int) func(context.Context) record.Outcome, cancel func(int), ok func() bool, ended func(int)) bool {
	const (
		waiting = iota
		running
		over
	)
	state := make([]int, len(d.Steps))
	for i := range state {
		if done[i] {
			state[i] = over
		}
	}
	ready := func(i int) bool {
		for _, j := range d.Needs[i] {
			if state[j] != over {
				return false
			}
		}
		return true
	}
	type end struct {
		i       int
		outcome record.Outcome
	}
	ends := make(chan end)
	n, failed, stopped := 0, false, false
	for {
		if !stopped && (failed || ctx.Err() != nil || !ok()) {
			stopped = true
		}
		for i := 0; !stopped && i < len(d.Steps) && (jobs <= 0 || n < jobs); i++ {
			if state[i] != waiting || !ready(i) {
				continue
			}
			run := start(i)
			state[i] = running
			n++
			go func() { ends <- end{i, run(ctx)} }()
		}
		if n == 0 {
			break
		}
		e := <-ends
		n--
		state[e.i] = over
		if e.outcome == record.Failed && !d.Steps[e.i].Optional {
			failed = true
		}
		ended(e.i)
	}
	for i := range state {
		if state[i] == waiting {
			cancel(i)
		}
	}
	return failed
}

// resultFile is the absolute path of a step's result, results/STEP.md.
func (r *run) resultFile(step string) string {
	return filepath.Join(r.folder.Dir, record.ResultsDir, step+".md")
}

// cancelAll records every step of the plan that has not run as
// cancelled: the run could not start its steps.
func (r *run) cancelAll() {
	for _, stage := range r.o.Plan.Stages {
		r.cancelStage(stage)
	}
}

// cancelStage records the steps of stage as cancelled, but for those a
// resumed run keeps.
func (r *run) cancelStage(stage []ir.PlanStep) {
	for i := range stage {
		if !r.done[stage[i].Name] {
			r.cancel(&stage[i])
		}
	}
}

// cancel records a step that never started as cancelled.
func (r *run) cancel(st *ir.PlanStep) {
	sr := r.initial[r.index[st.Name]].Clone()
	sr.Outcome = record.Cancelled
	r.record(sr)
	r.prog.End(st.Name, record.Cancelled, 0, "")
}

// record writes a step's record and, once it has ended, its log line.
func (r *run) record(sr record.StepRecord) {
	i := r.index[sr.Name]
	r.warn(r.folder.Update(func(rec *record.Record) {
		if i < len(rec.Steps) {
			rec.Steps[i] = sr
		}
	}))
	if sr.Ended() {
		r.warn(r.folder.LogStep(&sr, r.o.Stubs != nil))
	}
}

// stepIn runs started step st in its worktree, once that is ready and
// readied, and returns how it ended; sr is its record, which the run of
// its actions adds to.
func (r *run) stepIn(ctx context.Context, st *ir.PlanStep, sc *step.Context, sr *record.StepRecord, budget *purse) stepEnd {
	var e stepEnd
	// The step's worktree may still be in the making (worktree.Start).
	wt, wtErr := r.wts.Ready(ctx, st.Worktree)
	if wtErr != nil && ctx.Err() == nil {
		r.setWorktreeErr(r.wts.Err())
	}
	timeout, err := stepTimeout(st)
	switch {
	case wtErr != nil:
		e = stepEnd{outcome: record.Failed, exitCode: -1, cause: wtErr.Error()}
	case err != nil:
		e = stepEnd{outcome: record.Failed, exitCode: -1, cause: err.Error()}
	default:
		if p := r.prepare(ctx, wt); p.cause != "" {
			// Its worktree could not be readied: the step does not run.
			e = stepEnd{outcome: record.Failed, exitCode: -1, cause: p.cause}
			if len(p.tail) > 0 {
				e.result, e.wrote = strings.Join(p.tail, "\n")+"\n", true
				r.prog.Attach(st.Name, p.tail)
			}
			break
		}
		sc.Timeout = timeout
		sc.Worktree, sc.WorktreeKind, sc.Branch = wt.Path, wt.Kind, wt.Branch
		if r.issue != nil {
			sc.IssueURL, sc.Guard = r.issue.URL, r.issue.CheckEdits
		}
		if hasJudge(st) {
			// Only a judge reads the step's diff since its baseline;
			// finding it costs a git call, too much for every step.
			sc.Baseline = sr.Baseline
			if sc.Baseline == "" || wt.Kind == ir.Throwaway {
				// A throwaway starts again from its base: what an
				// earlier attempt did there is uncommitted again.
				sc.Baseline = r.o.Repo.Git.Head(ctx, wt.Path)
			}
			sr.Baseline = sc.Baseline
		}
		sc.Env = step.Env(r.base, sc, filepath.Join(r.folder.Dir, record.ResultsDir), st.Env)
		if sc.Env, err = r.outputEnv(sc, sc.Env); err != nil {
			e = stepEnd{outcome: record.Failed, exitCode: -1, cause: err.Error()}
			break
		}
		r.wts.Worked(st.Worktree)
		spending := newStepSpending(st, sr, budget)
		spending.warn = r.warn
		sc.Meter = spending.meter(false)
		e = r.execute(ctx, sc, wt, sr)
		usage, judges, stopped := spending.result()
		children, err := childrenUsage(r.folder.Dir, sr.Children)
		r.warn(err)
		sr.Usage, sr.JudgeUsage = usage.Plus(children), judges
		if stopped != nil && e.outcome == record.Failed {
			// Whatever failed with it (a judge, a review retry, a
			// repair), the budget stopped the step.
			e.cause = stopped.Error()
			r.mu.Lock()
			if r.budgetStopped == nil {
				r.budgetStopped = map[string]bool{}
			}
			r.budgetStopped[st.Name] = true
			r.mu.Unlock()
		}
	}
	return e
}

// stepEnd is how a step's phases ended.
type stepEnd struct {
	outcome  record.Outcome
	cause    string
	exitCode int
	// result is the step's result; wrote is set when an action ran, so
	// that the result (even empty) is written.
	result string
	wrote  bool
	trace  string
	// session is the CLI's id of the step's last agent session, which a
	// review retry resumes (docs/design.md §7.2); "" when it printed none.
	session string
}

// start records a step as running and shows it, and returns what runs it.
// A member of a parallel group is given its share of the budget (shares,
// nil for a step that runs alone) as it starts, and gives back what it
// left of it as it ends.
func (r *run) start(st *ir.PlanStep, earlier []step.Earlier, shares *split) func(context.Context) record.Outcome {
	sr := r.initial[r.index[st.Name]].Clone()
	start := time.Now().UTC()
	sr.Outcome, sr.Start = record.Running, &start
	r.record(sr.Clone())
	r.folder.StepStarted(&sr, r.o.Stubs != nil)
	r.prog.Start(st.Name, views.DescribeStep(st))
	if shares == nil {
		return func(ctx context.Context) record.Outcome { return r.step(ctx, st, earlier, sr, start, r.purse) }
	}
	share := shares.share()
	return func(ctx context.Context) record.Outcome {
		defer shares.end(share)
		return r.step(ctx, st, earlier, sr, start, share)
	}
}

// step runs one started step in its worktree, records it (its record, its
// log line, its result file), shows its end, and returns its outcome. Its
// sessions spend under budget: the run's purse, or the step's share of it.
func (r *run) step(ctx context.Context, st *ir.PlanStep, earlier []step.Earlier, sr record.StepRecord, start time.Time, budget *purse) record.Outcome {
	ctx, span := tracing.Step(ctx, st.Name)
	sc := &step.Context{
		RunDir:     r.folder.Dir,
		ResultFile: r.resultFile(st.Name),
		TraceFile:  filepath.Join(r.folder.Dir, record.TracesDir, st.Name+".jsonl"),
		Step:       st,
		Earlier:    earlier,
		Directive:  r.o.Directive,
		Start:      start,
		Groups:     r.groups,
		Outputs:    r.o.Plan.HasOutputs(),
		Git:        r.o.Repo.Git,
	}
	if r.o.Stubs != nil {
		sc.Agent = r.o.Stubs.Step(st.Name)
	}
	var e stepEnd
	if st.ForEach != "" {
		e = r.forEach(ctx, st, sc, &sr, budget)
	} else if skip, ok := r.when(st, nil); !ok {
		// Its when is false, or cannot be evaluated: the step does not
		// run, and its worktree is not waited for.
		e = skip
	} else {
		e = r.stepIn(ctx, st, sc, &sr, budget)
	}
	if r.keep(ctx, sc.ResultFile, fmt.Sprintf("step %q", st.Name), &e, &sr) {
		r.mu.Lock()
		r.wrote[st.Name] = true
		r.mu.Unlock()
	}
	end := time.Now().UTC()
	sr.Outcome, sr.End, sr.ExitCode, sr.Cause = e.outcome, &end, e.exitCode, e.cause
	r.record(sr)
	span.SetUsage(sr.Usage.Plus(sr.JudgeUsage))
	span.End(string(e.outcome), e.cause)
	r.complete(ctx, st, &sr)
	r.prog.End(st.Name, e.outcome, end.Sub(start), e.cause)
	if r.lastUser[st.Worktree] == st.Name && ctx.Err() == nil {
		// No later step works in it: its changes are saved and it is
		// removed while the others run.
		r.wts.Release(context.WithoutCancel(ctx), st.Worktree, r.patches)
	}
	return e.outcome
}

// keep ends what ran of a step, or of an item (what, as its errors name
// it), as e says: a failure once ctx has ended is an interruption; its
// result, when an action ran, is written to file, whole or not at all and
// owner-only even when the step wrote the file itself, and sr records it
// and its trace, both relative to the run folder. A result that could not
// be written fails a step that had not failed. keep reports whether the
// result was written.
func (r *run) keep(ctx context.Context, file, what string, e *stepEnd, sr *record.StepRecord) bool {
	if ctx.Err() != nil && e.outcome == record.Failed {
		// The step was stopped, not refuted.
		e.outcome, e.cause = record.Interrupted, ""
	}
	wrote := false
	if e.wrote {
		if err := atomicfile.Write(file, []byte(e.result)); err != nil {
			err = fmt.Errorf("write the result of %s: %w", what, err)
			if e.outcome == record.Failed || e.outcome == record.Interrupted {
				r.warn(err)
			} else {
				// A result cut short must not pass for the step's.
				e.outcome, e.exitCode, e.cause = record.Failed, -1, err.Error()
			}
		} else if rel, err := filepath.Rel(r.folder.Dir, file); err == nil {
			sr.Result, wrote = filepath.ToSlash(rel), true
		}
	}
	if e.trace != "" {
		if rel, err := filepath.Rel(r.folder.Dir, e.trace); err == nil && !strings.HasPrefix(rel, "..") {
			sr.Trace = rel
		} else {
			sr.Trace = e.trace
		}
	}
	return wrote
}

// lastUsers maps each worktree of plan to the last step, in file order,
// that uses it.
func lastUsers(plan *ir.Plan) map[string]string {
	last := map[string]string{}
	for _, stage := range plan.Stages {
		for _, st := range stage {
			last[st.Worktree] = st.Name
		}
	}
	return last
}

// InconclusiveSteps returns the steps whose validate phase was inconclusive (a
// judge that reached no verdict, docs/design.md §7.2), in order.
func InconclusiveSteps(steps []record.StepRecord) []*record.StepRecord {
	var out []*record.StepRecord
	for i := range steps {
		if v := steps[i].Validate; v != nil && v.Status == record.VerdictInconclusive {
			out = append(out, &steps[i])
		}
	}
	return out
}

// InconclusiveLine is the one stderr line of an inconclusive step (docs/design.md §7.2):
// "cairn: inconclusive: process X — review of step Y reached no verdict
// (max-turns: …); the work is done and nothing judged it".
func InconclusiveLine(process string, s *record.StepRecord) string {
	why := s.Validate.Reason
	if s.Validate.Error != "" {
		why += ": " + s.Validate.Error
	}
	return fmt.Sprintf("cairn: inconclusive: process %s — review of step %s reached no verdict (%s); the work is done and nothing judged it", process, s.Name, why)
}

// stepTimeout is the step's timeout; zero when it has none.
func stepTimeout(st *ir.PlanStep) (time.Duration, error) {
	if st.Timeout == "" {
		return 0, nil
	}
	d, err := ir.ParseDuration(st.Timeout)
	if err != nil {
		return 0, fmt.Errorf("timeout: %w", err)
	}
	return d, nil
}

// execute runs a step's phases (docs/design.md §7.2): its precheck shells, its actions in
// order, then its validate phase. sr's action records get each action's
// exit code and cause. Between the run phase and validation, settle brings
// the worktree to a clean, recorded state (docs/design.md §7.6).
func (r *run) execute(ctx context.Context, sc *step.Context, wt worktree.Worktree, sr *record.StepRecord) stepEnd {
	st := sc.Step
	if e, done := r.precheck(ctx, sc, sr); done {
		return e
	}
	if r.commits != nil {
		// The step does something: the run starts in git before its
		// work, so that its commits follow `Start process`.
		r.warn(r.folder.Flush())
		if err := r.commits.start(ctx); err != nil {
			return stepEnd{outcome: record.Failed, exitCode: -1, cause: err.Error()}
		}
	}
	e := r.takeOutput(sc, r.work(ctx, sc, wt, sr), sr)
	if err := r.settle(ctx, sc, wt, sr, e.outcome != record.Failed); err != nil && e.outcome != record.Failed {
		e.outcome, e.exitCode, e.cause = record.Failed, -1, err.Error()
	}
	if e.outcome == record.Failed {
		return e
	}
	if st.Validate == nil {
		e.outcome = record.Succeeded
		return e
	}
	return r.validate(ctx, sc, wt, sr, e)
}

// work runs the run phase: the step's actions in order, until one fails.
// Its outcome is Failed then, else empty (the validate phase decides).
func (r *run) work(ctx context.Context, sc *step.Context, wt worktree.Worktree, sr *record.StepRecord) stepEnd {
	var e stepEnd
	for j := range sc.Step.Actions {
		a := &sc.Step.Actions[j]
		res := r.action(ctx, sc, wt, a)
		if j < len(sr.Actions) {
			sr.Actions[j].ExitCode, sr.Actions[j].Cause = res.ExitCode, res.Cause
			if a.Kind == ir.Command && res.Failed {
				sr.Actions[j].Lines, sr.Actions[j].Tail, sr.Actions[j].Output = res.Lines, res.Tail, res.OutputIsResult
				if ctx.Err() == nil {
					r.prog.Attach(sc.Step.Name, views.ShellLines(views.FailedAction(sc.RunDir, sr, j)))
				}
			}
		}
		e.result, e.wrote, e.exitCode = res.Result, true, res.ExitCode
		if res.Cause != "" {
			// A succeeded action may say why it did less (a held
			// self-merge): the step's log line keeps it.
			e.cause = res.Cause
		}
		if res.Trace != "" {
			e.trace = res.Trace
		}
		if res.Session.ID != "" {
			e.session = res.Session.ID
		}
		if a.Kind == ir.Catalogue {
			r.keepChildren(sr)
		}
		if res.Failed {
			e.outcome, e.cause = record.Failed, res.Cause
			return e
		}
	}
	return e
}

// settle brings a step's worktree to a recorded state after its run phase
// (and after each review retry): in commit mode, what the step left
// uncommitted is committed and sr.GitRef is the commit its work ended at
// (docs/design.md §7.6). Outside commit mode, what an agent left on an issue branch is
// committed there, for delivery to push: headless agents seldom commit; so
// is what a command left when its run phase ended well (ok): scripts (a
// formatter, a code generator) rarely commit, and a failed one's leftovers
// stay uncommitted for a resume to run it again over them.
func (r *run) settle(ctx context.Context, sc *step.Context, wt worktree.Worktree, sr *record.StepRecord, ok bool) error {
	if r.commits == nil && wt.Kind == ir.IssueBranch && (hasSession(sc.Step) || ok && edits(sc.Step)) {
		left := worktree.Commit{Subject: step.SaveWorkSubject(sc.Step.Name), Trailers: step.Trailers(r.folder.Name(), sc.Step.Name, r.o.Stubs != nil), Work: true, Exclude: r.excluded(wt.Name)}
		if _, err := left.Make(ctx, r.o.Repo.Git, wt.Path); err != nil {
			return fmt.Errorf("commit the work of step %q on its branch: %w", sc.Step.Name, err)
		}
		sr.GitRef = r.o.Repo.Git.Head(context.WithoutCancel(ctx), wt.Path)
		return nil
	}
	if r.commits == nil || !r.commitsIn(wt) || !hasSession(sc.Step) {
		// A step with no agent session commits its work with its
		// record, in one commit (docs/design.md §7.6).
		return nil
	}
	ref, err := r.commits.saveWork(ctx, wt.Path, sc.Step.Name)
	if err != nil {
		return err
	}
	sr.GitRef = ref
	return nil
}

// hasJudge reports whether st's validate phase has instructions for a judge.
func hasJudge(st *ir.PlanStep) bool {
	return st.Validate != nil && len(st.Validate.Instructions) > 0
}

// commitsIn reports whether a commit-mode run commits the work of steps in
// wt (docs/design.md §7.6): the repository's own tree, and issue branches.
func (r *run) commitsIn(wt worktree.Worktree) bool {
	return wt.Path == r.commits.tree || wt.Kind == ir.IssueBranch
}

// edits reports whether st may leave work in its worktree: it runs an agent
// session or a command (a catalogue step does its own git).
func edits(st *ir.PlanStep) bool {
	for _, a := range st.Actions {
		if a.Kind == ir.Session || a.Kind == ir.Command {
			return true
		}
	}
	return false
}

// hasSession reports whether st runs an agent session.
func hasSession(st *ir.PlanStep) bool {
	for _, a := range st.Actions {
		if a.Kind == ir.Session {
			return true
		}
	}
	return false
}

// complete commits a step that did something in a commit-mode run: its
// record, and what it left in the committing tree (docs/design.md §7.6). A step with no
// agent session has its git ref set to that commit, carried by the next.
func (r *run) complete(ctx context.Context, st *ir.PlanStep, sr *record.StepRecord) {
	if r.commits == nil || sr.Outcome == record.Skipped || sr.Outcome == record.Cancelled {
		return
	}
	wt, ok := r.wts.Get(st.Worktree)
	inTree := ok && wt.Path == r.commits.tree
	if ok && !inTree && r.commitsIn(wt) {
		// An issue branch: the step's work ends in a commit of its own
		// there, and the record's in the repository's tree.
		ref, err := r.commits.saveWork(ctx, wt.Path, st.Name)
		r.warn(err)
		r.setGitRef(sr, ref)
	}
	r.warn(r.folder.Flush())
	if err := r.commits.completeStep(ctx, st.Name, sr.Outcome, inTree); err != nil {
		r.warn(err)
		return
	}
	if inTree && sr.GitRef == "" {
		r.setGitRef(sr, r.o.Repo.Git.Head(context.WithoutCancel(ctx), r.commits.tree))
	}
}

// setGitRef records ref as the commit sr's work ended at, after the step's
// record was written: the next commit of the run folder carries it.
func (r *run) setGitRef(sr *record.StepRecord, ref string) {
	if ref == "" || ref == sr.GitRef {
		return
	}
	sr.GitRef = ref
	i := r.index[sr.Name]
	r.warn(r.folder.Update(func(rec *record.Record) {
		if i < len(rec.Steps) {
			rec.Steps[i].GitRef = ref
		}
	}))
}

// skipCause says why a precheck skipped its step: its whys, else the first
// line its shell printed, else that it exited $CHECK_SKIP.
func skipCause(pre *ir.PlanPhase, output []byte) string {
	if len(pre.Whys) > 0 {
		return strings.Join(pre.Whys, "; ")
	}
	for line := range strings.Lines(string(output)) {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return fmt.Sprintf("precheck exited %d", step.SkipCode)
}

// action runs one action of a step.
func (r *run) action(ctx context.Context, sc *step.Context, wt worktree.Worktree, a *ir.PlanAction) step.Result {
	switch a.Kind {
	case ir.Command:
		if sa, ok := sc.Agent.(*stubs.Step); ok {
			if res, ok := sa.Command(); ok {
				return res
			}
		}
		return step.RunCommand(ctx, sc, a.Command)
	case ir.Session:
		return r.session(ctx, sc, wt, a)
	case ir.Catalogue:
		return r.catalogue(ctx, sc, wt, a)
	}
	return step.Result{Failed: true, ExitCode: -1, Cause: fmt.Sprintf("unknown action kind %q", a.Kind)}
}

// session runs a session action: it waits for the machine's resources,
// puts the skill where the agent can read it, and starts the harness.
func (r *run) session(ctx context.Context, sc *step.Context, wt worktree.Worktree, a *ir.PlanAction) step.Result {
	h, skill, err := r.prepareSession(ctx, sc, wt, a)
	if err != nil {
		return step.Failed("%v", err)
	}
	return step.RunSession(ctx, sc, a, h, skill)
}

// prepareSession readies a session of a in the step's worktree wt: it
// finds a's harness, waits for the machine's resources, and puts a's skill
// where the agent can read it, returning its path.
func (r *run) prepareSession(ctx context.Context, sc *step.Context, wt worktree.Worktree, a *ir.PlanAction) (*harness.Harness, string, error) {
	if a.Harness == nil {
		return nil, "", errors.New("the session has no harness")
	}
	h, ok := r.o.Harnesses.Lookup(a.Harness.Value)
	if !ok {
		return nil, "", fmt.Errorf("unknown harness %q", a.Harness.Value)
	}
	if err := r.waitMachine(ctx, sc.Step.Name); err != nil {
		return nil, "", err
	}
	skill, err := r.skillPath(ctx, wt, a.Skill)
	if err != nil {
		return nil, "", err
	}
	return h, skill, nil
}

// skillPath is the path of the SKILL.md a session reads: a repository skill
// where the worktree has it; a home or built-in one copied into the
// worktree (InstallSkill). "" for a session with an inline prompt.
func (r *run) skillPath(ctx context.Context, wt worktree.Worktree, s *ir.PlanSkill) (string, error) {
	if s == nil {
		return "", nil
	}
	var body []byte
	switch s.Source {
	case ir.SkillRepo:
		return filepath.Join(wt.Path, filepath.FromSlash(s.Path)), nil
	case ir.SkillHome:
		b, err := os.ReadFile(s.Path)
		if err != nil {
			return "", fmt.Errorf("read skill %q: %w", s.Name, err)
		}
		body = b
	case ir.SkillBuiltin:
		b, ok := skills.Get(strings.TrimPrefix(s.Path, "builtin:"))
		if !ok {
			return "", fmt.Errorf("cairn has no built-in skill %q", s.Name)
		}
		body = b
	default:
		return "", fmt.Errorf("skill %q: unknown source %q", s.Name, s.Source)
	}
	return worktree.InstallSkill(ctx, r.o.Repo.Git, wt, s.Name, body)
}

// printResults writes the last stage's results on stdout, in file order,
// each ending with a newline, escaped on a terminal (text.Escaped).
func (r *run) printResults() {
	stages := r.o.Plan.Stages
	if len(stages) == 0 {
		return
	}
	for _, st := range stages[len(stages)-1] {
		b, err := os.ReadFile(r.resultFile(st.Name))
		if err != nil || len(b) == 0 {
			continue
		}
		if b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		if r.o.StdoutTerminal {
			b = []byte(text.Escaped(string(b)))
		}
		r.o.Stdout.Write(b)
	}
}

// expiry is the `expires` of a run that ended with status at end (docs/design.md §7.7):
// end plus the plan's run_expiry when it succeeded, its failed_run_expiry
// otherwise; "never" stays "never".
func expiry(plan *ir.Plan, status record.Status, end time.Time) string {
	s, def := plan.FailedRunExpiry, ir.DefaultFailedRunExpiry
	if status == record.StatusSucceeded {
		s, def = plan.RunExpiry, ir.DefaultRunExpiry
	}
	if s == ir.Never {
		return ir.Never
	}
	d, err := ir.ParseDuration(s)
	if err != nil {
		d, _ = ir.ParseDuration(def)
	}
	return end.Add(d).Format(time.RFC3339)
}

// waitMachine holds a session of step back while the machine is busy
// (machine.Wait): the progress says what it waits for, and warns when it
// starts the session anyway. It fails only when ctx ends.
func (r *run) waitMachine(ctx context.Context, step string) error {
	return machine.Wait(ctx, r.o.Plan.Resources,
		func(msg string) { r.prog.Note(fmt.Sprintf("%s: %s", step, msg)) },
		func(msg string) { r.warnStep(step, msg) })
}
