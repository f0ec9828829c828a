package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/runtime"
	"github.com/cairn-dev/cairn/views"
)

// runCmd is `cairn run`.
type runCmd struct {
	Args  []string `arg:"" name:"name|file" predictor:"process" help:"The process to run: a name looked up in $CAIRN_HOME/processes and the config's process_path, or a file path. End with \"issue ISSUE\" to run it on an issue."`
	Issue string   `placeholder:"ISSUE" help:"The issue to run on: a number or an issue URL (also written as \"issue ISSUE\" after the process)."`
	planFlags
	Directive string `placeholder:"TEXT" help:"Give every session's prompt the directive TEXT, which commands see as $CAIRN_DIRECTIVE."`
	Jobs      int    `placeholder:"N" help:"Run at most N steps of a parallel group at once (default: all)."`
	TakeOver  bool   `help:"Replace another run's stale claim on the issue."`
	Stubs     string `placeholder:"FILE" predictor:"file" help:"Answer every agent session and catalogue step from the stubs in FILE (a stubbed run: no agent CLI starts, nothing is delivered or merged)."`
	JSON      bool   `name:"json" help:"${events_help}"`
}

// Run checks the process as `cairn check` does, takes the repository's Pass
// (skipping quietly when another holds it), and runs the plan. SIGINT and
// SIGTERM stop the run cleanly: it ends interrupted, exit 130. A reader of
// its output that goes away does not stop it.
func (c *runCmd) Run(a *app) error {
	outliveReaders()
	defer traced(a)()
	target, issue, err := c.split()
	if err != nil {
		return err
	}
	if c.Jobs < 0 {
		return usageError("--jobs %d: want 0 (all at once) or more", c.Jobs)
	}
	flags, err := c.checkFlags()
	if err != nil {
		return err
	}
	stubsPath := ""
	if c.Stubs != "" {
		stubsPath = workdir.Path(a.dir, c.Stubs)
		if err := statFile("--stubs", c.Stubs, stubsPath); err != nil {
			return err
		}
	}
	ctx, stop := interrupts(a.ctx)
	defer stop()
	// A stubbed run starts no agent CLI: no harness is asked whether it
	// can start.
	rn, err := prepare(ctx, a, target, issue, load.Options{Flags: flags, NoPreflight: stubsPath != "", Env: a.env}, "nothing ran")
	if err != nil {
		return err
	}
	o, err := runOptions(ctx, a, rn, flags, c.JSON)
	if err != nil {
		return err
	}
	if stubsPath != "" {
		if o.Stubs, err = readStubs(a, c.Stubs, stubsPath, rn.Plan, rn.Repo.Root, "nothing ran"); err != nil {
			return err
		}
	}
	// A run on an issue holds the issue's Claim instead of the Pass.
	if issue == "" {
		l, holder, err := runtime.AcquirePass(o.Home, rn.Repo.CommonDir)
		if err != nil {
			return err
		}
		if holder != nil {
			return skipPass(a.stderr, o.Home, rn, holder)
		}
		defer l.Release()
		o.Pass = l
	}
	o.Directive, o.Jobs = c.Directive, c.Jobs
	o.Flags = record.RecordFlags{
		Harness: c.Harness, Model: c.Model, Effort: c.Effort, Access: flags.Access, Jobs: c.Jobs,
		Merge: c.Merge, RepairCap: c.RepairCap, Protect: c.Protect, TakeOver: c.TakeOver, Budget: flags.Budget,
	}
	status, err := runtime.Run(ctx, o)
	return ended(a, status, err)
}

// runOptions are the options of a run (or a resumed run) of rn, checked
// with flags, as far as run and resume share them: its process, home,
// repository and harnesses, cairn's directory, environment and output,
// and the check of the child processes it starts. With events (--json)
// stdout carries the run's events alone, one JSON object a line, and the
// results it would print there go to stderr, after the progress.
func runOptions(ctx context.Context, a *app, rn *load.Runnable, flags check.Flags, events bool) (runtime.Options, error) {
	home, err := filepath.Abs(rn.Home)
	if err != nil {
		return runtime.Options{}, err
	}
	o := runtime.Options{
		Dir:            a.dir,
		Home:           home,
		Repo:           rn.Repo,
		Env:            a.env,
		Harnesses:      rn.Harnesses,
		Plan:           rn.Plan,
		Source:         rn.Source,
		Stdout:         a.stdout,
		Stderr:         a.stderr,
		Terminal:       terminal(a.stderr),
		StdoutTerminal: terminal(a.stdout),
		Prepare:        prepareChild(ctx, a, flags),
		ExitOf:         exitOf,
	}
	if events {
		o.Events, o.Stdout, o.StdoutTerminal = a.stdout, a.stderr, o.Terminal
	}
	return o, nil
}

// ended is how cairn ends after a run (or a resumed run) ended with status
// and err: its exit code (docs/design.md §7.3), and one line when it was
// interrupted.
func ended(a *app, status record.Status, err error) error {
	code := exitOf(status)
	if code == exitInterrupted && err == nil {
		fmt.Fprintln(a.stderr, "cairn: interrupted")
	}
	if code == exitOK && err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// prepareChild is how a run started with flags checks the child process a
// run-published-issue step starts on an issue (docs/design.md §7.8): as `cairn run NAME
// issue ISSUE` with the same flags would, its diagnostics written to w.
// Cancelling ctx, the run's, cancels the check's preflight; a gives the
// directory cairn works in and its environment.
func prepareChild(ctx context.Context, a *app, flags check.Flags) func(process, issue string, w io.Writer) (*ir.Plan, []byte, error) {
	return func(process, issue string, w io.Writer) (*ir.Plan, []byte, error) {
		rn, report, err := load.PrepareRun(ctx, a.dir, process, issue, load.Options{Flags: flags, Env: a.env})
		if report != nil {
			for _, d := range report.Diagnostics {
				if err := views.WriteDiagnostic(w, d, report.Sources, views.Style{}); err != nil {
					return nil, nil, err
				}
			}
		}
		if errors.Is(err, load.ErrRefused) {
			return nil, nil, fmt.Errorf("check refused %q (%s)", process, errorCount(report.Diagnostics))
		}
		if err != nil {
			return nil, nil, err
		}
		return rn.Plan, rn.Source, nil
	}
}

// prepare checks the process target names for a run on issue, as `cairn
// check` would, and shows the check's diagnostics on stderr. A refused
// process is an error that ends with what (not) happened, done. Cancelling
// ctx cancels the check's preflight, and cairn ends interrupted.
func prepare(ctx context.Context, a *app, target, issue string, o load.Options, done string) (*load.Runnable, error) {
	rn, report, err := load.PrepareRun(ctx, a.dir, target, issue, o)
	if ctx.Err() != nil {
		return nil, interrupted(a)
	}
	if report != nil {
		style := views.Style{Color: colorOn(a.env, a.stderr)}
		for _, d := range report.Diagnostics {
			if err := views.WriteDiagnostic(a.stderr, d, report.Sources, style); err != nil {
				return nil, err
			}
		}
	}
	if errors.Is(err, load.ErrRefused) {
		return nil, &exitError{code: exitFailed, err: fmt.Errorf("check refused %q (%s); %s", target, errorCount(report.Diagnostics), done)}
	}
	return rn, err
}

// exitOf is the exit code of a run that ended with status (docs/design.md §7.3).
func exitOf(s record.Status) int {
	switch s {
	case record.StatusSucceeded:
		return exitOK
	case record.StatusInterrupted:
		return exitInterrupted
	case record.StatusInconclusive:
		return exitInconclusive
	}
	return exitFailed
}

// skipPass skips a Pass because another holds the repository's (docs/design.md §7.8): one
// line on stderr, one in the activity log, exit 0, no run folder and no
// notification.
func skipPass(stderr io.Writer, home string, rn *load.Runnable, h *runtime.PassHolder) error {
	who := fmt.Sprintf("pid %d", h.PID)
	if h.Run != "" {
		who = fmt.Sprintf("run %s, pid %d", h.Run, h.PID)
	}
	fmt.Fprintf(stderr, "cairn: skipped: another pass is running on this repository (%s)\n", who)
	if err := record.Activity(home, "event=skipped", "process="+rn.Plan.Process, "repo="+rn.Repo.CommonDir,
		"reason=another pass is running ("+who+")"); err != nil {
		fmt.Fprintf(stderr, "cairn: warning: %v\n", err)
	}
	return nil
}

// outliveReaders keeps a closed stdout or stderr (cairn run X | head -1)
// from killing a run with SIGPIPE: a write there fails, and the run goes on
// to its end. Go ends a program whose write to fd 1 or 2 meets a closed pipe
// unless SIGPIPE is notified; the processes a run starts get SIGPIPE as
// usual (a caught signal is reset by exec).
func outliveReaders() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// split splits a trailing "issue ISSUE" off the arguments and merges it
// with --issue; one process remains.
func (c *runCmd) split() (target, issue string, err error) {
	args, issue := c.Args, c.Issue
	if n := len(args); n >= 2 && args[n-2] == issueWord {
		if issue != "" {
			return "", "", usageError("the issue is given twice: as %q and as --issue %q", args[n-1], issue)
		}
		args, issue = args[:n-2], args[n-1]
	}
	switch {
	case len(args) == 1 && args[0] == issueWord:
		return "", "", usageError("%q is not a process name: write the issue last, as \"cairn run NAME issue ISSUE\"", issueWord)
	case len(args) == 1:
		return args[0], issue, nil
	case len(args) == 2 && args[1] == issueWord:
		return "", "", usageError("%q needs an issue number or URL after it", issueWord)
	case len(args) == 0:
		return "", "", usageError("name the process to run")
	}
	return "", "", usageError("cairn run takes one process, not %d: %q", len(args), args)
}

// errorCount words how many of ds are errors: "1 error", "2 errors".
func errorCount(ds []ir.Diagnostic) string {
	n := 0
	for _, d := range ds {
		if d.Severity == ir.Error {
			n++
		}
	}
	if n == 1 {
		return "1 error"
	}
	return fmt.Sprintf("%d errors", n)
}
