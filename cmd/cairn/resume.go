package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/cairn-dev/cairn/catalogue"
	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/runtime"
	"github.com/cairn-dev/cairn/stubs"
)

// resumeCmd is `cairn resume`.
type resumeCmd struct {
	Target string `arg:"" optional:"" name:"run" help:"${run_help}"`
	// Directive is nil without --directive.
	Directive *string `placeholder:"TEXT" help:"Replace the run's directive with TEXT (default: the one it was started with)."`
	Access    *string `placeholder:"A" enum:"${accesses}" help:"Tighten every session's access to at most A (read, write or full), below the --access the run was started with; it raises none."`
	Budget    string  `placeholder:"USD" help:"Tighten the run's budget to USD US dollars, below the --budget the run was started with; it raises none."`
}

// Run resumes a run (docs/design.md §7.7): a succeeded run has nothing to resume (exit 0);
// an inconclusive one is done, and nothing judges it again (exit 3); a
// failed, interrupted or crashed run goes on in its folder with the flags
// it was started with, once its process file is checked again, unchanged;
// --access and --budget may tighten the run's, and the record keeps the
// tighter ones.
// What a crashed run left running is ended first, whatever follows.
func (c *resumeCmd) Run(a *app) error {
	outliveReaders()
	budget, err := budgetFlag(c.Budget)
	if err != nil {
		return err
	}
	dir, err := findRun(a, c.Target)
	if err != nil {
		return err
	}
	name := filepath.Base(dir)
	rec, err := record.Load(dir)
	if err != nil {
		return err
	}
	if rec.Status == record.StatusCrashed {
		endOrphans(a, name, dir)
	}
	switch rec.Status {
	case record.StatusSucceeded:
		fmt.Fprintf(a.stderr, "cairn: run %s succeeded; nothing to resume\n", name)
		return nil
	case record.StatusInconclusive:
		// Not an error: the run's own lines say why it is inconclusive,
		// under one saying that resume does nothing, as for a succeeded
		// run; the exit code stays the run's.
		fmt.Fprintf(a.stderr, "cairn: run %s is inconclusive; nothing to resume: its work is done, and resume judges nothing again\n", name)
		for _, s := range runtime.InconclusiveSteps(rec.Steps) {
			fmt.Fprintln(a.stderr, runtime.InconclusiveLine(rec.Process, s))
		}
		for _, l := range catalogue.InconclusiveChildren(rec.Process, dir, rec.Steps) {
			fmt.Fprintln(a.stderr, l)
		}
		return &exitError{code: exitInconclusive}
	}
	if !runtime.Resumable(rec) {
		return fmt.Errorf("run %s is %s; only failed, interrupted and crashed runs resume", name, rec.Status)
	}
	repo, err := git.Discover(a.ctx, git.New(a.env), workdir.Path(a.dir, "."))
	if err != nil {
		return err
	}
	if rec.Repo != "" && rec.Repo != repo.CommonDir {
		return fmt.Errorf("run %s ran in the repository at %s; resume it there (cairn -C DIR resume)", name, rec.Repo)
	}
	src, err := source.ReadFile(rec.File, repo.Root)
	if err != nil {
		return fmt.Errorf("run %s: read its process file: %w", name, err)
	}
	if sum := sha256.Sum256(src); hex.EncodeToString(sum[:]) != rec.SHA256 {
		return fmt.Errorf("run %s: its process file %s changed since the run started; nothing was resumed (start a new run with cairn run)", name, rec.File)
	}

	f := rec.Flags
	f.Access = tighterAccess(f.Access, orEmpty(c.Access))
	f.Budget = tighterBudget(f.Budget, budget)
	flags := check.Flags{Harness: f.Harness, Model: f.Model, Effort: f.Effort, Access: f.Access, Merge: f.Merge, RepairCap: f.RepairCap, Protect: f.Protect, Budget: f.Budget}
	ctx, stop := interrupts(a.ctx)
	defer stop()
	// A stubbed run is answered again from the stubs it kept.
	rn, err := prepare(ctx, a, rec.File, rec.Issue, load.Options{Flags: flags, NoPreflight: rec.Stubbed, Env: a.env}, "nothing was resumed")
	if err != nil {
		return err
	}
	var answers *stubs.Stubs
	if rec.Stubbed {
		kept := filepath.Join(dir, record.StubsFile)
		if answers, err = readStubs(a, kept, kept, rn.Plan, rn.Repo.Root, "nothing was resumed"); err != nil {
			return err
		}
	}
	home, err := filepath.Abs(rn.Home)
	if err != nil {
		return err
	}
	// A run on an issue holds the issue's Claim instead of the Pass.
	var lock *runtime.PassLock
	if rec.Issue == "" {
		l, holder, err := runtime.AcquirePass(home, rn.Repo.CommonDir)
		if err != nil {
			return err
		}
		if holder != nil {
			return fmt.Errorf("another pass is running on this repository (pid %d%s); resume %s once it ends", holder.PID, runName(holder.Run), name)
		}
		defer l.Release()
		lock = l
	}

	directive := rec.Directive
	if c.Directive != nil {
		directive = *c.Directive
	}
	fmt.Fprintf(a.stderr, "cairn: resuming run %s\n", name)
	status, err := runtime.Resume(ctx, dir, runtime.Options{
		Dir:            a.dir,
		Home:           home,
		Repo:           rn.Repo,
		Env:            a.env,
		Harnesses:      rn.Harnesses,
		Plan:           rn.Plan,
		Source:         src,
		Directive:      directive,
		Jobs:           f.Jobs,
		Flags:          f,
		Pass:           lock,
		Stdout:         a.stdout,
		Stderr:         a.stderr,
		Terminal:       terminal(a.stderr),
		StdoutTerminal: terminal(a.stdout),
		Prepare:        prepareChild(ctx, a, flags),
		Stubs:          answers,
	})
	if errors.Is(err, record.ErrRunning) {
		return fmt.Errorf("run %s is running; stop it first (cairn stop %s)", name, name)
	}
	code := exitOf(status)
	if code == exitInterrupted && err == nil {
		fmt.Fprintln(a.stderr, "cairn: interrupted")
	}
	if code == exitOK && err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
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

// runName words the run a Pass holder named, for a message: ", run X".
func runName(run string) string {
	if run == "" {
		return ""
	}
	return ", run " + run
}
