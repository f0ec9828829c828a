// Package proctest runs the cases of `cairn test`: each test file's
// process, checked as `cairn run` checks it and run through the real
// runtime with the file's stubs answering its agents, in a home of its own,
// held against the file's expectations.
package proctest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/internal/tracing"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/output"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/runtime"
	"github.com/cairn-dev/cairn/stubs"
)

// The statuses of a case.
const (
	Passed = "passed"
	Failed = "failed"
)

// The expectations a failure names; Refused is a case whose test file,
// stubs or process was refused, and Run one whose run could not start.
const (
	ExpectStatus   = "status"
	ExpectExit     = "exit"
	ExpectOutput   = "output_contains"
	ExpectSteps    = "steps"
	ExpectOutputs  = "outputs"
	ExpectRefused  = "check"
	ExpectRunStart = "run"
)

// Options are what the cases run with.
type Options struct {
	// Dir is the directory cairn works in (-C), on the repository holding
	// it; "" for cairn's working directory.
	Dir string
	// Home is the CAIRN_HOME the runs are kept in: a temporary one.
	Home string
	// ExitOf is the exit code of a run that ended with a status, as
	// `cairn run` would exit.
	ExitOf func(record.Status) int
	// Env is cairn's environment, whole, which main reads once: git, the
	// runs' steps and their harnesses run in it.
	Env []string
	// Events, when set, gets the events of every case's run, one JSON
	// object a line (runtime.Options.Events): `cairn test --json`.
	Events io.Writer
}

// Case is how one test file's case went.
type Case struct {
	// File is the test file, as its diagnostics name it.
	File    string
	Process string
	// Status is Passed or Failed; RunStatus the run's status and Exit
	// the code `cairn run` would have exited with, when it ran.
	Status    string
	RunStatus string
	Exit      int
	// Run is the run's folder, when it ran.
	Run      string
	Duration time.Duration
	Failures []Failure
	// Sources are the bytes of the files the failures point into.
	Sources map[string][]byte
}

// Failure is one expectation a case did not meet, or one refusal of its
// test file, stubs or process: Diagnostic says where and why.
type Failure struct {
	Expectation string
	Step        string
	Diagnostic  ir.Diagnostic
}

// Find returns the test files paths name, in order: a file as it is, a
// folder searched (with its subfolders, hidden ones left out) for
// *.test.toml, sorted. With no paths, the folders processes are looked up
// in (as `cairn list` finds them), each without its subfolders. Paths are
// taken from o.Dir, the directory cairn works in.
func Find(ctx context.Context, o Options, paths []string) ([]string, error) {
	dir := o.Dir
	if len(paths) == 0 {
		ws := load.Open(ctx, dir, load.Options{NoPreflight: true, Env: o.Env})
		var files []string
		for _, d := range check.ProcessDirs(ws.Env) {
			entries, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if !e.IsDir() && strings.HasSuffix(e.Name(), stubs.TestSuffix) {
					files = append(files, filepath.Join(d, e.Name()))
				}
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("no test files (*%s) beside the processes, in %s; name a file or a folder", stubs.TestSuffix, strings.Join(check.ProcessDirs(ws.Env), ", "))
		}
		return files, nil
	}
	var files []string
	for _, p := range paths {
		name := workdir.Path(dir, p)
		fi, err := os.Stat(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, errors.Unwrap(err))
		}
		if !fi.IsDir() {
			files = append(files, name)
			continue
		}
		var found []string
		err = filepath.WalkDir(name, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != name && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), stubs.TestSuffix) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no test files (*%s) in it", p, stubs.TestSuffix)
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	return files, nil
}

// Run runs the case of the test file file: it reads the file and its
// stubs, checks the process as `cairn run --stubs` would, runs it in
// o.Home, and holds the run to the file's expectations. A case whose
// file, stubs or process is refused fails with their diagnostics, and
// runs nothing.
func Run(ctx context.Context, o Options, file string) *Case {
	ctx, span := tracing.TestCase(ctx, file)
	c := runCase(ctx, o, file)
	if ctx.Err() != nil {
		span.End("interrupted", "")
	} else {
		span.End(c.Status, "")
	}
	return c
}

// Traced starts the span of a pass of cairn test over files, the number
// of test files it found, and returns the context its cases run under
// (each case's span, and its run's, under the pass's) and the function
// that ends the span with the pass's outcome: interrupted when ctx is
// done, failed when a case of r failed, else passed.
func Traced(ctx context.Context, files int, r *Report) (context.Context, func()) {
	ctx, span := tracing.Test(ctx, files)
	return ctx, func() {
		switch {
		case ctx.Err() != nil:
			span.End("interrupted", "")
		case r.Failed():
			span.End(Failed, "")
		default:
			span.End(Passed, "")
		}
	}
}

// runCase is Run, under the case's span.
func runCase(ctx context.Context, o Options, file string) *Case {
	start := time.Now()
	c := &Case{File: file, Status: Passed, Sources: map[string][]byte{}}
	defer func() {
		c.Duration = time.Since(start)
		if len(c.Failures) > 0 {
			c.Status = Failed
		}
		slices.SortStableFunc(c.Failures, func(a, b Failure) int {
			x, y := a.Diagnostic.Range, b.Diagnostic.Range
			return cmp.Or(cmp.Compare(x.File, y.File), cmp.Compare(x.Start.Line, y.Start.Line), cmp.Compare(x.Start.Column, y.Start.Column))
		})
	}()
	t, diags := stubs.LoadTest(file)
	c.Sources[file] = t.Src
	// The process and the stubs are checked whatever else the file got
	// wrong, so that one pass shows every problem; nothing runs then.
	if c.refused(diags) && (!t.Process.Set || t.Process.Bad) {
		return c
	}
	c.Process = t.Process.Value
	target := t.Process.Value
	if isPath(target) && !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(file), filepath.FromSlash(target))
	}
	flags := check.Flags{}
	if t.BudgetUSD.Set && !t.BudgetUSD.Bad {
		flags.Budget = t.BudgetUSD.Value
	}
	rn, report, err := load.PrepareRun(ctx, o.Dir, target, "", load.Options{Flags: flags, NoPreflight: true, Env: o.Env})
	if report != nil {
		for f, src := range report.Sources {
			c.Sources[f] = src
		}
	}
	switch {
	case errors.Is(err, load.ErrRefused):
		c.refused(report.Diagnostics)
		return c
	case err != nil:
		c.fail(ExpectRunStart, "", t.Process.Range, "%v", err)
		return c
	}
	c.Process = rn.Plan.Process

	s := t.Stubs
	if t.StubsFile.Set && !t.StubsFile.Bad {
		p := filepath.FromSlash(t.StubsFile.Value)
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(file), p)
		}
		var diags []ir.Diagnostic
		s, diags = stubs.Load(p)
		c.Sources[s.File] = s.Src
		c.refused(diags)
	}
	if s == nil {
		s = &stubs.Stubs{File: file, Src: t.Src}
	}
	c.refused(slices.Concat(stubs.Check(s, rn.Plan), stubs.CheckTest(t, rn.Plan), s.ReadResults(rn.Repo.Root)))
	if len(c.Failures) > 0 {
		return c
	}

	lock, holder, err := runtime.AcquirePass(o.Home, rn.Repo.CommonDir)
	if err != nil {
		c.fail(ExpectRunStart, "", t.Process.Range, "%v", err)
		return c
	}
	if holder != nil {
		c.fail(ExpectRunStart, "", t.Process.Range, "another pass holds the test home (pid %d)", holder.PID)
		return c
	}
	defer lock.Release()
	var stdout, stderr bytes.Buffer
	status, runErr := runtime.Run(ctx, runtime.Options{
		Dir:       o.Dir,
		Home:      o.Home,
		Repo:      rn.Repo,
		Env:       o.Env,
		Harnesses: rn.Harnesses,
		Plan:      rn.Plan,
		Source:    rn.Source,
		Directive: t.Directive.Value,
		Jobs:      t.Jobs.Value,
		Flags:     record.RecordFlags{Jobs: t.Jobs.Value, Budget: flags.Budget},
		Pass:      lock,
		Stdout:    &stdout,
		Stderr:    &stderr,
		Stubs:     s,
		Started:   func(dir string) { c.Run = dir },
		Events:    o.Events,
		ExitOf:    o.ExitOf,
	})
	c.RunStatus, c.Exit = string(status), o.ExitOf(status)
	c.expect(t, status, runErr, stdout.String())
	return c
}

// expect holds the run that ended with status (and runErr), having printed
// stdout, to t's expectations. With neither a status nor an exit
// expected, the run is expected to succeed.
func (c *Case) expect(t *stubs.Test, status record.Status, runErr error, stdout string) {
	x := &t.Expect
	var rec *record.Record
	if c.Run != "" {
		rec, _ = record.Load(c.Run)
	}
	why := ""
	switch {
	case runErr != nil:
		why = ": " + runErr.Error()
	case rec != nil && status == record.StatusFailed:
		if f := record.FailureOf(rec); f != nil {
			why = fmt.Sprintf(": failed at step %s: %s", f.Step, f.Cause)
		}
	}
	if x.Status.Set && !x.Status.Bad && x.Status.Value != string(status) {
		c.fail(ExpectStatus, "", x.Status.Range, "expected the run to end %q, it ended %q%s", x.Status.Value, status, why)
	}
	if x.Exit.Set && !x.Exit.Bad && x.Exit.Value != c.Exit {
		c.fail(ExpectExit, "", x.Exit.Range, "expected exit %d, cairn run would exit %d (%s)%s", x.Exit.Value, c.Exit, status, why)
	}
	if !x.Status.Set && !x.Exit.Set && status != record.StatusSucceeded {
		c.fail(ExpectStatus, "", ir.FileStart(t.File), "expected the run to succeed (no [expect] status), it ended %q%s", status, why)
	}
	for _, want := range x.OutputContains.Value {
		if !want.Bad && !strings.Contains(stdout, want.Value) {
			c.fail(ExpectOutput, "", want.Range, "expected the run's stdout to contain %q; it printed %s", want.Value, clip(stdout))
		}
	}
	for _, o := range x.Outputs {
		c.expectOutput(rec, o)
	}
	for _, p := range x.Steps {
		if p.Bad {
			continue
		}
		var got *record.StepRecord
		if rec != nil {
			for i := range rec.Steps {
				if rec.Steps[i].Name == p.Name {
					got = &rec.Steps[i]
				}
			}
		}
		switch {
		case got == nil:
			c.fail(ExpectSteps, p.Name, p.Range, "expected step %q to end %q; the run has no record of it", p.Name, p.Value)
		case string(got.Outcome) != p.Value:
			cause := ""
			if got.Cause != "" {
				cause = ": " + got.Cause
			}
			c.fail(ExpectSteps, p.Name, p.Range, "expected step %q to end %q, it ended %q%s", p.Name, p.Value, got.Outcome, cause)
		}
	}
}

// refused adds the errors of diags as failures, and reports whether there
// were any.
func (c *Case) refused(diags []ir.Diagnostic) bool {
	n := len(c.Failures)
	for _, d := range diags {
		if d.Severity == ir.Error {
			c.Failures = append(c.Failures, Failure{Expectation: ExpectRefused, Diagnostic: d})
		}
	}
	return len(c.Failures) > n
}

// fail adds a failure of expectation (about step, when it names one) at at.
func (c *Case) fail(expectation, step string, at ir.Range, format string, args ...any) {
	if !at.IsValid() {
		at = ir.FileStart(c.File)
	}
	c.Failures = append(c.Failures, Failure{
		Expectation: expectation,
		Step:        step,
		Diagnostic: ir.Diagnostic{
			Rule:     "expect." + expectation,
			Severity: ir.Error,
			Range:    at,
			Message:  fmt.Sprintf(format, args...),
		},
	})
}

// isPath reports whether a test's process names a file rather than a
// process, as `cairn run` tells them apart: a slash or an extension.
func isPath(s string) bool {
	return strings.ContainsRune(s, '/') || strings.ContainsRune(s, filepath.Separator) || filepath.Ext(s) != ""
}

// maxShown is how much of a run's stdout a failure quotes.
const maxShown = 200

// clip quotes s, cut to maxShown bytes; "nothing" when it is empty.
func clip(s string) string {
	if s == "" {
		return "nothing"
	}
	if len(s) > maxShown {
		return fmt.Sprintf("%q…", s[:maxShown])
	}
	return fmt.Sprintf("%q", s)
}

// expectOutput holds the typed output step o.Step saved in the run rec to
// the fields o names, each compared as JSON values are.
func (c *Case) expectOutput(rec *record.Record, o stubs.ExpectOutput) {
	var saved string
	if rec != nil {
		for _, s := range rec.Steps {
			if s.Name == o.Step {
				saved = s.Output
			}
		}
	}
	if saved == "" {
		c.fail(ExpectOutputs, o.Step, o.Key, "expected step %q to give an output; it saved none", o.Step)
		return
	}
	b, err := os.ReadFile(filepath.Join(c.Run, saved))
	var got map[string]any
	if err == nil {
		err = json.Unmarshal(b, &got)
	}
	if err != nil {
		c.fail(ExpectOutputs, o.Step, o.Key, "expected step %q's output to be an object: %v", o.Step, err)
		return
	}
	for _, m := range o.Fields.Members {
		var want any
		if err := json.Unmarshal([]byte(output.Canonical(m.Value)), &want); err != nil {
			continue
		}
		have, ok := got[m.Name]
		if !ok || !reflect.DeepEqual(have, want) {
			h, _ := json.Marshal(have)
			if !ok {
				h = []byte("nothing")
			}
			c.fail(ExpectOutputs, o.Step, m.Value.Range, "expected step %q's output %s to be %s, it is %s", o.Step, m.Name, output.Canonical(m.Value), h)
		}
	}
}
