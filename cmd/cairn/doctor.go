package main

import (
	"github.com/cairn-dev/cairn/load"
)

// doctorCmd is `cairn doctor`.
type doctorCmd struct {
	JSON bool `name:"json" help:"Print one JSON document."`
}

// Run checks what runs need on this machine and prints a table of it; it
// fails when something a process found needs is missing.
func (c *doctorCmd) Run(a *app) error {
	d := load.Open(a.ctx, a.dir, load.Options{Env: a.env}).Doctor(a.ctx)
	var err error
	if c.JSON {
		err = d.WriteJSON(a.stdout, terminal(a.stdout))
	} else {
		err = d.WriteText(a.stdout)
	}
	if err != nil {
		return err
	}
	if d.Failed() {
		return failed
	}
	return nil
}
