package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/codegen"
	"github.com/cairn-dev/cairn/internal/outfile"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/views"
)

// compileCmd is `cairn compile`.
type compileCmd struct {
	Target string  `arg:"" name:"name|file" predictor:"process" help:"The process to compile: a name looked up in $CAIRN_HOME/processes and the config's process_path, or a file path."`
	To     string  `name:"target" default:"bash" help:"What to compile to: bash (a standalone bash script) or github-actions (a GitHub Actions workflow)."`
	Output string  `short:"o" placeholder:"FILE" predictor:"file" help:"Write to FILE rather than to stdout: a new script gets mode 0755, a new workflow 0644, and a file that exists keeps its own."`
	Access *string `placeholder:"A" enum:"${accesses}" help:"Tighten every session's access in the script to at most A: read, write or full. It lowers any above A and raises none."`
	// Jobs is nil without --jobs.
	Jobs  *int `placeholder:"N" help:"At most N steps of a parallel group, or items of a for_each, run at once: in a script, unless its own --jobs says otherwise; in a workflow, N is a for_each's max-parallel (each step of a parallel group has a runner of its own)."`
	Check bool `help:"Write nothing: exit 0 when the -o FILE is what compile writes now, else 1 with a unified diff (a CI guard against a stale compiled file)."`
}

// Run checks the process as `cairn check --no-preflight` does and renders
// its plan through the target (a standalone script, a workflow); what the
// target cannot carry is refused with rule not-compilable at its place in
// the file. With --check it writes nothing and compares the -o file with
// what it would write.
func (c *compileCmd) Run(a *app) error {
	target, ok := codegen.LookupTarget(c.To)
	if !ok {
		return usageError("--target %q: cairn compiles to %s", c.To, strings.Join(codegen.TargetNames(), ", "))
	}
	if c.Check && c.Output == "" {
		return usageError("--check needs -o FILE: the compiled file to compare")
	}
	jobs, err := c.jobs()
	if err != nil {
		return err
	}
	cp, report, err := load.PrepareCompile(a.ctx, a.dir, c.Target, check.Flags{Access: orEmpty(c.Access)}, a.env)
	style := views.Style{Color: colorOn(a.env, a.stderr)}
	show := func(ds []ir.Diagnostic) error {
		for _, d := range ds {
			if err := views.WriteDiagnostic(a.stderr, d, report.Sources, style); err != nil {
				return err
			}
		}
		return nil
	}
	if report != nil {
		if err := show(report.Diagnostics); err != nil {
			return err
		}
	}
	if errors.Is(err, load.ErrRefused) {
		return &exitError{code: exitFailed, err: fmt.Errorf("check refused %q (%s); nothing was compiled", c.Target, errorCount(report.Diagnostics))}
	}
	if err != nil {
		return err
	}
	flags := check.Flags{Access: orEmpty(c.Access)}
	script, diags := target.Compile(cp.Plan, codegen.Inputs{
		Process: cp.Process, Harnesses: cp.Harnesses,
		Source: report.Sources[cp.Plan.File], RepoRoot: cp.RepoRoot, Dir: a.dir, Jobs: jobs,
		Children: compileChild(a, flags),
	})
	ir.SortDiagnostics(diags)
	if err := show(diags); err != nil {
		return err
	}
	if ir.HasErrors(diags) {
		return &exitError{code: exitFailed, err: fmt.Errorf("cannot compile %q (%s)", c.Target, errorCount(diags))}
	}
	if c.Output == "" {
		_, err := a.stdout.Write(script)
		return err
	}
	if c.Check {
		return c.checkFresh(a, script)
	}
	mode := os.FileMode(0o644)
	if target.Executable() {
		mode = 0o755
	}
	if err := outfile.Write(workdir.Path(a.dir, c.Output), script, mode); err != nil {
		return fmt.Errorf("write %s: %s", c.Output, pathError(err))
	}
	return nil
}

// jobs is --jobs: 0 without the flag, and a usage error for a value below
// 0.
func (c *compileCmd) jobs() (int, error) {
	if c.Jobs == nil {
		return 0, nil
	}
	if *c.Jobs < 0 {
		return 0, usageError("--jobs %d: want 0 (all at once) or more", *c.Jobs)
	}
	return *c.Jobs, nil
}

// checkFresh compares the -o file with script, what compile writes now:
// nil when they are the same, else a failure, with a unified diff from the
// file to script on stdout. A file that does not exist is stale, its diff
// all of script.
func (c *compileCmd) checkFresh(a *app, script []byte) error {
	old, err := os.ReadFile(workdir.Path(a.dir, c.Output))
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return fmt.Errorf("read %s: %s", c.Output, pathError(err))
	}
	d := diff.Diff(c.Output, old, c.Output+" (compiled now)", script)
	if d == nil {
		return nil
	}
	if _, err := a.stdout.Write(d); err != nil {
		return err
	}
	why := "is stale"
	if missing {
		why = "does not exist"
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("%q %s: compile %q again with -o %q", c.Output, why, c.Target, c.Output)}
}

// compileChild is how compile finds and checks, with flags, a process a
// run-published-issue step starts (docs/design.md §7.8): by name, as `cairn
// run` finds it for a child run, and checked as compile checks the process
// it compiles. A check that refuses it is an error naming its first
// problem.
func compileChild(a *app, flags check.Flags) func(process string) (*codegen.Child, error) {
	return func(process string) (*codegen.Child, error) {
		cp, report, err := load.PrepareCompile(a.ctx, a.dir, process, flags, a.env)
		if errors.Is(err, load.ErrRefused) {
			for _, d := range report.Diagnostics {
				if d.Severity == ir.Error {
					where := ""
					if d.Range.File != "" {
						where = fmt.Sprintf("%s:%d:%d: ", d.Range.File, d.Range.Start.Line, d.Range.Start.Column)
					}
					return nil, fmt.Errorf("check refused it (%s): %s%s", errorCount(report.Diagnostics), where, d.Message)
				}
			}
			return nil, fmt.Errorf("check refused it (%s)", errorCount(report.Diagnostics))
		}
		if err != nil {
			return nil, err
		}
		return &codegen.Child{Plan: cp.Plan, Process: cp.Process, Harnesses: cp.Harnesses, Source: report.Sources[cp.Plan.File], RepoRoot: cp.RepoRoot}, nil
	}
}
