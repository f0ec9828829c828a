//go:build unix

package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layout is a repository layout Find and BaseBranch are compared with git
// on.
type layout struct {
	name string
	// make builds the layout under tmp and returns the directory to open
	// from, the extra environment (a name without "=" unsets one of
	// testEnv's) and the base branch wanted.
	make func(t *testing.T, tmp string) (dir string, env []string, want string)
	// fast is whether Find answers from the files; base whether
	// BaseBranch does too.
	fast, base bool
}

// committed is a repository at tmp/name on branch main with one commit.
func committed(t *testing.T, tmp, name string) string {
	t.Helper()
	dir := filepath.Join(tmp, name)
	repoGit(t, tmp, "init", "-q", "-b", "main", dir)
	repoCommit(t, dir, "start")
	return dir
}

// cloned is a clone at tmp/clone of an origin whose default branch is
// trunk, with a branch release, checked out on a new branch feature.
func cloned(t *testing.T, tmp string) string {
	t.Helper()
	seed := filepath.Join(tmp, "seed")
	origin := filepath.Join(tmp, "origin.git")
	repoGit(t, tmp, "init", "-q", "--bare", "-b", "trunk", origin)
	repoGit(t, tmp, "init", "-q", "-b", "trunk", seed)
	repoCommit(t, seed, "start")
	repoGit(t, seed, "checkout", "-q", "-b", "release")
	repoCommit(t, seed, "release")
	repoGit(t, seed, "push", "-q", origin, "trunk", "release")
	clone := filepath.Join(tmp, "clone")
	repoGit(t, tmp, "clone", "-q", origin, clone)
	repoGit(t, clone, "checkout", "-q", "-b", "feature")
	repoCommit(t, clone, "feature")
	return clone
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

var layouts = []layout{
	{name: "plain", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		return committed(t, tmp, "r"), nil, ""
	}},
	{name: "subdirectory", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		sub := filepath.Join(committed(t, tmp, "r"), "a", "b")
		write(t, filepath.Join(sub, "f"), "")
		return sub, nil, ""
	}},
	{name: "relative directory", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		// The test's working directory is this package's: inside
		// cairn's own repository, whatever that is.
		return ".", nil, ""
	}},
	{name: "feature branch", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "checkout", "-q", "-b", "topic/x")
		return dir, nil, ""
	}},
	{name: "linked worktree", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		wt := filepath.Join(tmp, "wt")
		repoGit(t, dir, "worktree", "add", "-q", "-b", "side", wt)
		return filepath.Join(wt), nil, ""
	}},
	{name: "linked worktree detached, from a subdirectory", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		wt := filepath.Join(tmp, "wt")
		repoGit(t, dir, "worktree", "add", "-q", "--detach", wt)
		write(t, filepath.Join(wt, "d", "f"), "")
		return filepath.Join(wt, "d"), nil, ""
	}},
	{name: "linked worktree after pack-refs", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		wt := filepath.Join(tmp, "wt")
		repoGit(t, dir, "worktree", "add", "-q", "-b", "side", wt)
		repoGit(t, dir, "pack-refs", "--all")
		return wt, nil, ""
	}},
	{name: "submodule", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		sub := committed(t, tmp, "lib")
		super := committed(t, tmp, "super")
		repoGit(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "vendor/lib")
		return filepath.Join(super, "vendor", "lib"), nil, ""
	}},
	{name: "inside a submodule's superproject", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		sub := committed(t, tmp, "lib")
		super := committed(t, tmp, "super")
		repoGit(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "vendor/lib")
		return filepath.Join(super, "vendor"), nil, ""
	}},
	{name: "packed refs", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "tag", "-a", "-m", "v1", "v1")
		repoGit(t, dir, "pack-refs", "--all")
		return dir, nil, ""
	}},
	{name: "packed objects", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoCommit(t, dir, "second")
		repoGit(t, dir, "gc", "-q")
		return dir, nil, ""
	}},
	{name: "detached HEAD", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "checkout", "-q", "--detach")
		return dir, nil, ""
	}},
	{name: "detached HEAD at a missing object", fast: true, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		write(t, filepath.Join(dir, ".git", "HEAD"), strings.Repeat("ab", 20)+"\n")
		return dir, nil, ""
	}},
	{name: "clone with origin/HEAD", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		return cloned(t, tmp), nil, ""
	}},
	{name: "clone with origin/HEAD, packed", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		clone := cloned(t, tmp)
		repoGit(t, clone, "pack-refs", "--all")
		repoGit(t, clone, "gc", "-q")
		return clone, nil, ""
	}},
	{name: "origin/HEAD by remote set-head", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		clone := cloned(t, tmp)
		repoGit(t, clone, "remote", "set-head", "origin", "release")
		return clone, nil, ""
	}},
	{name: "origin/HEAD deleted", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		clone := cloned(t, tmp)
		repoGit(t, clone, "remote", "set-head", "origin", "--delete")
		return clone, nil, ""
	}},
	{name: "origin/HEAD dangling", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		clone := cloned(t, tmp)
		repoGit(t, clone, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/gone")
		return clone, nil, ""
	}},
	{name: "origin/HEAD outside origin", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		clone := cloned(t, tmp)
		repoGit(t, clone, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/feature")
		return clone, nil, ""
	}},
	{name: "origin/HEAD not symbolic", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		clone := cloned(t, tmp)
		repoGit(t, clone, "update-ref", "--no-deref", "refs/remotes/origin/HEAD", "HEAD")
		return clone, nil, ""
	}},
	{name: "base_branch local", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		clone := cloned(t, tmp)
		repoGit(t, clone, "branch", "-q", "-f", "release", "feature")
		return clone, nil, "release"
	}},
	{name: "base_branch origin only", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		return cloned(t, tmp), nil, "release"
	}},
	{name: "base_branch origin only, packed", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		clone := cloned(t, tmp)
		repoGit(t, clone, "pack-refs", "--all")
		return clone, nil, "release"
	}},
	{name: "base_branch missing", fast: true, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		return cloned(t, tmp), nil, "nope"
	}},
	{name: "base_branch a pattern", fast: true, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		return cloned(t, tmp), nil, "rel*"
	}},
	{name: "base_branch with a slash", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "branch", "team/main")
		return dir, nil, "team/main"
	}},
	{name: "empty repository", fast: true, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := filepath.Join(tmp, "r")
		repoGit(t, tmp, "init", "-q", "-b", "main", dir)
		return dir, nil, ""
	}},
	{name: "empty repository, base_branch", fast: true, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := filepath.Join(tmp, "r")
		repoGit(t, tmp, "init", "-q", "-b", "main", dir)
		return dir, nil, "main"
	}},
	{name: "unborn branch", fast: true, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "checkout", "-q", "--orphan", "fresh")
		return dir, nil, ""
	}},
	{name: "a tag named HEAD", fast: true, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "tag", "HEAD")
		return dir, nil, ""
	}},
	{name: "symlinked path", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		write(t, filepath.Join(dir, "sub", "f"), "")
		link := filepath.Join(tmp, "link")
		if err := os.Symlink(dir, link); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(link, "sub"), []string{"PWD=" + filepath.Join(link, "sub")}, ""
	}},
	{name: "symlinked subdirectory of another repository", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		a := committed(t, tmp, "a")
		b := committed(t, tmp, "b")
		write(t, filepath.Join(b, "sub", "f"), "")
		link := filepath.Join(a, "into-b")
		if err := os.Symlink(filepath.Join(b, "sub"), link); err != nil {
			t.Fatal(err)
		}
		return link, nil, ""
	}},
	{name: "symlink then ..", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		a := committed(t, tmp, "a")
		b := committed(t, tmp, "b")
		write(t, filepath.Join(b, "sub", "f"), "")
		if err := os.Symlink(filepath.Join(b, "sub"), filepath.Join(a, "into-b")); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(a, "into-b") + "/..", nil, ""
	}},
	{name: "nested repository", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		outer := committed(t, tmp, "outer")
		inner := filepath.Join(outer, "inner")
		repoGit(t, outer, "init", "-q", "-b", "trunk", inner)
		repoCommit(t, inner, "inner")
		return inner, nil, ""
	}},
	{name: "GIT_DIR set", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		other := committed(t, tmp, "other")
		return dir, []string{"GIT_DIR=" + filepath.Join(other, ".git"), "GIT_WORK_TREE=" + other}, ""
	}},
	{name: "GIT_CEILING_DIRECTORIES set", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		write(t, filepath.Join(dir, "sub", "f"), "")
		return filepath.Join(dir, "sub"), []string{"GIT_CEILING_DIRECTORIES=" + dir}, ""
	}},
	{name: "GIT_CONFIG_COUNT set", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		return committed(t, tmp, "r"), []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.bare", "GIT_CONFIG_VALUE_0=true"}, ""
	}},
	{name: "GIT_TEST_ASSUME_DIFFERENT_OWNER set", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		return committed(t, tmp, "r"), []string{"GIT_TEST_ASSUME_DIFFERENT_OWNER=1"}, ""
	}},
	{name: "other GIT_* variables set", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		return committed(t, tmp, "r"), []string{"GIT_SSL_CAINFO=/dev/null", "GIT_TRACE=0", "GIT_INDEX_FILE=index.other"}, ""
	}},
	{name: "GIT_NAMESPACE set", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		return committed(t, tmp, "r"), []string{"GIT_NAMESPACE=ns"}, ""
	}},
	{name: "bare repository", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := filepath.Join(tmp, "r.git")
		repoGit(t, tmp, "init", "-q", "--bare", dir)
		return dir, nil, ""
	}},
	{name: "inside .git", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		return filepath.Join(committed(t, tmp, "r"), ".git", "refs"), nil, ""
	}},
	{name: "core.bare set", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "config", "core.bare", "true")
		return dir, nil, ""
	}},
	{name: "core.worktree elsewhere", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		other := filepath.Join(tmp, "other")
		write(t, filepath.Join(other, "f"), "")
		repoGit(t, dir, "config", "core.worktree", other)
		return dir, nil, ""
	}},
	{name: "core.worktree naming its own working tree", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "config", "core.worktree", "..")
		write(t, filepath.Join(dir, "sub", "f"), "")
		return filepath.Join(dir, "sub"), nil, ""
	}},
	{name: "core.worktree naming a subdirectory", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		write(t, filepath.Join(dir, "sub", "f"), "")
		repoGit(t, dir, "config", "core.worktree", "../sub")
		return filepath.Join(dir, "sub"), nil, ""
	}},
	{name: "a header and a key on one line", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("[core] bare = true\n"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return dir, nil, ""
	}},
	{name: "a config git refuses", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("[user]\n\tname = \"open\n"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return dir, nil, ""
	}},
	{name: "reftable extension", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "config", "core.repositoryformatversion", "1")
		repoGit(t, dir, "config", "extensions.refStorage", "reftable")
		return dir, nil, ""
	}},
	{name: "worktreeConfig extension", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "config", "core.repositoryformatversion", "1")
		repoGit(t, dir, "config", "extensions.worktreeConfig", "true")
		return dir, nil, ""
	}},
	{name: "core.ignorecase set", fast: true, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		// As on a disk that does not tell refs/heads/Main from
		// refs/heads/main: the ref files cannot say which was asked for.
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "config", "core.ignorecase", "true")
		return dir, nil, "main"
	}},
	{name: "config including a missing file", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "config", "include.path", "extra")
		return dir, nil, ""
	}},
	{name: "config including a file git refuses", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "config", "includeIf.gitdir:/elsewhere/.path", "extra")
		write(t, filepath.Join(dir, ".git", "extra"), "[user\n")
		return dir, nil, ""
	}},
	{name: "a global config git refuses", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		write(t, filepath.Join(tmp, "global"), "[user]\n\tname = \"open\n")
		return dir, []string{"GIT_CONFIG_GLOBAL=" + filepath.Join(tmp, "global")}, ""
	}},
	{name: "a user config including another", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		home := filepath.Join(tmp, "home")
		write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = ~/.more\n[core]\n\tbare = true\n")
		write(t, filepath.Join(home, ".more"), "[alias]\n\tst = \"status \\\n  --short\"\n")
		// GIT_CONFIG_GLOBAL unset: HOME's files are read.
		return dir, []string{"GIT_CONFIG_GLOBAL", "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "xdg")}, ""
	}},
	{name: "a user config including one git refuses", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		home := filepath.Join(tmp, "home")
		write(t, filepath.Join(home, ".config", "git", "config"), "[include]\n\tpath = more\n")
		write(t, filepath.Join(home, ".config", "git", "more"), "[user]\n\tname = \\q\n")
		return dir, []string{"GIT_CONFIG_GLOBAL", "HOME=" + home}, ""
	}},
	{name: "an empty GIT_CONFIG_GLOBAL", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		home := filepath.Join(tmp, "home")
		write(t, filepath.Join(home, ".gitconfig"), "[user\n")
		return dir, []string{"GIT_CONFIG_GLOBAL=", "HOME=" + home}, ""
	}},
	{name: "a system config git refuses", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		write(t, filepath.Join(tmp, "system"), "[]\n")
		return dir, []string{"GIT_CONFIG_NOSYSTEM=0", "GIT_CONFIG_SYSTEM=" + filepath.Join(tmp, "system")}, ""
	}},
	{name: "config with quoted values and comments", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		repoGit(t, dir, "config", "user.note", `a "quoted" # value`)
		repoGit(t, dir, "config", "core.bare", "no")
		f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("# a comment\n[remote \"core\"]\n\tbare = true\n"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return dir, nil, ""
	}},
	{name: ".git an empty directory", fast: true, base: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		inner := filepath.Join(dir, "inner")
		if err := os.MkdirAll(filepath.Join(inner, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		return inner, nil, ""
	}},
	{name: ".git file naming nothing", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := filepath.Join(tmp, "r")
		write(t, filepath.Join(dir, ".git"), "gitdir: nowhere\n")
		return dir, nil, ""
	}},
	{name: "a repository another user owns", fast: false, base: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := committed(t, tmp, "r")
		uid := os.Geteuid() + 1
		if err := filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, uid, -1)
		}); err != nil {
			t.Skipf("cannot give the repository to another user: %v", err)
		}
		return dir, nil, ""
	}},
	{name: "outside any repository", fast: true, make: func(t *testing.T, tmp string) (string, []string, string) {
		dir := filepath.Join(tmp, "none", "deeper")
		write(t, filepath.Join(dir, "f"), "")
		return dir, nil, ""
	}},
	{name: "a directory that does not exist", fast: false, make: func(t *testing.T, tmp string) (string, []string, string) {
		return filepath.Join(tmp, "missing"), nil, ""
	}},
}

// TestFindAsGit builds each layout with real git and compares Find's
// reading of the files with Discover, and BaseBranch's with Base: where
// the files answer, the answer is git's; where they do not, git is asked.
func TestFindAsGit(t *testing.T) {
	t.Parallel()
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			tmp, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			dir, extra, want := l.make(t, tmp)
			env := testEnv()
			for _, kv := range extra {
				if name, _, set := strings.Cut(kv, "="); set {
					env = append(env, kv)
				} else {
					env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
				}
			}
			fast, fastErr, ok := findFiles(New(env), dir)
			if ok != l.fast {
				t.Errorf("findFiles answered from the files: %v, want %v (repo %+v, err %v)", ok, l.fast, fast, fastErr)
			}
			slow, slowErr := Discover(context.Background(), New(env), dir)
			if ok {
				if errString(fastErr) != errString(slowErr) {
					t.Fatalf("findFiles error = %v; git's = %v", fastErr, slowErr)
				}
				if fast != nil && (fast.Root != slow.Root || fast.CommonDir != slow.CommonDir) {
					t.Fatalf("findFiles = %q, %q; git's = %q, %q", fast.Root, fast.CommonDir, slow.Root, slow.CommonDir)
				}
			}
			found, foundErr := Find(context.Background(), New(env), dir)
			if errString(foundErr) != errString(slowErr) {
				t.Fatalf("Find error = %v; Discover's = %v", foundErr, slowErr)
			}
			if slowErr != nil {
				return
			}
			if found.Root != slow.Root || found.CommonDir != slow.CommonDir {
				t.Fatalf("Find = %q, %q; Discover = %q, %q", found.Root, found.CommonDir, slow.Root, slow.CommonDir)
			}

			gitBranch, _, gitErr := slow.Base(context.Background(), want)
			if fast != nil {
				branch, ok := fast.baseFromFiles(want)
				if ok != l.base {
					t.Errorf("baseFromFiles(%q) answered: %v, want %v (branch %q; git's %q, %v)", want, ok, l.base, branch, gitBranch, gitErr)
				}
				if ok && (gitErr != nil || branch != gitBranch) {
					t.Fatalf("baseFromFiles(%q) = %q; git's = %q, %v", want, branch, gitBranch, gitErr)
				}
			}
			branch, err := found.BaseBranch(context.Background(), want)
			if branch != gitBranch || errString(err) != errString(gitErr) {
				t.Errorf("BaseBranch(%q) = %q, %v; Base = %q, %v", want, branch, err, gitBranch, gitErr)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestReadRepoConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src      string
		ok, bare bool
		worktree string
	}{
		{"[core]\n\trepositoryformatversion = 0\n\tbare = false\n", true, false, ""},
		{"\xef\xbb\xbf[core]\r\n\tbare = true\r\n", true, true, ""},
		{"\xef\xbb[core]\n", false, false, ""},
		{"[core]\n\tbare\n", true, true, ""},
		{"[core]\n\tbare =\n", true, false, ""},
		{"[Core]\n\tBare = Yes ; a comment\n", true, true, ""},
		{"[core]\n\tbare = 0\n", true, false, ""},
		{"[core]\n\tbare = maybe\n", false, false, ""},
		{"[core]\n\tbare = \"tr\"ue\n", true, true, ""},
		{"[core]\n\tbare = \"true\n", false, false, ""},
		{"[core]\n\tbare = tr\\\n  ue\n", false, false, ""},
		{"[core]\n\tbare = tr\\\nue\n", true, true, ""},
		{"[core \"x\"]\n\tbare = true\n[core.y]\n\tbare = true\n", true, false, ""},
		{"[core] bare = true\n", true, true, ""},
		{"[core] # a comment\n\tbare = on\n", true, true, ""},
		{"[core]\n\tworktree = ../w # there\n", true, false, "../w"},
		{"[core]\n\tworktree = \" ../w \"\n", true, false, " ../w "},
		{"[core]\n\trepositoryformatversion = 2\n", false, false, ""},
		{"[core]\n\trepositoryformatversion = 1\n[extensions]\n\tpartialClone = origin\n\tobjectFormat = sha1\n", true, false, ""},
		{"[extensions]\n\tobjectFormat = sha1\n", false, false, ""},
		{"[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = SHA1\n", false, false, ""},
		{"[extensions]\n\tpreciousObjects = true\n\tnoop = x\n", true, false, ""},
		{"[extensions]\n\tpreciousObjects = maybe\n", false, false, ""},
		{"[extensions]\n\tpartialClone\n", false, false, ""},
		{"[core]\n\fbare = false\n", false, false, ""},
		{"[core]\n\tworktree = ..\f\n", true, false, "..\f"},
		{"[core]\n\tignorecase = maybe\n", false, false, ""},
		{"[extensions]\n\tobjectFormat = sha256\n", false, false, ""},
		{"[extensions]\n\trefStorage = reftable\n", false, false, ""},
		{"[remote \"a\\\"b\"]\n\turl = x\n", true, false, ""},
		{"[remote \"a\"b\"]\n", false, false, ""},
		{"[remote \"a]\n", false, false, ""},
		{"[]\n", false, false, ""},
		{"[core\n", false, false, ""},
		{"[core]\n\t1key = x\n", false, false, ""},
		{"[user]\n\tname = \"abc\n", false, false, ""},
		{"[user]\n\tname = a \\q\n", false, false, ""},
		{"[user]\n\tname = a \\n \"b\" ; c\n", true, false, ""},
		{"[user]\n\tname # a comment\n", false, false, ""},
		{"[user]\n\tname = \"a # ; [b]\"\n", true, false, ""},
		{"key = outside\n", true, false, ""},
		{"[include]\n\tpath = missing\n", true, false, ""},
		{"[include]\n\tpath\n", false, false, ""},
		{"[include]\n\tpath = broken\n", false, false, ""},
		{"[includeIf \"gitdir:/nowhere/\"]\n\tpath = broken\n", false, false, ""},
		{"[include]\n\tpath = config\n", false, false, ""},
		{"[include]\n\tpath = fine\n[core]\n\tbare = false\n", true, false, ""},
		{"[include]\n\tpath = link/../bad\n", false, false, ""},
	} {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "broken"), "[user\n")
		write(t, filepath.Join(dir, "fine"), "[core]\n\tbare = true\n")
		// link/.. is deep, where git finds bad; dir has none.
		write(t, filepath.Join(dir, "deep", "bad"), "[user\n")
		if err := os.MkdirAll(filepath.Join(dir, "deep", "er"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("deep", "er"), filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "config")
		write(t, path, tc.src)
		cfg, ok := readRepoConfig(path, "")
		worktree := ""
		if cfg.worktree != nil {
			worktree = *cfg.worktree
		}
		if ok != tc.ok || ok && (cfg.bare != tc.bare || worktree != tc.worktree) {
			t.Errorf("readRepoConfig(%q) = bare %v, worktree %q, ok %v; want %v, %q, %v", tc.src, cfg.bare, worktree, ok, tc.bare, tc.worktree, tc.ok)
		}
	}
}

func TestReadPackedRefs(t *testing.T) {
	t.Parallel()
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	for _, tc := range []struct {
		src  string
		ok   bool
		refs int
	}{
		{"", true, 0},
		{"# pack-refs with: peeled fully-peeled sorted \n" + a + " refs/heads/main\n" + a + " refs/tags/v1\n^" + b + "\n", true, 2},
		{a + " refs/heads/main", false, 0},
		{"^" + b + "\n", false, 0},
		{a + " refs/heads/main\n" + a + " refs/heads/main\n", false, 0},
		{a + " refs/heads/main\r\n", false, 0},
		{a + "  refs/heads/main\n", false, 0},
		{"# pack-refs with: peeled\n# again\n", false, 0},
	} {
		path := filepath.Join(t.TempDir(), "packed-refs")
		write(t, path, tc.src)
		refs, ok := readPackedRefs(path)
		if ok != tc.ok || ok && len(refs) != tc.refs {
			t.Errorf("readPackedRefs(%q) = %v, %v; want %d refs, %v", tc.src, refs, ok, tc.refs, tc.ok)
		}
	}
}

// BenchmarkOpen compares opening a plain repository and naming its base
// branch from the files with asking git, as check does once per run.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	if _, err := New(testEnv()).Run(context.Background(), dir, "init", "-q", "-b", "main"); err != nil {
		b.Fatal(err)
	}
	if _, err := New(testEnv()).Run(context.Background(), dir, "commit", "-q", "--allow-empty", "-m", "start"); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		open func(context.Context, *Git, string) (*Repo, error)
	}{{"files", Find}, {"git", Discover}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				repo, err := bc.open(context.Background(), New(testEnv()), dir)
				if err != nil {
					b.Fatal(err)
				}
				if branch, err := repo.BaseBranch(context.Background(), ""); err != nil || branch != "main" {
					b.Fatal(branch, err)
				}
			}
		})
	}
}
