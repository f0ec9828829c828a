package worktree

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/testrepo"
	"github.com/cairn-dev/cairn/ir"
)

// Salvage goes through no symbolic link where a crashed run's worktrees
// would be: the link goes, and what it points to stays, a repository's
// folder too.
func TestSalvageRemovesLinksOnly(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	repo := &git.Repo{Root: root, CommonDir: common, Env: os.Environ()}
	home := t.TempDir()
	for _, c := range []struct{ name, link string }{
		{"hunt_2026-01-01T000000Z", ""},  // worktrees/RUN is the link
		{"hunt_2026-01-02T000000Z", "a"}, // worktrees/RUN/a is
	} {
		dir := filepath.Join(home, "runs", c.name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		outside := filepath.Join(root, "outside-"+c.name)
		testrepo.Write(t, filepath.Join(outside, "a", "keep.txt"), "not cairn's\n")
		link := filepath.Join(home, "worktrees", c.name)
		target := outside
		if c.link != "" {
			link, target = filepath.Join(link, c.link), filepath.Join(outside, "a")
		}
		if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		// The run's record says its worktree "a" is a throwaway, whose
		// changes salvage saves before it removes it.
		recorded := []Worktree{{Name: "a", Kind: ir.Throwaway}}
		if err := Salvage(home, repo, c.name, filepath.Join(dir, "worktrees"), recorded); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if _, err := os.Stat(filepath.Join(outside, "a", "keep.txt")); err != nil {
			t.Errorf("%s: what the link points to is gone: %v", c.name, err)
		}
		if _, err := os.Lstat(link); !os.IsNotExist(err) {
			t.Errorf("%s: the link is still there: %v", c.name, err)
		}
	}
}
