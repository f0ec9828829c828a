package main

import (
	"fmt"
	"path/filepath"

	"github.com/cairn-dev/cairn/runtime"
)

// stopCmd is `cairn stop`.
type stopCmd struct {
	Target string `arg:"" optional:"" name:"run" help:"${run_help}"`
}

// Run asks a running run's cairn to stop, with SIGTERM (docs/design.md
// §7.9): it starts nothing more, stops its steps and records the run
// interrupted. Of a crashed run it ends what the run left running.
func (c *stopCmd) Run(a *app) error {
	dir, err := findRun(a, c.Target)
	if err != nil {
		return err
	}
	pid, err := runtime.Stop(dir, a.stderr)
	if err != nil || pid == 0 {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "stopping %s (pid %d)\n", filepath.Base(dir), pid)
	return err
}
