package main

import (
	"fmt"
	"io"
	"os"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/proctest"
	"github.com/cairn-dev/cairn/views"
)

// testCmd is `cairn test`.
type testCmd struct {
	Paths  []string `arg:"" optional:"" name:"path" predictor:"file" help:"Test files, or folders searched for *.test.toml. None: the *.test.toml files beside the processes cairn list finds."`
	Format string   `enum:"text,json,github" default:"text" help:"Output format: text, json or github."`
	Keep   bool     `help:"Keep the temporary CAIRN_HOME the test runs live in, and say where it is."`
}

// Run runs each test file's case in turn, in the repository holding the
// directory cairn works in, with its runs in a temporary CAIRN_HOME, and
// reports each: exit 1 when any failed.
func (c *testCmd) Run(a *app) error {
	defer traced(a)()
	o := proctest.Options{Dir: a.dir, ExitOf: exitOf, Env: a.env}
	files, err := proctest.Find(a.ctx, o, c.Paths)
	if err != nil {
		return err
	}
	repo, err := git.Discover(a.ctx, git.New(a.env), workdir.Path(a.dir, "."))
	if err != nil || repo == nil {
		return fmt.Errorf("%s is not inside a git repository; run cairn test in one, or give -C DIR", workdir.Path(a.dir, "."))
	}
	home, err := os.MkdirTemp("", "cairn-test-")
	if err != nil {
		return err
	}
	if c.Keep {
		defer fmt.Fprintf(a.stderr, "cairn: the test runs are kept in %s (CAIRN_HOME=%s cairn status)\n", home, home)
	} else {
		defer os.RemoveAll(home)
	}
	ctx, stop := interrupts(a.ctx)
	defer stop()
	o.Home = home
	style := views.Style{Color: colorOn(a.env, a.stdout)}
	r := &proctest.Report{}
	for _, f := range files {
		cs := proctest.Run(ctx, o, f)
		if ctx.Err() != nil {
			return interrupted(a)
		}
		r.Cases = append(r.Cases, cs)
		if c.Format == "text" {
			if err := proctest.WriteCase(a.stdout, cs, style); err != nil {
				return err
			}
		}
	}
	switch c.Format {
	case "json":
		err = r.WriteJSON(a.stdout, c.Keep, terminal(a.stdout))
	case "github":
		rep := &views.Report{Diagnostics: r.Diagnostics()}
		err = rep.Rebased(repo.Root, a.dir).WriteGitHub(a.stdout)
	}
	if err != nil {
		return err
	}
	if c.Format == "text" {
		_, err = io.WriteString(a.stderr, r.Summary()+"\n")
		if err != nil {
			return err
		}
	}
	if r.Failed() {
		return failed
	}
	return nil
}
