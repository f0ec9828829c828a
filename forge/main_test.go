package forge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain sets the git identity and config every test's git runs with,
// once, so that the tests may run in parallel.
func TestMain(m *testing.M) {
	for k, v := range map[string]string{
		"GIT_AUTHOR_NAME":     "Test",
		"GIT_AUTHOR_EMAIL":    "test@example.com",
		"GIT_COMMITTER_NAME":  "Test",
		"GIT_COMMITTER_EMAIL": "test@example.com",
		"GIT_CONFIG_GLOBAL":   "/dev/null",
		"GIT_CONFIG_NOSYSTEM": "1",
	} {
		os.Setenv(k, v)
	}
	os.Exit(m.Run())
}

// wtRepo makes a repository on branch main with one commit, and returns
// its root and git common dir.
func wtRepo(t testing.TB) (root, commonDir string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "repo")
	wtGit(t, "", "init", "-q", "-b", "main", root)
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wtGit(t, root, "add", "-A")
	wtGit(t, root, "commit", "-q", "-m", "first")
	common, err := filepath.EvalSymlinks(filepath.Join(root, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	return root, common
}

// wtGit runs git in dir (none: the current folder) and returns its output,
// trimmed, failing the test on an error.
func wtGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	out, err := exec.Command("git", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
