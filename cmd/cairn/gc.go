package main

import (
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/runtime"
)

// gcCmd is `cairn gc`.
type gcCmd struct {
	DryRun bool `help:"List the runs gc would delete, and delete nothing."`
}

// Run deletes the expired runs of $CAIRN_HOME and of the repository's
// .cairn/runs (committing their removal there), keeping the newest of each
// process of each repository and any still running (docs/design.md §7.7): one line per
// run deleted (or that would be), then a summary. A folder whose record
// cannot be read is left alone, with a warning.
func (c *gcCmd) Run(a *app) error {
	ctx, g := a.ctx, git.New(a.env)
	repo, err := git.Discover(ctx, g, workdir.Path(a.dir, "."))
	if err != nil {
		repo = nil
	}
	report, err := runtime.GC(ctx, g, config.Home(a.env, a.dir, repo != nil), repo, time.Now(), c.DryRun)
	if err != nil && len(report.Deleted)+len(report.Kept)+len(report.Unreadable) == 0 {
		// Refused before it looked at a run: there is nothing to sum up.
		return err
	}
	verb := "deleted"
	if c.DryRun {
		verb = "would delete"
	}
	for _, r := range report.Deleted {
		fmt.Fprintf(a.stdout, "%s %s (expired %s)\n", verb, r.Name, r.Expires.UTC().Format(time.DateOnly))
	}
	for _, r := range report.Unreadable {
		fmt.Fprintf(a.stderr, "cairn: warning: left %s alone: %v\n", r.Name, r.Err)
	}
	summary := fmt.Sprintf("gc: %s %s, kept %d", verb, runsCount(len(report.Deleted)), len(report.Kept))
	if n := len(report.Unreadable); n > 0 {
		summary += fmt.Sprintf(", %d unreadable", n)
	}
	fmt.Fprintln(a.stdout, summary)
	return err
}

// runsCount is "1 run" or "N runs".
func runsCount(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}
