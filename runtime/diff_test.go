package runtime

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn runs git in dir with a fixed identity, failing the test on error.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@cairn.invalid",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@cairn.invalid")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStepDiff(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "kept.txt"), "kept\n")
	writeFile(t, filepath.Join(dir, "old.txt"), "before\n")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "init")
	baseline := gitIn(t, dir, "rev-parse", "HEAD")

	// The step: a commit, a staged change, an unstaged one, a new file,
	// and cairn's own files, which the judge must not read.
	writeFile(t, filepath.Join(dir, "committed.txt"), "committed\n")
	gitIn(t, dir, "add", "committed.txt")
	gitIn(t, dir, "commit", "-q", "-m", "step")
	writeFile(t, filepath.Join(dir, "old.txt"), "after\n")
	writeFile(t, filepath.Join(dir, "staged.txt"), "staged\n")
	gitIn(t, dir, "add", "staged.txt")
	writeFile(t, filepath.Join(dir, "untracked.txt"), "untracked\n")
	writeFile(t, filepath.Join(dir, ".cairn", "runs", "p_2026", "run.json"), "{}\n")
	writeFile(t, filepath.Join(dir, ".cairn", "skills", "fix", "SKILL.md"), "skill\n")
	writeFile(t, filepath.Join(dir, ".cairn-issue.md"), "issue\n")
	indexBefore, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	statusBefore := gitIn(t, dir, "status", "--porcelain")

	diff, cut, err := StepDiff(dir, baseline, MaxDiff)
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
		t.Error("StepDiff changed the worktree's own index")
	}
	if got := gitIn(t, dir, "status", "--porcelain"); got != statusBefore {
		t.Errorf("git status changed:\n%s\nwas\n%s", got, statusBefore)
	}

	// Nothing changed since HEAD: an empty diff.
	head := gitIn(t, dir, "rev-parse", "HEAD")
	gitIn(t, dir, "add", "-A", "--", ".", ":(exclude).cairn", ":(exclude).cairn-issue.md")
	gitIn(t, dir, "commit", "-q", "-m", "rest")
	if diff, _, err := StepDiff(dir, gitIn(t, dir, "rev-parse", "HEAD"), MaxDiff); err != nil || diff != "" {
		t.Errorf("StepDiff after committing everything = %q, %v; want nothing", diff, err)
	}

	// A cap cuts at a line's end.
	diff, cut, err = StepDiff(dir, head, 60)
	if err != nil {
		t.Fatal(err)
	}
	if !cut || len(diff) > 60 || (diff != "" && !strings.HasSuffix(diff, "\n")) {
		t.Errorf("StepDiff(limit 60) = %q, cut %v; want at most 60 bytes ending a line, cut", diff, cut)
	}
}

func TestStepDiffNoCommits(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "new.txt"), "new\n")
	diff, cut, err := StepDiff(dir, "", MaxDiff)
	if err != nil {
		t.Fatal(err)
	}
	if cut || !strings.Contains(diff, "+++ b/new.txt\n") || !strings.Contains(diff, "+new\n") {
		t.Errorf("StepDiff in a repository with no commits = %q, cut %v", diff, cut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "index")); err == nil {
		t.Error("StepDiff wrote the repository's index")
	}
}

// TestStepDiffIssueFile holds that the issue file cairn writes (and git
// ignores) neither breaks the diff nor shows in it.
func TestStepDiffIssueFile(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
	if err := ExcludeCairnFiles(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ".cairn-issue.md"), "# Issue #42\n")
	writeFile(t, filepath.Join(dir, "fix.txt"), "fixed\n")
	diff, _, err := StepDiff(dir, gitIn(t, dir, "rev-parse", "HEAD"), MaxDiff)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "+++ b/fix.txt\n") || strings.Contains(diff, "cairn-issue") {
		t.Errorf("StepDiff with the issue file = %q; want fix.txt only", diff)
	}
}
