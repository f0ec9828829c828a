package main

import (
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/views"
)

// showCmd is `cairn show`.
type showCmd struct {
	Target string `arg:"" optional:"" name:"run" help:"${run_help}"`
	JSON   bool   `name:"json" help:"Print the run's record as one JSON document."`
	Format string `enum:"text,json,mermaid,dot" default:"text" help:"Output format: text, json (as --json), or a picture of the run's steps, their needs and outcomes: mermaid or dot."`
}

// Run shows a run's record: its facts, and each step's log line with its
// result and trace.
func (c *showCmd) Run(a *app) error {
	dir, err := findRun(a, c.Target)
	if err != nil {
		return err
	}
	r, err := record.ReadRun(dir)
	if err != nil {
		return err
	}
	switch c.Format {
	case "mermaid", "dot":
		return views.RunGraph(r).Write(a.stdout, c.Format)
	}
	s := views.RunShowOf(r)
	if c.JSON || c.Format == "json" {
		return s.WriteJSON(a.stdout, terminal(a.stdout))
	}
	return s.WriteText(a.stdout, views.Style{Color: colorOn(a.env, a.stdout), Terminal: terminal(a.stdout)})
}

// findRun is the run folder arg names (docs/design.md §7.5), a path taken relative to the
// directory cairn works in; with no arg, the latest run of the repository
// holding it, or of all outside one.
func findRun(a *app, arg string) (string, error) {
	repo, more, err := repoRuns(a)
	if err != nil {
		return "", err
	}
	return record.FindRun(config.Home(a.env, a.dir, repo != ""), a.dir, repo, arg, more...)
}

// repoRuns is the repository holding the directory cairn works in (its git
// common dir), and the folder of its commit-mode runs; nothing outside a
// repository. A folder of runs the repository links out of its working
// tree is refused.
func repoRuns(a *app) (string, []string, error) {
	r, err := git.Discover(a.ctx, git.New(a.env), workdir.Path(a.dir, "."))
	if err != nil {
		return "", nil, nil
	}
	runs, err := record.RepoRunsDir(r.Root)
	if err != nil {
		return "", nil, err
	}
	return r.CommonDir, []string{runs}, nil
}
