package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/cairn-dev/cairn/internal/outfile"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/stubs"
	"github.com/cairn-dev/cairn/views"
)

// stubsCmd is `cairn stubs`.
type stubsCmd struct {
	Target string `arg:"" name:"name|file" predictor:"process" help:"The process: a name looked up in $CAIRN_HOME/processes and the config's process_path, or a file path."`
	Output string `short:"o" placeholder:"FILE" predictor:"file" help:"Write the stubs to FILE rather than to stdout."`
}

// Run checks the process as `cairn check --no-preflight` does and writes a
// stubs skeleton for it: used as is, every session succeeds with a
// placeholder result naming its step.
func (c *stubsCmd) Run(a *app) error {
	ws := load.Open(a.ctx, a.dir, load.Options{NoPreflight: true, Env: a.env})
	r := ws.Check(a.ctx, []string{c.Target}, "")
	style := views.Style{Color: colorOn(a.env, a.stderr)}
	for _, d := range r.Diagnostics {
		if err := views.WriteDiagnostic(a.stderr, d, r.Sources, style); err != nil {
			return err
		}
	}
	if r.Failed() || len(r.Plans) != 1 {
		return &exitError{code: exitFailed, err: fmt.Errorf("check refused %q (%s); no stubs were written", c.Target, errorCount(r.Diagnostics))}
	}
	skeleton := stubs.Skeleton(r.Plans[0])
	if c.Output == "" {
		_, err := a.stdout.Write(skeleton)
		return err
	}
	if err := outfile.Write(workdir.Path(a.dir, c.Output), skeleton, 0o644); err != nil {
		return fmt.Errorf("write %s: %s", c.Output, pathError(err))
	}
	return nil
}

// readStubs reads the stubs file at path (named as the user did, name),
// checks it against plan and reads its result files, those inside repo
// alone, writing its diagnostics to a's stderr. Stubs with an error are
// refused: what is the end of the error, such as "nothing ran".
func readStubs(a *app, name, path string, plan *ir.Plan, repo, what string) (*stubs.Stubs, error) {
	w := a.stderr
	s, diags := stubs.Load(path)
	diags = append(diags, stubs.Check(s, plan)...)
	diags = append(diags, s.ReadResults(repo)...)
	ir.SortDiagnostics(diags)
	style := views.Style{Color: colorOn(a.env, w)}
	sources := map[string][]byte{s.File: s.Src}
	for _, d := range diags {
		if err := views.WriteDiagnostic(w, d, sources, style); err != nil {
			return nil, err
		}
	}
	if ir.HasErrors(diags) {
		return nil, &exitError{code: exitFailed, err: fmt.Errorf("stubs %s refused (%s); %s", name, errorCount(diags), what)}
	}
	return s, nil
}

// statFile refuses a path that is no regular file, for a flag: name is
// how the user wrote it.
func statFile(flag, name, path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return usageError("%s %s: no such file", flag, name)
	case err != nil:
		return usageError("%s %s: %s", flag, name, pathError(err))
	case !fi.Mode().IsRegular():
		return usageError("%s %s: not a regular file", flag, name)
	}
	return nil
}
