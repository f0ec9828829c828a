//go:build unix

package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoGit runs git in dir in testEnv, failing the test on an error, and
// returns its trimmed output.
func repoGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := New(testEnv()).Run(context.Background(), dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// repoCommit writes README in dir and commits everything, returning the
// commit's SHA.
func repoCommit(t *testing.T, dir, msg string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte(msg+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repoGit(t, dir, "add", "-A")
	repoGit(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return repoGit(t, dir, "rev-parse", "HEAD")
}

// committedRepo makes a repository on branch main with one commit.
func committedRepo(t *testing.T) (string, *Repo) {
	t.Helper()
	dir := newRepo(t)
	repoCommit(t, dir, "start")
	repo, err := Discover(context.Background(), New(testEnv()), dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, repo
}

func TestDiscoverLinkedWorktree(t *testing.T) {
	t.Parallel()
	dir, repo := committedRepo(t)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fromSub, err := Discover(context.Background(), New(testEnv()), sub)
	if err != nil {
		t.Fatal(err)
	}
	if fromSub.Root != repo.Root || fromSub.CommonDir != repo.CommonDir {
		t.Errorf("Discover(sub) = %+v; want %+v", fromSub, repo)
	}
	if want := filepath.Join(real, ".git"); repo.CommonDir != want {
		t.Errorf("CommonDir = %q; want %q", repo.CommonDir, want)
	}

	// A linked worktree shares the common dir.
	wt := filepath.Join(t.TempDir(), "wt")
	repoGit(t, dir, "worktree", "add", "-q", "--detach", wt)
	linked, err := Discover(context.Background(), New(testEnv()), wt)
	if err != nil {
		t.Fatal(err)
	}
	if linked.CommonDir != repo.CommonDir {
		t.Errorf("worktree CommonDir = %q; want %q", linked.CommonDir, repo.CommonDir)
	}
}

func TestBaseHEAD(t *testing.T) {
	t.Parallel()
	dir, repo := committedRepo(t)
	repoGit(t, dir, "checkout", "-q", "-b", "work")
	sha := repoCommit(t, dir, "work")
	branch, got, err := repo.Base(context.Background(), "")
	if err != nil || branch != "work" || got != sha {
		t.Errorf("Base() = %q, %q, %v; want %q, %q", branch, got, err, "work", sha)
	}

	repoGit(t, dir, "checkout", "-q", "--detach")
	branch, got, err = repo.Base(context.Background(), "")
	if err != nil || branch != "HEAD" || got != sha {
		t.Errorf("detached Base() = %q, %q, %v; want HEAD, %q", branch, got, err, sha)
	}
}

func TestBaseWanted(t *testing.T) {
	t.Parallel()
	dir, repo := committedRepo(t)
	mainSHA := repoGit(t, dir, "rev-parse", "HEAD")
	repoGit(t, dir, "checkout", "-q", "-b", "work")
	repoCommit(t, dir, "work")

	branch, sha, err := repo.Base(context.Background(), "main")
	if err != nil || branch != "main" || sha != mainSHA {
		t.Errorf("Base(main) = %q, %q, %v; want main, %q", branch, sha, err, mainSHA)
	}

	_, _, err = repo.Base(context.Background(), "trunk")
	if err == nil || !strings.Contains(err.Error(), `base branch "trunk"`) || !strings.Contains(err.Error(), `"origin/trunk"`) {
		t.Errorf("Base(trunk) error = %v; want one naming trunk and origin/trunk", err)
	}
}

func TestBaseOrigin(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	seed := filepath.Join(tmp, "seed")
	origin := filepath.Join(tmp, "origin.git")
	repoGit(t, tmp, "init", "-q", "--bare", "-b", "trunk", origin)
	repoGit(t, tmp, "init", "-q", "-b", "trunk", seed)
	trunk := repoCommit(t, seed, "start")
	repoGit(t, seed, "checkout", "-q", "-b", "release")
	release := repoCommit(t, seed, "release")
	repoGit(t, seed, "push", "-q", origin, "trunk", "release")

	clone := filepath.Join(tmp, "clone")
	repoGit(t, tmp, "clone", "-q", origin, clone)
	repoGit(t, clone, "checkout", "-q", "-b", "feature")
	repoCommit(t, clone, "feature")
	repo, err := Discover(context.Background(), New(testEnv()), clone)
	if err != nil {
		t.Fatal(err)
	}

	// origin's default branch, not HEAD's.
	branch, sha, err := repo.Base(context.Background(), "")
	if err != nil || branch != "trunk" || sha != trunk {
		t.Errorf("Base() = %q, %q, %v; want trunk, %q", branch, sha, err, trunk)
	}
	// A base branch that exists only on origin.
	branch, sha, err = repo.Base(context.Background(), "release")
	if err != nil || branch != "release" || sha != release {
		t.Errorf("Base(release) = %q, %q, %v; want release, %q", branch, sha, err, release)
	}
	// A local branch wins over origin's of the same name.
	repoGit(t, clone, "branch", "-q", "-f", "release", "feature")
	feature := repoGit(t, clone, "rev-parse", "feature")
	if _, sha, err = repo.Base(context.Background(), "release"); err != nil || sha != feature {
		t.Errorf("Base(release) with a local release = %q, %v; want %q", sha, err, feature)
	}
}

func TestBaseEmptyRepository(t *testing.T) {
	t.Parallel()
	repo, err := Discover(context.Background(), New(testEnv()), newRepo(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"", "main"} {
		if _, _, err := repo.Base(context.Background(), want); err == nil || !strings.Contains(err.Error(), "has no commits yet") {
			t.Errorf("Base(%q) error = %v; want one saying the repository has no commits yet", want, err)
		}
	}
}
