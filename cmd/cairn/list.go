package main

import (
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/views"
)

// listCmd is `cairn list`.
type listCmd struct {
	JSON bool `name:"json" help:"Print one JSON document."`
}

// Run lists every process cairn finds, each with its description or, when
// its file does not parse, its first refusal.
func (c *listCmd) Run(a *app) error {
	l := load.Open(a.ctx, a.dir, load.Options{NoPreflight: true, Env: a.env}).List()
	var err error
	if c.JSON {
		err = l.WriteJSON(a.stdout, terminal(a.stdout))
	} else {
		err = l.WriteText(a.stdout, a.stderr, views.Style{Color: colorOn(a.env, a.stderr)})
	}
	if err != nil {
		return err
	}
	if l.Failed() {
		return failed
	}
	return nil
}
