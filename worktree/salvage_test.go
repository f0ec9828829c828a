package worktree

import (
	"context"
	"fmt"
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
	repo := &git.Repo{Root: root, CommonDir: common, Git: git.New(os.Environ())}
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
		if _, err := Salvage(context.Background(), home, repo, c.name, filepath.Join(dir, "worktrees"), recorded); err != nil {
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
	repo := &git.Repo{Root: root, CommonDir: common, Git: git.New(os.Environ())}
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
	if err := w.Close(context.Background(), patches); err != nil {
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
	if _, err := Salvage(context.Background(), home, repo, run, patches, recorded); err != nil {
		t.Fatal(err)
	}
	if err := BeginReopen(patches, plan); err != nil {
		t.Fatal(err)
	}
	w, err = openIn(context.Background(), root, common, home, run, plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Reopen(context.Background(), recorded, patches); err != nil {
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
	if err := w.Close(context.Background(), patches); err != nil {
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

// TestSalvageLeavesStrays holds that what a crashed run's step wrote beside
// its worktree, in ../, stays where it is, named, while the worktree's
// changes are saved and the worktree removed.
func TestSalvageLeavesStrays(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	repo := &git.Repo{Root: root, CommonDir: common, Git: git.New(os.Environ())}
	home, run := t.TempDir(), "hunt_2026-01-01T000000Z"
	patches := filepath.Join(t.TempDir(), "worktrees")
	w, err := openIn(context.Background(), root, common, home, run, throwaways("a"))
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := w.Get("a")
	testrepo.Write(t, filepath.Join(wt.Path, "work.txt"), "the work\n")
	runDir := filepath.Dir(wt.Path)
	strays := map[string]string{"stray.txt": "beside\n", "strays/inner.txt": "deeper\n"}
	for name, body := range strays {
		testrepo.Write(t, filepath.Join(runDir, filepath.FromSlash(name)), body)
	}
	// A repository's worktree a step added there is the user's too.
	testrepo.Git(t, root, "worktree", "add", "-q", "--detach", filepath.Join(runDir, "mine"))

	left, err := Salvage(context.Background(), home, repo, run, patches, []Worktree{{Name: "a", Kind: ir.Throwaway}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(runDir, "mine"), filepath.Join(runDir, "stray.txt"), filepath.Join(runDir, "strays")}
	if fmt.Sprint(left) != fmt.Sprint(want) {
		t.Errorf("Salvage left %v; want %v", left, want)
	}
	for name, body := range strays {
		if got, err := os.ReadFile(filepath.Join(runDir, filepath.FromSlash(name))); err != nil || string(got) != body {
			t.Errorf("%s after Salvage: %q, %v; want %q", name, got, err, body)
		}
	}
	if _, err := os.Stat(filepath.Join(runDir, "mine", ".git")); err != nil {
		t.Errorf("the user's worktree is gone: %v", err)
	}
	if _, err := os.Lstat(wt.Path); !os.IsNotExist(err) {
		t.Errorf("worktree a is still there (%v)", err)
	}
	if body, err := os.ReadFile(filepath.Join(patches, "a.patch")); err != nil || addedLines(body) != "the work\n" {
		t.Errorf("a.patch: %q, %v; want the work", body, err)
	}
}
