package main

import (
	"context"
	"os"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/templates"
)

// showCmd is `cairn show`.
type showCmd struct {
	Target string `arg:"" optional:"" name:"run" help:"${run_help}"`
	JSON   bool   `name:"json" help:"Print the run's record as one JSON document."`
}

// Run shows a run's record: its facts, and each step's log line with its
// result and trace.
func (c *showCmd) Run(a *app) error {
	dir, err := findRun(a.dir, c.Target)
	if err != nil {
		return err
	}
	s, err := record.Show(dir)
	if err != nil {
		return err
	}
	if c.JSON {
		return s.WriteJSON(a.stdout, terminal(a.stdout))
	}
	return s.WriteText(a.stdout, templates.Style{Color: colorOn(a.stdout), Terminal: terminal(a.stdout)})
}

// findRun is the run folder arg names (§7.5), a path taken relative to dir,
// the directory cairn works in; with no arg, the latest run of the
// repository holding dir, or of all outside one.
func findRun(dir, arg string) (string, error) {
	repo, more, err := repoRuns(dir)
	if err != nil {
		return "", err
	}
	return record.FindRun(config.Home(dir, repo != ""), dir, repo, arg, more...)
}

// repoRuns is the repository holding dir, the directory cairn works in (its
// git common dir), and the folder of its commit-mode runs; nothing outside
// a repository. A folder of runs the repository links out of its working
// tree is refused.
func repoRuns(dir string) (string, []string, error) {
	r, err := git.Discover(context.Background(), git.New(os.Environ()), workdir.Path(dir, "."))
	if err != nil {
		return "", nil, nil
	}
	runs, err := record.RepoRunsDir(r.Root)
	if err != nil {
		return "", nil, err
	}
	return r.CommonDir, []string{runs}, nil
}
