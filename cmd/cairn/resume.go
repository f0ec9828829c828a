package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/runtime"
)

// resumeCmd is `cairn resume`.
type resumeCmd struct {
	Target string `arg:"" optional:"" name:"run" help:"${run_help}"`
	// Directive is nil without --directive.
	Directive *string `placeholder:"TEXT" help:"Replace the run's directive with TEXT (default: the one it was started with)."`
	Access    *string `placeholder:"A" enum:"${accesses}" help:"Tighten every session's access to at most A (read, write or full), below the --access the run was started with; it raises none."`
	Budget    string  `placeholder:"USD" help:"Tighten the run's budget to USD US dollars, below the --budget the run was started with; it raises none."`
	JSON      bool    `name:"json" help:"${events_help}"`
}

// Run resumes a run as runtime.PrepareResume decides (docs/design.md
// §7.7): a succeeded run has nothing to resume (exit 0); an inconclusive
// one is done, and nothing judges it again (exit 3); a failed, interrupted
// or crashed run goes on in its folder once its process file is checked
// again, unchanged, and the record keeps the flags it goes on with.
func (c *resumeCmd) Run(a *app) error {
	defer traced(a)()
	outliveReaders()
	budget, err := budgetFlag(c.Budget)
	if err != nil {
		return err
	}
	dir, err := findRun(a, c.Target)
	if err != nil {
		return err
	}
	res, err := runtime.PrepareResume(a.ctx, runtime.ResumeRequest{Dir: dir, WorkDir: workdir.Path(a.dir, "."), Git: git.New(a.env),
		Access: orEmpty(c.Access), Budget: budget, Directive: c.Directive, Stderr: a.stderr})
	if err != nil {
		return err
	}
	for _, l := range res.Lines {
		fmt.Fprintln(a.stderr, l)
	}
	rec, name, f := res.Record, res.Name, res.Flags
	if res.Done {
		// Not an error: the exit code stays the run's.
		return ended(a, rec.Status, nil)
	}
	flags := check.Flags{Harness: f.Harness, Model: f.Model, Effort: f.Effort, Access: f.Access, Merge: f.Merge, RepairCap: f.RepairCap, Protect: f.Protect, Budget: f.Budget}
	ctx, stop := interrupts(a.ctx)
	defer stop()
	// A stubbed run is answered again from the stubs it kept.
	rn, err := prepare(ctx, a, rec.File, rec.Issue, load.Options{Flags: flags, NoPreflight: rec.Stubbed, Env: a.env}, "nothing was resumed")
	if err != nil {
		return err
	}
	o, err := runOptions(ctx, a, rn, flags, c.JSON)
	if err != nil {
		return err
	}
	if rec.Stubbed {
		kept := filepath.Join(dir, record.StubsFile)
		if o.Stubs, err = readStubs(a, kept, kept, rn.Plan, rn.Repo.Root, "nothing was resumed"); err != nil {
			return err
		}
	}
	// A run on an issue holds the issue's Claim instead of the Pass.
	if rec.Issue == "" {
		l, holder, err := runtime.AcquirePass(o.Home, rn.Repo.CommonDir)
		if err != nil {
			return err
		}
		if holder != nil {
			return fmt.Errorf("another pass is running on this repository (pid %d%s); resume %s once it ends", holder.PID, runName(holder.Run), name)
		}
		defer l.Release()
		o.Pass = l
	}
	o.Source, o.Directive, o.Jobs, o.Flags = res.Source, res.Directive, f.Jobs, f
	fmt.Fprintf(a.stderr, "cairn: resuming run %s\n", name)
	status, err := runtime.Resume(ctx, dir, o)
	if errors.Is(err, record.ErrRunning) {
		return fmt.Errorf("run %s is running; stop it first (cairn stop %s)", name, name)
	}
	return ended(a, status, err)
}

// runName words the run a Pass holder named, for a message: ", run X".
func runName(run string) string {
	if run == "" {
		return ""
	}
	return ", run " + run
}
