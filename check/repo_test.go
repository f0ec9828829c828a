package check

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/ir"
)

// lookupGitEnv isolates git from the machine's configuration and gives it an
// identity.
func lookupGitEnv(t *testing.T) {
	t.Helper()
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL":   os.DevNull,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Ada",
		"GIT_AUTHOR_EMAIL":    "ada@example.com",
		"GIT_COMMITTER_NAME":  "Ada",
		"GIT_COMMITTER_EMAIL": "ada@example.com",
	} {
		t.Setenv(k, v)
	}
}

// lookupGit runs git in dir and returns its trimmed output.
func lookupGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// lookupWrite writes content to path, making its folders.
func lookupWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lookupCommit commits everything in dir and returns the commit's SHA.
func lookupCommit(t *testing.T, dir, msg string) string {
	t.Helper()
	lookupGit(t, dir, "add", "-A")
	lookupGit(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return lookupGit(t, dir, "rev-parse", "HEAD")
}

// lookupRepo makes a repository on branch main with one commit.
func lookupRepo(t *testing.T) (string, *Repo) {
	t.Helper()
	lookupGitEnv(t)
	dir := t.TempDir()
	lookupGit(t, dir, "init", "-q", "-b", "main")
	lookupWrite(t, filepath.Join(dir, "README"), "hello\n")
	lookupCommit(t, dir, "start")
	repo, err := OpenRepo(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, repo
}

func lookupBaseBranch(name string) *config.Config {
	return &config.Config{BaseBranch: ir.Field[string]{Value: name, Set: true}}
}

func TestOpenRepo(t *testing.T) {
	dir, repo := lookupRepo(t)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fromSub, err := OpenRepo(sub)
	if err != nil {
		t.Fatal(err)
	}
	if fromSub.Root != repo.Root || fromSub.CommonDir != repo.CommonDir {
		t.Errorf("OpenRepo(sub) = %+v; want %+v", fromSub, repo)
	}
	if want := filepath.Join(real, ".git"); repo.CommonDir != want {
		t.Errorf("CommonDir = %q; want %q", repo.CommonDir, want)
	}

	// A linked worktree shares the common dir.
	wt := filepath.Join(t.TempDir(), "wt")
	lookupGit(t, dir, "worktree", "add", "-q", "--detach", wt)
	linked, err := OpenRepo(wt)
	if err != nil {
		t.Fatal(err)
	}
	if linked.CommonDir != repo.CommonDir {
		t.Errorf("worktree CommonDir = %q; want %q", linked.CommonDir, repo.CommonDir)
	}

	outside := t.TempDir()
	if _, err := OpenRepo(outside); err == nil || !strings.Contains(err.Error(), "is not inside a git repository") {
		t.Errorf("OpenRepo(outside) error = %v; want one saying it is not inside a git repository", err)
	}
}

func TestBaseHEAD(t *testing.T) {
	dir, repo := lookupRepo(t)
	lookupGit(t, dir, "checkout", "-q", "-b", "work")
	sha := lookupCommit(t, dir, "work")
	branch, got, err := repo.Base(&config.Config{})
	if err != nil || branch != "work" || got != sha {
		t.Errorf("Base() = %q, %q, %v; want %q, %q", branch, got, err, "work", sha)
	}

	lookupGit(t, dir, "checkout", "-q", "--detach")
	branch, got, err = repo.Base(nil)
	if err != nil || branch != "HEAD" || got != sha {
		t.Errorf("detached Base() = %q, %q, %v; want HEAD, %q", branch, got, err, sha)
	}
}

func TestBaseConfigBranch(t *testing.T) {
	dir, repo := lookupRepo(t)
	mainSHA := lookupGit(t, dir, "rev-parse", "HEAD")
	lookupGit(t, dir, "checkout", "-q", "-b", "work")
	lookupCommit(t, dir, "work")

	branch, sha, err := repo.Base(lookupBaseBranch("main"))
	if err != nil || branch != "main" || sha != mainSHA {
		t.Errorf("Base(main) = %q, %q, %v; want main, %q", branch, sha, err, mainSHA)
	}

	_, _, err = repo.Base(lookupBaseBranch("trunk"))
	if err == nil || !strings.Contains(err.Error(), `base branch "trunk"`) || !strings.Contains(err.Error(), `"origin/trunk"`) {
		t.Errorf("Base(trunk) error = %v; want one naming trunk and origin/trunk", err)
	}
}

func TestBaseOrigin(t *testing.T) {
	lookupGitEnv(t)
	tmp := t.TempDir()
	seed := filepath.Join(tmp, "seed")
	origin := filepath.Join(tmp, "origin.git")
	lookupGit(t, tmp, "init", "-q", "--bare", "-b", "trunk", origin)
	lookupGit(t, tmp, "init", "-q", "-b", "trunk", seed)
	lookupWrite(t, filepath.Join(seed, "README"), "hello\n")
	trunk := lookupCommit(t, seed, "start")
	lookupGit(t, seed, "checkout", "-q", "-b", "release")
	release := lookupCommit(t, seed, "release")
	lookupGit(t, seed, "push", "-q", origin, "trunk", "release")

	clone := filepath.Join(tmp, "clone")
	lookupGit(t, tmp, "clone", "-q", origin, clone)
	lookupGit(t, clone, "checkout", "-q", "-b", "feature")
	lookupCommit(t, clone, "feature")
	repo, err := OpenRepo(clone)
	if err != nil {
		t.Fatal(err)
	}

	// origin's default branch, not HEAD's.
	branch, sha, err := repo.Base(&config.Config{})
	if err != nil || branch != "trunk" || sha != trunk {
		t.Errorf("Base() = %q, %q, %v; want trunk, %q", branch, sha, err, trunk)
	}
	// A base_branch that exists only on origin.
	branch, sha, err = repo.Base(lookupBaseBranch("release"))
	if err != nil || branch != "release" || sha != release {
		t.Errorf("Base(release) = %q, %q, %v; want release, %q", branch, sha, err, release)
	}
	// A local branch wins over origin's of the same name.
	lookupGit(t, clone, "branch", "-q", "-f", "release", "feature")
	feature := lookupGit(t, clone, "rev-parse", "feature")
	if _, sha, err = repo.Base(lookupBaseBranch("release")); err != nil || sha != feature {
		t.Errorf("Base(release) with a local release = %q, %v; want %q", sha, err, feature)
	}
}

func TestBaseEmptyRepository(t *testing.T) {
	lookupGitEnv(t)
	dir := t.TempDir()
	lookupGit(t, dir, "init", "-q", "-b", "main")
	repo, err := OpenRepo(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []*config.Config{{}, lookupBaseBranch("main")} {
		if _, _, err := repo.Base(cfg); err == nil || !strings.Contains(err.Error(), "has no commits yet") {
			t.Errorf("Base() error = %v; want one saying the repository has no commits yet", err)
		}
	}
}
