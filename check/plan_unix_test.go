//go:build unix

package check

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
)

// TestWorktreeIncludeHostile: a .worktreeinclude that is a named pipe, a
// link out of the repository or a folder adds nothing to the plan, and
// reading it never waits.
func TestWorktreeIncludeHostile(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	outside := filepath.Join(t.TempDir(), "include")
	if err := os.WriteFile(outside, []byte(".env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, make := range map[string]func(path string) error{
		"fifo":    func(path string) error { return syscall.Mkfifo(path, 0o644) },
		"link":    func(path string) error { return os.Symlink(outside, path) },
		"folder":  func(path string) error { return os.Mkdir(path, 0o755) },
		"up-link": func(path string) error { return os.Symlink("../include", path) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			if err := make(filepath.Join(dir, ir.WorktreeInclude)); err != nil {
				t.Fatal(err)
			}
			repo, err := git.Discover(context.Background(), git.New(os.Environ()), dir)
			if err != nil {
				t.Fatal(err)
			}
			p := mustTOML(t, "p.toml", "version = 1\n[[steps]]\nname = \"a\"\ncommand = \"true\"\n")
			env := &Env{Home: t.TempDir(), Config: &config.Config{}, Repo: repo}
			plan := BuildPlan(context.Background(), p, Resolve(context.Background(), p, env), env)
			if len(plan.Worktrees) != 1 || len(plan.Worktrees[0].Copy) != 0 {
				t.Errorf("worktrees %+v; want the default with nothing to copy", plan.Worktrees)
			}
		})
	}
}
