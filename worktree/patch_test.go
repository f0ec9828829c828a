package worktree

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testrepo"
	"github.com/cairn-dev/cairn/ir"
)

// TestSavePatchSubmodules holds that what was done inside an initialised
// submodule is saved as its own patch, that applyPatches brings it back in
// a fresh worktree, that a later save with nothing changed leaves no stale
// patch, and that a submodule the base lacks keeps its worktree.
func TestSavePatchSubmodules(t *testing.T) {
	root, common := testrepo.New(t)
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "protocol.file.allow")
	t.Setenv("GIT_CONFIG_VALUE_0", "always")
	lib := filepath.Join(t.TempDir(), "lib")
	testrepo.Git(t, "", "init", "-q", "-b", "main", lib)
	testrepo.Write(t, filepath.Join(lib, "lib.txt"), "a library\n")
	testrepo.Git(t, lib, "add", "lib.txt")
	testrepo.Git(t, lib, "commit", "-q", "-m", "lib")
	testrepo.Git(t, root, "submodule", "add", "-q", lib, "vendor/lib")
	testrepo.Git(t, root, "commit", "-q", "-m", "the library")

	w, err := openIn(context.Background(), root, common, t.TempDir(), "run1", throwaways("a"))
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := w.Get("a")
	testrepo.Git(t, wt.Path, "submodule", "update", "--init", "--quiet")
	testrepo.Write(t, filepath.Join(wt.Path, "vendor", "lib", "lib.txt"), "a library\nchanged\n")
	testrepo.Write(t, filepath.Join(wt.Path, "vendor", "lib", "new.bin"), "\x00binary\x00")
	patches := filepath.Join(t.TempDir(), "worktrees")
	if err := savePatch(context.Background(), testGit(), wt, patches, true); err != nil {
		t.Fatal(err)
	}
	patch := filepath.Join(patches, "a.submodules", "vendor", "lib.patch")
	body, err := os.ReadFile(patch)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(body, []byte("+changed")) || !bytes.Contains(body, []byte("b/new.bin")) {
		t.Errorf("%s lacks the submodule's changes:\n%s", patch, body)
	}
	if _, err := os.Stat(filepath.Join(patches, "a.patch")); !os.IsNotExist(err) {
		t.Errorf("a.patch saved though nothing outside the submodule changed (%v)", err)
	}

	fresh := Worktree{Name: "a", Kind: ir.Throwaway, Path: filepath.Join(t.TempDir(), "fresh"), Base: wt.Base}
	testrepo.Git(t, root, "worktree", "add", "-q", "--detach", fresh.Path, wt.Base)
	if err := applyPatches(context.Background(), testGit(), fresh, patches); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"vendor/lib/lib.txt": "a library\nchanged\n", "vendor/lib/new.bin": "\x00binary\x00"} {
		if got, err := os.ReadFile(filepath.Join(fresh.Path, path)); err != nil || string(got) != want {
			t.Errorf("%s after applyPatches: %q, %v; want %q", path, got, err, want)
		}
	}

	// Undone since: the next save removes what the first one saved.
	testrepo.Git(t, filepath.Join(wt.Path, "vendor", "lib"), "checkout", "-q", "--", ".")
	if err := os.Remove(filepath.Join(wt.Path, "vendor", "lib", "new.bin")); err != nil {
		t.Fatal(err)
	}
	if err := savePatch(context.Background(), testGit(), wt, patches, true); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(patches); len(entries) != 0 {
		t.Errorf("%s still holds %v", patches, entries)
	}

	// A submodule the base does not have cannot start again from a patch.
	testrepo.Git(t, wt.Path, "submodule", "add", "-q", lib, "other")
	err = savePatch(context.Background(), testGit(), wt, patches, true)
	if err == nil || !strings.Contains(err.Error(), `submodule "other" is not in the worktree's base`) {
		t.Fatalf("savePatch with a new submodule: %v", err)
	}
	testrepo.Git(t, root, "worktree", "remove", "--force", fresh.Path)
	if err := w.Close(context.Background(), patches); err == nil || !strings.Contains(err.Error(), wt.Path) {
		t.Fatalf("Close: %v; want an error naming %s", err, wt.Path)
	}
	if _, err := os.Stat(filepath.Join(wt.Path, "other", "lib.txt")); err != nil {
		t.Errorf("the worktree was not kept: %v", err)
	}
}

// TestSavePatchKeepsSaved holds the rule of a save over an earlier one: a
// worktree whose saved changes are being applied (its applying marker is
// there) saves nothing, and one no step ran in since they were applied
// never replaces them with less; after a step ran, what it holds is saved,
// less or nothing too.
func TestSavePatchKeepsSaved(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	w, err := openIn(context.Background(), root, common, t.TempDir(), "run1", throwaways("a"))
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := w.Get("a")
	work := filepath.Join(wt.Path, "work.txt")
	const saved = "the work\nof a step\nthat ran before\n"
	for _, c := range []struct {
		name     string
		holds    string // work.txt's content; "" for none
		applying bool
		ran      bool
		want     string // what a.patch adds; "" for no patch
	}{
		{"applying, clean", "", true, true, saved},
		{"applying, half applied", "the work\n", true, false, saved},
		{"applying, more", saved + "and more\n", true, true, saved},
		{"no step, clean", "", false, false, saved},
		{"no step, less", "the work\n", false, false, saved},
		{"no step, the same", saved, false, false, saved},
		{"no step, more", saved + "and more\n", false, false, saved + "and more\n"},
		{"a step, less", "the work\n", false, true, "the work\n"},
		{"a step, clean", "", false, true, ""},
	} {
		patches := filepath.Join(t.TempDir(), "worktrees")
		testrepo.Write(t, work, saved)
		if err := savePatch(context.Background(), testGit(), wt, patches, true); err != nil {
			t.Fatal(err)
		}
		if c.applying {
			if err := BeginReopen(patches, throwaways("a")); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Remove(work); err != nil {
			t.Fatal(err)
		}
		if c.holds != "" {
			testrepo.Write(t, work, c.holds)
		}
		if err := savePatch(context.Background(), testGit(), wt, patches, c.ran); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		body, err := os.ReadFile(filepath.Join(patches, "a.patch"))
		if c.want == "" {
			if !os.IsNotExist(err) {
				t.Errorf("%s: a.patch is still there (%v)", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if added := addedLines(body); added != c.want {
			t.Errorf("%s: a.patch adds %q; want %q", c.name, added, c.want)
		}
	}
}

// addedLines are the lines a patch of one new file adds, joined.
func addedLines(patch []byte) string {
	var b strings.Builder
	for line := range strings.Lines(string(patch)) {
		if strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++") {
			b.WriteString(line[1:])
		}
	}
	return b.String()
}
