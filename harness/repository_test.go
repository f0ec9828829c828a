package harness

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/git"
)

// gitEnv is the environment the repository tests run git in: no user or
// system config, an identity to commit as.
var gitEnv = append(os.Environ(),
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
	"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
	"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")

// gitIn runs git in dir and fails the test when it fails.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, gitEnv
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestReadRepository reads a repository's main worktree, a detached linked
// worktree and one on a branch: their git directories, whether HEAD is
// detached, and the names Kept works from; a repository with no
// packed-refs is given an empty one, and one it has is left as it is.
func TestReadRepository(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "repo")
	gitIn(t, dir, "init", "-q", "-b", "main", repo)
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	detached, branch := filepath.Join(dir, "detached"), filepath.Join(dir, "branch")
	gitIn(t, repo, "worktree", "add", "-q", "--detach", detached)
	gitIn(t, repo, "worktree", "add", "-q", "-b", "issue", branch)
	common := filepath.Join(repo, ".git")
	if _, err := os.Lstat(filepath.Join(common, "packed-refs")); err == nil {
		t.Fatal("git init made packed-refs; the test needs a repository without")
	}

	for _, tc := range []struct {
		dir, gitDir string
		detached    bool
	}{
		{repo, common, false},
		{detached, filepath.Join(common, "worktrees", "detached"), true},
		{branch, filepath.Join(common, "worktrees", "branch"), false},
	} {
		r, err := ReadRepository(context.Background(), git.New(gitEnv), tc.dir)
		if err != nil {
			t.Fatalf("ReadRepository(%s): %v", tc.dir, err)
		}
		if r.Worktree != tc.dir || r.CommonDir != common || r.GitDir != tc.gitDir || r.Detached != tc.detached {
			t.Errorf("ReadRepository(%s) = %+v; want worktree %s, common dir %s, git dir %s, detached %v", tc.dir, r, tc.dir, common, tc.gitDir, tc.detached)
		}
		for _, e := range []string{"HEAD", "config", "objects", "packed-refs", "refs", "worktrees"} {
			if !slices.Contains(r.Entries, e) {
				t.Errorf("ReadRepository(%s): entries %q lack %s", tc.dir, r.Entries, e)
			}
		}
		if !slices.Equal(r.Worktrees, []string{"branch", "detached"}) || !slices.Contains(r.Own, "HEAD") {
			t.Errorf("ReadRepository(%s): worktrees %q, own %q", tc.dir, r.Worktrees, r.Own)
		}
	}
	b, err := os.ReadFile(filepath.Join(common, "packed-refs"))
	if err != nil || string(b) != packedRefsHeader {
		t.Errorf("packed-refs %q (%v); want git's header alone", b, err)
	}
	gitIn(t, repo, "pack-refs", "--all")
	packed, _ := os.ReadFile(filepath.Join(common, "packed-refs"))
	if _, err := ReadRepository(context.Background(), git.New(gitEnv), repo); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(common, "packed-refs")); string(b) != string(packed) || !strings.Contains(string(b), "refs/heads/main") {
		t.Errorf("packed-refs changed:\n%s\nwant:\n%s", b, packed)
	}

	if _, err := ReadRepository(context.Background(), git.New(gitEnv), t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("ReadRepository outside a repository: %v; want git's refusal", err)
	}
}

// TestKept holds what a session may not write of its repository: the
// common directory's entries but the objects and the worktrees (and the
// main worktree's index), the other worktrees, the packs, the names git
// reads that are missing, except in the main worktree those its own git
// reads, the files that locate a linked worktree, and its HEAD on a
// branch.
func TestKept(t *testing.T) {
	t.Parallel()
	linked := Repository{
		Worktree:  "/w/default",
		CommonDir: "/r/.git",
		GitDir:    "/r/.git/worktrees/default",
		Detached:  true,
		Entries:   []string{"HEAD", "config", "hooks", "index", "info", "logs", "objects", "packed-refs", "refs", "worktrees"},
		Own:       []string{"HEAD", "ORIG_HEAD", "commondir", "gitdir", "index", "logs"},
		Worktrees: []string{"default", "other"},
		Packs:     []string{"pack-1.idx", "pack-1.pack"},
	}
	common := []string{"/r/.git/HEAD", "/r/.git/config", "/r/.git/hooks", "/r/.git/index", "/r/.git/info", "/r/.git/logs", "/r/.git/packed-refs", "/r/.git/refs",
		"/r/.git/modules", "/r/.git/shallow",
		"/r/.git/objects/pack/pack-1.idx", "/r/.git/objects/pack/pack-1.pack"}
	state := []string{"/r/.git/CHERRY_PICK_HEAD", "/r/.git/MERGE_HEAD", "/r/.git/REVERT_HEAD", "/r/.git/commondir", "/r/.git/rebase-apply", "/r/.git/rebase-merge", "/r/.git/sequencer"}
	own := []string{"/r/.git/worktrees/other", "/r/.git/worktrees/default/commondir", "/r/.git/worktrees/default/gitdir", "/w/default/.git"}

	onBranch := linked
	onBranch.Detached = false

	main := linked
	main.Worktree, main.GitDir, main.Worktrees = "/r", "/r/.git", []string{"other"}
	main.Entries = append(slices.Clone(linked.Entries), "MERGE_HEAD")

	for _, tc := range []struct {
		name string
		r    Repository
		want []string
	}{
		{"linked, detached", linked, slices.Concat(common, state, own)},
		{"linked, on a branch", onBranch, slices.Concat(common, state, own, []string{"/r/.git/worktrees/default/HEAD"})},
		{"main", main, slices.Concat(slices.DeleteFunc(slices.Clone(common), func(p string) bool { return p == "/r/.git/index" }),
			[]string{"/r/.git/MERGE_HEAD", "/r/.git/worktrees/other"})},
	} {
		slices.Sort(tc.want)
		if got := tc.r.Kept(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Kept() =\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}

// TestClaudeKeepsRepository: claude's sandbox at write keeps the
// repository it is given (denyWrite holds Kept, the rest of the settings as
// without one); without one (a compiled script) it has its own defaults.
// No other sandbox takes one.
func TestClaudeKeepsRepository(t *testing.T) {
	t.Parallel()
	r := NewRegistry(nil)
	h, _ := r.Lookup("claude")
	repo := &Repository{Worktree: "/w", CommonDir: "/r/.git", GitDir: "/r/.git/worktrees/w", Detached: true, Entries: []string{"refs", "objects", "HEAD"}}
	c, err := h.Command(Invocation{Access: "write", Repository: repo})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(c.Argv, "--settings")
	if i < 0 {
		t.Fatalf("no --settings in %q", c.Argv)
	}
	var got struct {
		Sandbox struct {
			Enabled                  bool `json:"enabled"`
			AutoAllowBashIfSandboxed bool `json:"autoAllowBashIfSandboxed"`
			Filesystem               struct {
				DenyWrite []string `json:"denyWrite"`
			} `json:"filesystem"`
		} `json:"sandbox"`
	}
	if err := json.Unmarshal([]byte(c.Argv[i+1]), &got); err != nil {
		t.Fatalf("settings %s: %v", c.Argv[i+1], err)
	}
	if s := got.Sandbox; !s.Enabled || !s.AutoAllowBashIfSandboxed || !slices.Equal(s.Filesystem.DenyWrite, repo.Kept()) {
		t.Errorf("settings %s; want the sandbox on, bash allowed in it, denyWrite %q", c.Argv[i+1], repo.Kept())
	}
	if c, _ := h.Command(Invocation{Access: "write"}); !slices.Contains(c.Argv, claudeSandbox) {
		t.Errorf("without a repository: %q; want the settings %s", c.Argv, claudeSandbox)
	}
	for _, tc := range []struct {
		harness, access string
		want            bool
	}{
		{"claude", "write", true}, {"claude", "", true}, {"claude", "read", false}, {"claude", "full", false},
		{"codex", "write", false}, {"gemini", "write", false}, {"opencode", "write", false}, {"mybot", "write", false},
	} {
		h, _ := testRegistry().Lookup(tc.harness)
		if got := h.KeepsRepository(tc.access); got != tc.want {
			t.Errorf("%s.KeepsRepository(%q) = %v; want %v", tc.harness, tc.access, got, tc.want)
		}
	}
}

// TestRestore: a commondir file made in the main worktree's git directory
// is removed; one in a linked worktree's, or one the repository had, is
// left.
func TestRestore(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	common := filepath.Join(dir, ".git")
	linked := filepath.Join(common, "worktrees", "w")
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	plant := func(dir string) string {
		path := filepath.Join(dir, "commondir")
		if err := os.WriteFile(path, []byte("/elsewhere\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	main := &Repository{Worktree: dir, CommonDir: common, GitDir: common, Entries: []string{"HEAD", "objects", "refs"}}
	path := plant(common)
	if got, err := main.Restore(); err != nil || !slices.Equal(got, []string{path}) {
		t.Errorf("Restore() = %q, %v; want %s removed", got, err, path)
	}
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s is still there", path)
	}
	if got, err := main.Restore(); err != nil || got != nil {
		t.Errorf("Restore() with nothing made = %q, %v", got, err)
	}

	had := *main
	had.Entries = append(slices.Clone(main.Entries), "commondir")
	plant(common)
	own := &Repository{Worktree: filepath.Join(dir, "w"), CommonDir: common, GitDir: linked}
	plant(linked)
	for _, r := range []*Repository{&had, own} {
		if got, err := r.Restore(); err != nil || got != nil {
			t.Errorf("Restore() of %s = %q, %v; want nothing removed", r.GitDir, got, err)
		}
	}
	for _, p := range []string{filepath.Join(common, "commondir"), filepath.Join(linked, "commondir")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
}
