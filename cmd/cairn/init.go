package main

import (
	"fmt"
	"path/filepath"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/scaffold"
)

// initCmd is `cairn init`.
type initCmd struct {
	Name string `arg:"" optional:"" default:"changes" help:"The process's name (default: changes)."`
	Repo bool   `help:"Write into the repository's .cairn/processes/ rather than the processes folder of CAIRN_HOME."`
}

// Run writes a first process, its stubs and a test case of it into the
// processes folder (--repo: the repository's .cairn/processes/), its
// session on the agent CLI this machine has, and says what to run next.
// It writes no file over another.
func (c *initCmd) Run(a *app) error {
	ws := load.Open(a.ctx, a.dir, load.Options{Env: a.env})
	dir := filepath.Join(ws.Env.Home, "processes")
	if c.Repo {
		if ws.Env.Repo == nil {
			return usageError("--repo: the folder cairn works in is not inside a git repository")
		}
		dir = filepath.Join(ws.Env.Repo.Root, ".cairn", "processes")
	}
	harness, found := ws.FirstHarness(a.ctx)
	written, err := scaffold.Write(dir, c.Name, scaffold.Files(c.Name, harness))
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	for _, w := range written {
		fmt.Fprintf(a.stdout, "wrote %s\n", w)
	}
	if !found {
		fmt.Fprintf(a.stderr, "cairn: warning: no agent CLI can start here: the session runs on %s, the default; cairn doctor says what is missing\n", ir.DefaultHarness)
	}
	name := c.Name
	if c.Repo && !onProcessPath(ws, dir) {
		name = written[0]
		fmt.Fprintf(a.stderr, "cairn: note: %s is not on the process path: name it by its file, or add it to process_path in %s\n", dir, filepath.Join(ws.Env.Home, "config.toml"))
	}
	fmt.Fprintf(a.stdout, "next: cairn check %s; cairn test %s; cairn run %s\n", name, written[2], name)
	return nil
}

// onProcessPath reports whether cairn finds processes by name in dir.
func onProcessPath(ws *load.Workspace, dir string) bool {
	for _, d := range check.ProcessDirs(ws.Env) {
		if filepath.Clean(d) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}
