package worktree

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testrepo"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testrepo.Git(t, dir, "init", "-q", "-b", "main")
	testrepo.Write(t, filepath.Join(dir, "kept.txt"), "kept\n")
	testrepo.Write(t, filepath.Join(dir, "old.txt"), "before\n")
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-q", "-m", "init")
	baseline := testrepo.Git(t, dir, "rev-parse", "HEAD")

	// The step: a commit, a staged change, an unstaged one, a new file,
	// and cairn's own files, which the judge must not read.
	testrepo.Write(t, filepath.Join(dir, "committed.txt"), "committed\n")
	testrepo.Git(t, dir, "add", "committed.txt")
	testrepo.Git(t, dir, "commit", "-q", "-m", "step")
	testrepo.Write(t, filepath.Join(dir, "old.txt"), "after\n")
	testrepo.Write(t, filepath.Join(dir, "staged.txt"), "staged\n")
	testrepo.Git(t, dir, "add", "staged.txt")
	testrepo.Write(t, filepath.Join(dir, "untracked.txt"), "untracked\n")
	testrepo.Write(t, filepath.Join(dir, ".cairn", "runs", "p_2026", "run.json"), "{}\n")
	testrepo.Write(t, filepath.Join(dir, ".cairn", "skills", "fix", "SKILL.md"), "skill\n")
	testrepo.Write(t, filepath.Join(dir, ".cairn-issue.md"), "issue\n")
	indexBefore, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	statusBefore := testrepo.Git(t, dir, "status", "--porcelain")

	diff, cut, err := Diff(context.Background(), testGit(), dir, baseline, MaxDiff)
	if err != nil {
		t.Fatal(err)
	}
	if cut {
		t.Error("a small diff was cut")
	}
	for _, want := range []string{
		"+++ b/committed.txt\n", "+committed\n",
		"--- a/old.txt\n", "-before\n", "+after\n",
		"+++ b/staged.txt\n", "+staged\n",
		"+++ b/untracked.txt\n", "+untracked\n",
	} {
		if !strings.Contains(diff, want) {
			t.Errorf("the diff lacks %q:\n%s", want, diff)
		}
	}
	for _, not := range []string{".cairn", "kept.txt", "issue"} {
		if strings.Contains(diff, not) {
			t.Errorf("the diff holds %q:\n%s", not, diff)
		}
	}
	indexAfter, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if string(indexAfter) != string(indexBefore) {
		t.Error("Diff changed the worktree's own index")
	}
	if got := testrepo.Git(t, dir, "status", "--porcelain"); got != statusBefore {
		t.Errorf("git status changed:\n%s\nwas\n%s", got, statusBefore)
	}

	// Nothing changed since HEAD: an empty diff.
	head := testrepo.Git(t, dir, "rev-parse", "HEAD")
	testrepo.Git(t, dir, "add", "-A", "--", ".", ":(exclude).cairn", ":(exclude).cairn-issue.md")
	testrepo.Git(t, dir, "commit", "-q", "-m", "rest")
	if diff, _, err := Diff(context.Background(), testGit(), dir, testrepo.Git(t, dir, "rev-parse", "HEAD"), MaxDiff); err != nil || diff != "" {
		t.Errorf("Diff after committing everything = %q, %v; want nothing", diff, err)
	}

	// A cap cuts at a line's end.
	diff, cut, err = Diff(context.Background(), testGit(), dir, head, 60)
	if err != nil {
		t.Fatal(err)
	}
	if !cut || len(diff) > 60 || (diff != "" && !strings.HasSuffix(diff, "\n")) {
		t.Errorf("Diff(limit 60) = %q, cut %v; want at most 60 bytes ending a line, cut", diff, cut)
	}
}

func TestDiffNoCommits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testrepo.Git(t, dir, "init", "-q", "-b", "main")
	testrepo.Write(t, filepath.Join(dir, "new.txt"), "new\n")
	diff, cut, err := Diff(context.Background(), testGit(), dir, "", MaxDiff)
	if err != nil {
		t.Fatal(err)
	}
	if cut || !strings.Contains(diff, "+++ b/new.txt\n") || !strings.Contains(diff, "+new\n") {
		t.Errorf("Diff in a repository with no commits = %q, cut %v", diff, cut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "index")); err == nil {
		t.Error("Diff wrote the repository's index")
	}
}

// TestDiffIssueFile holds that the issue file cairn writes (and git
// ignores) neither breaks the diff nor shows in it.
func TestDiffIssueFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testrepo.Git(t, dir, "init", "-q", "-b", "main")
	testrepo.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
	if err := ExcludeCairnFiles(context.Background(), testGit(), dir); err != nil {
		t.Fatal(err)
	}
	testrepo.Write(t, filepath.Join(dir, ".cairn-issue.md"), "# Issue #42\n")
	testrepo.Write(t, filepath.Join(dir, "fix.txt"), "fixed\n")
	diff, _, err := Diff(context.Background(), testGit(), dir, testrepo.Git(t, dir, "rev-parse", "HEAD"), MaxDiff)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "+++ b/fix.txt\n") || strings.Contains(diff, "cairn-issue") {
		t.Errorf("Diff with the issue file = %q; want fix.txt only", diff)
	}
}
