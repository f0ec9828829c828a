package main

import (
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/runtime"
	"github.com/cairn-dev/cairn/views"
)

// statusCmd is `cairn status`.
type statusCmd struct {
	JSON  bool `name:"json" help:"Print one JSON document."`
	All   bool `help:"List every run of every repository, not only the latest of this one."`
	Costs bool `help:"Show what the runs of this CAIRN_HOME spent, by UTC day and process, and the daily budget."`
}

// The most runs and skipped runs status lists without --all.
const (
	statusRuns    = 20
	statusSkipped = 5
)

// Run lists the runs of this repository (every run outside one), newest
// first, running and crashed ones first, and the Passes lately skipped.
// What the crashed runs it lists left running is ended first.
func (c *statusCmd) Run(a *app) error {
	now := time.Now()
	if c.Costs {
		return c.costs(a, now)
	}
	o := record.StatusOptions{Limit: statusRuns, Skipped: statusSkipped}
	repo, more, err := repoRuns(a)
	if err != nil {
		return err
	}
	o.More = more
	if c.All {
		o.Limit, o.Skipped = 0, statusRuns
	} else {
		o.Repo = repo
	}
	runs, err := record.StatusRuns(config.Home(a.env, a.dir, repo != ""), o)
	if err != nil {
		return err
	}
	for _, r := range runs.Folders {
		if r.Record != nil && r.Record.Status == record.StatusCrashed {
			runtime.EndCrashed(a.stderr, r.Name, r.Dir)
		}
	}
	l := views.RunListOf(runs, now)
	if c.JSON {
		return l.WriteJSON(a.stdout, terminal(a.stdout))
	}
	return l.WriteText(a.stdout, views.Style{Color: colorOn(a.env, a.stdout), Terminal: terminal(a.stdout)})
}

// costs shows what the runs of the home spent, by UTC day and process
// (`status --costs`), with the config's daily budget.
func (c *statusCmd) costs(a *app, now time.Time) error {
	repo, _, err := repoRuns(a)
	if err != nil {
		return err
	}
	home := config.Home(a.env, a.dir, repo != "")
	runs, err := record.ListRuns(home)
	if err != nil {
		return err
	}
	v := &views.Costs{Days: record.Spending(runs), Today: now.UTC().Format(record.DayFormat)}
	if cfg, _ := config.Load(home); cfg != nil {
		if d, ok := cfg.DailyBudget(); ok {
			v.DailyBudget = d.Value.USD
		}
	}
	if c.JSON {
		return v.WriteJSON(a.stdout, terminal(a.stdout))
	}
	return v.WriteText(a.stdout, views.Style{Color: colorOn(a.env, a.stdout), Terminal: terminal(a.stdout)})
}
