package worktree

import (
	"context"
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

// TestSalvageHalfApplied holds that a resume killed while it applied a
// worktree's saved changes loses none of them: the worktree it left, half
// applied, is not saved over them; the next resume applies them in full to
// a fresh worktree and saves them again when it ends.
func TestSalvageHalfApplied(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	repo := &git.Repo{Root: root, CommonDir: common, Env: os.Environ()}
	home, run := t.TempDir(), "hunt_2026-01-01T000000Z"
	patches := filepath.Join(t.TempDir(), "worktrees")
	plan := throwaways("a")
	w, err := openIn(context.Background(), root, common, home, run, plan)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := w.Get("a")
	work := map[string]string{"one.txt": "done by one\n", "two.txt": "done by two\n"}
	for name, body := range work {
		testrepo.Write(t, filepath.Join(wt.Path, name), body)
	}
	if err := w.Close(patches); err != nil {
		t.Fatal(err)
	}

	// The first resume makes the worktree again, applies half of its
	// changes, and is killed.
	if err := BeginReopen(patches, plan); err != nil {
		t.Fatal(err)
	}
	if _, err := openIn(context.Background(), root, common, home, run, plan); err != nil {
		t.Fatal(err)
	}
	testrepo.Write(t, filepath.Join(wt.Path, "one.txt"), work["one.txt"])

	recorded := []Worktree{{Name: "a", Kind: ir.Throwaway, Base: wt.Base}}
	if err := Salvage(home, repo, run, patches, recorded); err != nil {
		t.Fatal(err)
	}
	if err := BeginReopen(patches, plan); err != nil {
		t.Fatal(err)
	}
	w, err = openIn(context.Background(), root, common, home, run, plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Reopen(recorded, patches); err != nil {
		t.Fatal(err)
	}
	for name, body := range work {
		if got, err := os.ReadFile(filepath.Join(wt.Path, name)); err != nil || string(got) != body {
			t.Errorf("%s after the second resume: %q, %v; want %q", name, got, err, body)
		}
	}
	if _, err := os.Lstat(filepath.Join(patches, "a"+applyingSuffix)); !os.IsNotExist(err) {
		t.Errorf("the applying marker is still there after Reopen (%v)", err)
	}
	if err := w.Close(patches); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join(patches, "a.patch"))
	if err != nil {
		t.Fatal(err)
	}
	if added := addedLines(body); added != "done by one\ndone by two\n" {
		t.Errorf("a.patch adds %q; want both steps' work", added)
	}
}
