package main

import (
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/runtime"
	"github.com/cairn-dev/cairn/templates"
)

// statusCmd is `cairn status`.
type statusCmd struct {
	JSON bool `name:"json" help:"Print one JSON document."`
	All  bool `help:"List every run of every repository, not only the latest of this one."`
}

// The most runs and skipped runs status lists without --all.
const (
	statusRuns    = 20
	statusSkipped = 5
)

// Run lists the runs of this repository (every run outside one), newest
// first, running and crashed ones first, and the Passes lately skipped.
func (c *statusCmd) Run(a *app) error {
	o := runtime.StatusOptions{Limit: statusRuns, Skipped: statusSkipped, Now: time.Now()}
	repo, more, err := repoRuns()
	if err != nil {
		return err
	}
	o.More = more
	if c.All {
		o.Limit, o.Skipped = 0, statusRuns
	} else {
		o.Repo = repo
	}
	l, err := runtime.StatusList(config.Home(), o)
	if err != nil {
		return err
	}
	if c.JSON {
		return l.WriteJSON(a.stdout, terminal(a.stdout))
	}
	return l.WriteText(a.stdout, templates.Style{Color: colorOn(a.stdout)})
}
