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
	JSON   bool     `name:"json" help:"Write the events of every case's run on stdout, one JSON object a line (cairn schema events); the text report goes to stderr."`
}

// Run runs each test file's case in turn, in the repository holding the
// directory cairn works in, with its runs in a temporary CAIRN_HOME, and
// reports each: exit 1 when any failed.
func (c *testCmd) Run(a *app) error {
	defer traced(a)()
	o := proctest.Options{Dir: a.dir, ExitOf: exitOf, Env: a.env}
	report, err := c.outputs(a, &o)
	if err != nil {
		return err
	}
	files, err := proctest.Find(a.ctx, o, c.Paths)
	if err != nil {
		return err
	}
	repo, err := git.Discover(a.ctx, git.New(a.env), workdir.Path(a.dir, "."))
	if err != nil || repo == nil {
		return fmt.Errorf("%s is not inside a git repository; run cairn test in one, or give -C DIR", workdir.Path(a.dir, "."))
	}
	home, done, err := c.home(a)
	if err != nil {
		return err
	}
	defer done()
	ctx, stop := interrupts(a.ctx)
	defer stop()
	r := &proctest.Report{}
	ctx, end := proctest.Traced(ctx, len(files), r)
	defer end()
	o.Home = home
	style := views.Style{Color: colorOn(a.env, report)}
	for _, f := range files {
		cs := proctest.Run(ctx, o, f)
		if ctx.Err() != nil {
			return interrupted(a)
		}
		r.Cases = append(r.Cases, cs)
		if c.Format == "text" {
			if err := proctest.WriteCase(report, cs, style); err != nil {
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

// home makes the temporary CAIRN_HOME the cases run in, and returns it
// and what the pass does with it at its end: removes it, or, with --keep,
// says where it is.
func (c *testCmd) home(a *app) (home string, done func(), err error) {
	home, err = os.MkdirTemp("", "cairn-test-")
	if err != nil {
		return "", nil, err
	}
	if c.Keep {
		return home, func() {
			fmt.Fprintf(a.stderr, "cairn: the test runs are kept in %s (CAIRN_HOME=%s cairn status)\n", home, home)
		}, nil
	}
	return home, func() { os.RemoveAll(home) }, nil
}

// outputs is where the text report goes, and sets where o's runs' events
// go: with --json the events take stdout and the report goes to stderr.
func (c *testCmd) outputs(a *app, o *proctest.Options) (report io.Writer, err error) {
	if !c.JSON {
		return a.stdout, nil
	}
	if c.Format != "text" {
		return nil, usageError("--json streams the runs' events on stdout: it takes no --format %s", c.Format)
	}
	o.Events = a.stdout
	return a.stderr, nil
}
