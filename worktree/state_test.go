package worktree

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn/internal/testrepo"
)

// TestStateRestore holds that Restore puts back exactly what TakeState
// recorded — HEAD and its branch, tracked and untracked files, the index —
// whatever a session did in between, and leaves ignored files and cairn's
// own alone.
func TestStateRestore(t *testing.T) {
	t.Parallel()
	root, _ := testrepo.New(t)
	testrepo.Write(t, filepath.Join(root, ".gitignore"), "/build/\n")
	testrepo.Git(t, root, "add", ".gitignore")
	testrepo.Git(t, root, "commit", "-q", "-m", "ignore build")
	// The run agent's work, as the judge finds it: an edit, a staged new
	// file, an untracked one, a deletion.
	testrepo.Write(t, filepath.Join(root, "README.md"), "hello\nby the agent\n")
	testrepo.Write(t, filepath.Join(root, "staged.txt"), "staged by the agent\n")
	testrepo.Git(t, root, "add", "staged.txt")
	testrepo.Write(t, filepath.Join(root, "notes", "untracked.txt"), "left by the agent\n")
	if err := os.Remove(filepath.Join(root, "old.txt")); err != nil {
		t.Fatal(err)
	}
	head := testrepo.Git(t, root, "rev-parse", "HEAD")
	status := testrepo.Git(t, root, "status", "--porcelain")

	before, err := TakeState(context.Background(), testGit(), root)
	if err != nil {
		t.Fatal(err)
	}
	if what, err := before.Restore(context.Background()); err != nil || what != "" {
		t.Fatalf("restore with nothing changed: %q, %v", what, err)
	}

	// The judge: commits on a new branch, edits, deletes, adds, turns a
	// file into a folder, writes where git ignores and where cairn keeps
	// its own files.
	testrepo.Git(t, root, "checkout", "-q", "-b", "judge")
	testrepo.Write(t, filepath.Join(root, "README.md"), "judged\n")
	testrepo.Git(t, root, "add", "-A")
	testrepo.Git(t, root, "commit", "-q", "-m", "by the judge")
	testrepo.Write(t, filepath.Join(root, "notes", "untracked.txt"), "judged\n")
	if err := os.Remove(filepath.Join(root, "staged.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "logo.bin")); err != nil {
		t.Fatal(err)
	}
	testrepo.Write(t, filepath.Join(root, "logo.bin", "inside.txt"), "a folder now\n")
	testrepo.Write(t, filepath.Join(root, "deep", "er", "new.txt"), "added by the judge\n")
	testrepo.Write(t, filepath.Join(root, "build", "out.o"), "ignored\n")
	testrepo.Write(t, filepath.Join(root, ".cairn", "runs", "r", "run.json"), "{}\n")

	what, err := before.Restore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(what, "HEAD moved from main (") || !strings.Contains(what, "to judge (") || !strings.Contains(what, "files changed") {
		t.Errorf("restore said %q", what)
	}
	if got := testrepo.Git(t, root, "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Errorf("HEAD is %s, want refs/heads/main", got)
	}
	if got := testrepo.Git(t, root, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD at %s, want %s", got, head)
	}
	if got := testrepo.Git(t, root, "status", "--porcelain", "--", ".", ":(exclude).cairn"); got != status {
		t.Errorf("git status after restore:\n%s\nwant\n%s", got, status)
	}
	for path, want := range map[string]string{
		"README.md":              "hello\nby the agent\n",
		"staged.txt":             "staged by the agent\n",
		"notes/untracked.txt":    "left by the agent\n",
		"logo.bin":               string(testrepo.Binary),
		"build/out.o":            "ignored\n",
		".cairn/runs/r/run.json": "{}\n",
		"deep/er/new.txt":        "",
		"logo.bin/inside.txt":    "",
		"old.txt":                "",
	} {
		got, err := os.ReadFile(filepath.Join(root, path))
		switch {
		case want == "" && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			t.Errorf("%s: %q, %v; want it gone", path, got, err)
		case want != "" && (err != nil || string(got) != want):
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "deep")); !os.IsNotExist(err) {
		t.Errorf("the folder the judge made is left: %v", err)
	}
}

// TestStateDetached holds that a commit a session made on a detached
// HEAD (a throwaway worktree) is dropped, and the index it staged with it.
func TestStateDetached(t *testing.T) {
	t.Parallel()
	root, _ := testrepo.New(t)
	testrepo.Git(t, root, "checkout", "-q", "--detach")
	head := testrepo.Git(t, root, "rev-parse", "HEAD")
	before, err := TakeState(context.Background(), testGit(), root)
	if err != nil {
		t.Fatal(err)
	}
	testrepo.Write(t, filepath.Join(root, "judge.txt"), "judged\n")
	testrepo.Git(t, root, "add", "judge.txt")
	testrepo.Git(t, root, "commit", "-q", "-m", "by the judge")
	what, err := before.Restore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := `1 file changed ("judge.txt")`; !strings.Contains(what, want) || !strings.HasPrefix(what, "HEAD moved from "+head[:12]+" to ") {
		t.Errorf("restore said %q", what)
	}
	if got := testrepo.Git(t, root, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD at %s, want %s", got, head)
	}
	if err := exec.Command("git", "-C", root, "symbolic-ref", "-q", "HEAD").Run(); err == nil {
		t.Error("HEAD is on a branch, want it detached")
	}
	if got := testrepo.Git(t, root, "status", "--porcelain"); got != "" {
		t.Errorf("git status after restore: %q", got)
	}
}
