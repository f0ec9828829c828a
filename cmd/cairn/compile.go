package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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
	Output string  `short:"o" placeholder:"FILE" predictor:"file" help:"Write to FILE rather than to stdout: a new script gets mode 0755, a new workflow 0644, and a file that exists keeps its own. A workflow whose run-published-issue step calls child processes writes theirs beside FILE, as PROCESS.CHILD.yml."`
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
	out, diags := target.Compile(cp.Plan, codegen.Inputs{
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
	return c.write(a, target, out)
}

// write writes what compile compiled, out: on stdout without -o (which
// cannot hold several files), else into -o and, beside it, the files it
// needs there; with --check, it compares them instead (checkFresh).
func (c *compileCmd) write(a *app, target codegen.Target, out codegen.Output) error {
	if c.Output == "" {
		if n := len(out.Siblings); n > 0 {
			return usageError("%q compiles to %d workflows, its own and those of the child processes it calls: write them with -o .github/workflows/FILE.yml, which writes %s beside it",
				c.Target, n+1, siblingNames(out.Siblings))
		}
		_, err := a.stdout.Write(out.Artifact)
		return err
	}
	files := []compiledFile{{path: c.Output, data: out.Artifact}}
	for _, sib := range out.Siblings {
		path := filepath.Join(filepath.Dir(c.Output), sib.Name)
		if filepath.Clean(path) == filepath.Clean(c.Output) {
			return usageError("-o %s is where the workflow of a child process it calls goes: name the workflow's file otherwise", c.Output)
		}
		files = append(files, compiledFile{path: path, data: sib.Data})
	}
	if c.Check {
		return c.checkFresh(a, files)
	}
	mode := os.FileMode(0o644)
	if target.Executable() {
		mode = 0o755
	}
	for _, f := range files {
		if err := outfile.Write(workdir.Path(a.dir, f.path), f.data, mode); err != nil {
			return fmt.Errorf("write %s: %s", f.path, pathError(err))
		}
	}
	return nil
}

// compiledFile is a file compile writes: -o's, or one beside it (a child
// process's workflow), by its path as the user would name it.
type compiledFile struct {
	path string
	data []byte
}

// siblingNames are the names of sibs, quoted, in a list.
func siblingNames(sibs []codegen.Sibling) string {
	names := make([]string, len(sibs))
	for i, s := range sibs {
		names[i] = strconv.Quote(s.Name)
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
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

// checkFresh compares each file compile would write (-o's, then those
// beside it) with what compile writes now: nil when they are all the same,
// else a failure naming the first stale one, with a unified diff from
// each stale file to what compile writes on stdout. A file that does not
// exist is stale, its diff all of the new bytes.
func (c *compileCmd) checkFresh(a *app, files []compiledFile) error {
	var stale error
	for _, f := range files {
		old, err := os.ReadFile(workdir.Path(a.dir, f.path))
		missing := errors.Is(err, fs.ErrNotExist)
		if err != nil && !missing {
			return fmt.Errorf("read %s: %s", f.path, pathError(err))
		}
		d := diff.Diff(f.path, old, f.path+" (compiled now)", f.data)
		if d == nil {
			continue
		}
		if _, err := a.stdout.Write(d); err != nil {
			return err
		}
		if stale == nil {
			why := "is stale"
			if missing {
				why = "does not exist"
			}
			stale = &exitError{code: exitFailed, err: fmt.Errorf("%q %s: compile %q again with -o %q", f.path, why, c.Target, c.Output)}
		}
	}
	return stale
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
