package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/runtime"
)

// stopCmd is `cairn stop`.
type stopCmd struct {
	Target string `arg:"" optional:"" name:"run" help:"${run_help}"`
}

// Run asks a running run's cairn to stop, with SIGTERM (docs/design.md §7.9): it starts
// nothing more, stops its steps and records the run interrupted. Of a
// crashed run it ends what the run left running.
func (c *stopCmd) Run(a *app) error {
	dir, err := findRun(a, c.Target)
	if err != nil {
		return err
	}
	name := filepath.Base(dir)
	rec, err := record.Load(dir)
	if err != nil {
		return err
	}
	switch rec.Status {
	case record.StatusRunning:
	case record.StatusCrashed:
		if runtime.EndCrashed(a.stderr, name, dir) > 0 {
			return nil
		}
		return fmt.Errorf("run %q is not running: it crashed (its cairn is gone); \"cairn resume %s\" continues it", name, name)
	default:
		return fmt.Errorf("run %q is not running: it ended %s", name, rec.Status)
	}
	if host, err := os.Hostname(); err == nil && rec.Host != "" && rec.Host != host {
		return fmt.Errorf("run %q runs on %s; stop it there", name, rec.Host)
	}
	if rec.PID <= 0 {
		return fmt.Errorf("run %q records no process to stop", name)
	}
	if err := syscall.Kill(rec.PID, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("run %q is not running: its cairn (pid %d) is gone", name, rec.PID)
		}
		return fmt.Errorf("stop run %q (pid %d): %w", name, rec.PID, err)
	}
	_, err = fmt.Fprintf(a.stdout, "stopping %s (pid %d)\n", name, rec.PID)
	return err
}
