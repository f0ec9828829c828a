package worktree

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/testrepo"
	"github.com/cairn-dev/cairn/ir"
)

func TestMain(m *testing.M) { testrepo.Main(m) }

// openIn is Open in the repository at root, whose git common dir is
// common, with git in the test's environment and no other run running.
func openIn(ctx context.Context, root, common, home, run string, plan []ir.PlanWorktree) (*Worktrees, error) {
	repo := &git.Repo{Root: root, CommonDir: common, Git: git.New(os.Environ())}
	return Open(ctx, repo, home, run, plan, func(string) bool { return false })
}

// wtList is what `git worktree list --porcelain` says: path → its HEAD line
// and whether it is detached.
func wtList(t testing.TB, root string) map[string]string {
	t.Helper()
	list := map[string]string{}
	for _, block := range strings.Split(testrepo.Git(t, root, "worktree", "list", "--porcelain"), "\n\n") {
		var path, head string
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "worktree "):
				path = strings.TrimPrefix(line, "worktree ")
			case strings.HasPrefix(line, "HEAD "):
				head = strings.TrimPrefix(line, "HEAD ")
			case line == "detached":
				head += " detached"
			}
		}
		if path != "" {
			list[path] = head
		}
	}
	return list
}

// throwaways is a plan of throwaway worktrees named names, based on main.
func throwaways(names ...string) []ir.PlanWorktree {
	var plan []ir.PlanWorktree
	for _, n := range names {
		plan = append(plan, ir.PlanWorktree{Name: n, Kind: ir.Throwaway, Base: "main"})
	}
	return plan
}

func TestOpenThrowaway(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	home := t.TempDir()
	head := testrepo.Git(t, root, "rev-parse", "HEAD")
	// main moves on after a; b still starts from the base resolved once.
	plan := []ir.PlanWorktree{
		{Name: "a", Kind: ir.Throwaway, Base: "main"},
		{Name: "default", Kind: ir.Throwaway, Base: "", Implicit: true},
	}
	w, err := openIn(context.Background(), root, common, home, "hunt_2026-01-02T030405Z", plan)
	if err != nil {
		t.Fatal(err)
	}
	all := w.All()
	if len(all) != 2 || all[0].Name != "a" || all[1].Name != "default" {
		t.Fatalf("All() = %+v, want a then default", all)
	}
	runDir := filepath.Join(home, "worktrees", "hunt_2026-01-02T030405Z")
	list := wtList(t, root)
	for _, wt := range all {
		if wt.Path != filepath.Join(runDir, wt.Name) || wt.Base != head || wt.Kind != ir.Throwaway {
			t.Errorf("worktree %+v: want path %s, base %s", wt, filepath.Join(runDir, wt.Name), head)
		}
		if got := list[wt.Path]; got != head+" detached" {
			t.Errorf("git worktree list: %s has %q, want %q", wt.Path, got, head+" detached")
		}
		if fi, err := os.Stat(wt.Path); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, err %v; want 0700", wt.Path, fi.Mode().Perm(), err)
		}
		if _, err := os.Stat(filepath.Join(wt.Path, "src", "main.go")); err != nil {
			t.Errorf("worktree %q has no checked-out files: %v", wt.Name, err)
		}
	}
	if fi, err := os.Stat(runDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: mode %v, err %v; want 0700", runDir, fi.Mode().Perm(), err)
	}
	if got, ok := w.Get("a"); !ok || !reflect.DeepEqual(got, all[0]) {
		t.Errorf("Get(%q) = %+v, %v", "a", got, ok)
	}
	if _, ok := w.Get("nope"); ok {
		t.Errorf("Get(%q) found a worktree", "nope")
	}

	patches := filepath.Join(t.TempDir(), "worktrees")
	if err := w.Close(context.Background(), patches); err != nil {
		t.Fatal(err)
	}
	if list := wtList(t, root); len(list) != 1 {
		t.Errorf("after Close, git worktree list = %v, want only the repository", list)
	}
	if _, err := os.Stat(runDir); !os.IsNotExist(err) {
		t.Errorf("after Close, %s still exists (%v)", runDir, err)
	}
	if left, _ := filepath.Glob(filepath.Join(patches, "*")); len(left) != 0 {
		t.Errorf("nothing changed, yet Close left %v", left)
	}
	if err := w.Close(context.Background(), patches); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// TestClosePatch holds that the saved patch, applied to a fresh checkout of
// the base, reproduces everything the worktree held: a modified tracked
// file, new untracked files, binary files, a deletion and a commit, but not
// cairn's own copied skill.
func TestClosePatch(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	home := t.TempDir()
	w, err := openIn(context.Background(), root, common, home, "run1", throwaways("a"))
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := w.Get("a")
	testrepo.Write(t, filepath.Join(wt.Path, "README.md"), "hello\nchanged\n")
	testrepo.Write(t, filepath.Join(wt.Path, "notes", "new.txt"), "an untracked file\n")
	testrepo.Write(t, filepath.Join(wt.Path, "logo.bin"), string(append(bytes.Clone(testrepo.Binary), 0, 7)))
	testrepo.Write(t, filepath.Join(wt.Path, "new.bin"), "\x00\x01\x02binary\x00")
	if err := os.Remove(filepath.Join(wt.Path, "old.txt")); err != nil {
		t.Fatal(err)
	}
	// An agent's own commit is part of its changes since the base.
	testrepo.Write(t, filepath.Join(wt.Path, "committed.txt"), "committed by the agent\n")
	testrepo.Git(t, wt.Path, "add", "committed.txt")
	testrepo.Git(t, wt.Path, "commit", "-q", "-m", "agent")
	if _, err := InstallSkill(context.Background(), testGit(), wt, "hunt", []byte("# hunt\n")); err != nil {
		t.Fatal(err)
	}

	patches := filepath.Join(t.TempDir(), "worktrees")
	if err := w.Close(context.Background(), patches); err != nil {
		t.Fatal(err)
	}
	patch := filepath.Join(patches, "a.patch")
	fi, err := os.Stat(patch)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want 0600", patch, fi.Mode().Perm())
	}
	body, _ := os.ReadFile(patch)
	if bytes.Contains(body, []byte(".cairn/skills")) {
		t.Errorf("the patch holds cairn's copied skill:\n%s", body)
	}
	if entries, _ := os.ReadDir(patches); len(entries) != 1 {
		t.Errorf("%s holds %d entries, want only a.patch", patches, len(entries))
	}

	fresh := filepath.Join(t.TempDir(), "fresh")
	testrepo.Git(t, "", "clone", "-q", root, fresh)
	testrepo.Git(t, fresh, "checkout", "-q", "--detach", wt.Base)
	testrepo.Git(t, fresh, "apply", patch)
	for path, want := range map[string]string{
		"README.md":     "hello\nchanged\n",
		"notes/new.txt": "an untracked file\n",
		"logo.bin":      string(append(bytes.Clone(testrepo.Binary), 0, 7)),
		"new.bin":       "\x00\x01\x02binary\x00",
		"committed.txt": "committed by the agent\n",
	} {
		got, err := os.ReadFile(filepath.Join(fresh, path))
		if err != nil || string(got) != want {
			t.Errorf("%s after git apply: %q, %v; want %q", path, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(fresh, "old.txt")); !os.IsNotExist(err) {
		t.Errorf("old.txt survived the patch (%v)", err)
	}
	if list := wtList(t, root); len(list) != 1 {
		t.Errorf("after Close, git worktree list = %v, want only the repository", list)
	}
}

func TestOpenCheckout(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	home := t.TempDir()
	plan := []ir.PlanWorktree{{Name: "here", Kind: ir.Checkout}}

	// cairn's own files from an earlier run are no dirt.
	testrepo.Write(t, filepath.Join(root, ".cairn", "skills", "hunt", "SKILL.md"), "# hunt\n")
	testrepo.Write(t, filepath.Join(root, ".cairn-issue.md"), "# issue\n")
	w, err := openIn(context.Background(), root, common, home, "run1", plan)
	if err != nil {
		t.Fatalf("a clean checkout was refused: %v", err)
	}
	wt, ok := w.Get("here")
	if !ok || wt.Path != root || wt.Kind != ir.Checkout || wt.Base != testrepo.Git(t, root, "rev-parse", "HEAD") {
		t.Errorf("Get(%q) = %+v, %v; want the repository itself at HEAD", "here", wt, ok)
	}
	if err := w.Close(context.Background(), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".cairn-issue.md")); err != nil {
		t.Errorf("Close touched the checkout: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "worktrees")); !os.IsNotExist(err) {
		t.Errorf("a checkout-only run made %s (%v)", filepath.Join(home, "worktrees"), err)
	}

	testrepo.Write(t, filepath.Join(root, "README.md"), "edited\n")
	testrepo.Write(t, filepath.Join(root, "scratch.txt"), "mine\n")
	_, err = openIn(context.Background(), root, common, home, "run2", plan)
	if err == nil {
		t.Fatal("a dirty checkout was accepted")
	}
	for _, want := range []string{`"here"`, `"README.md"`, `"scratch.txt"`, "commit or stash"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
	}
}

func TestOpenCheckoutNamesFirstFew(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	for i := range 8 {
		testrepo.Write(t, filepath.Join(root, fmt.Sprintf("f%d.txt", i)), "x\n")
	}
	_, err := openIn(context.Background(), root, common, t.TempDir(), "run1", []ir.PlanWorktree{{Name: "here", Kind: ir.Checkout}})
	if err == nil || !strings.Contains(err.Error(), `"f0.txt"`) || !strings.Contains(err.Error(), "and 3 more") {
		t.Errorf("error %v: want the first five files and %q", err, "and 3 more")
	}
}

func TestInstallSkill(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	w, err := openIn(context.Background(), root, common, t.TempDir(), "run1", throwaways("a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(context.Background(), t.TempDir())
	for _, wt := range w.All() {
		for range 2 {
			path, err := InstallSkill(context.Background(), testGit(), wt, "cairn-repair", []byte("# repair\n"))
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(wt.Path, ".cairn", "skills", "cairn-repair", "SKILL.md"); path != want {
				t.Errorf("InstallSkill = %s, want %s", path, want)
			}
			if got, _ := os.ReadFile(path); string(got) != "# repair\n" {
				t.Errorf("%s holds %q", path, got)
			}
		}
		if st := testrepo.Git(t, wt.Path, "status", "--porcelain", "--untracked-files=all"); st != "" {
			t.Errorf("worktree %q is dirty after InstallSkill:\n%s", wt.Name, st)
		}
	}
	exclude, _ := os.ReadFile(filepath.Join(common, "info", "exclude"))
	for _, p := range ir.CairnFiles {
		if n := strings.Count(string(exclude), "\n"+p+"\n"); n != 1 {
			t.Errorf("info/exclude holds %q %d times, want once:\n%s", p, n, exclude)
		}
	}

	a, _ := w.Get("a")
	if _, err := InstallSkill(context.Background(), testGit(), a, "../escape", nil); err == nil {
		t.Error("InstallSkill accepted the name \"../escape\"")
	}
	// A committed .cairn symlink must not steer the copy outside.
	b, _ := w.Get("b")
	outside := t.TempDir()
	if err := os.RemoveAll(filepath.Join(b.Path, ".cairn")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(b.Path, ".cairn")); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallSkill(context.Background(), testGit(), b, "hunt", []byte("x")); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("InstallSkill through a symlink: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("InstallSkill wrote outside the worktree: %v", entries)
	}
}

func TestOpenRefusals(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	for _, tc := range []struct {
		plan []ir.PlanWorktree
		want string
	}{
		{[]ir.PlanWorktree{{Name: "a", Kind: ir.Throwaway}, {Name: "fix", Kind: ir.IssueBranch, Base: "main", Branch: "cairn/42-…"}},
			`create worktree "fix": no branch is named for it`},
		{throwaways("a", "a"), `the plan names it twice`},
		{[]ir.PlanWorktree{{Name: "a", Kind: ir.Throwaway}, {Name: "b", Kind: ir.Throwaway, Base: "nope"}},
			`branch "nope" is neither a local branch nor "origin/nope"`},
		{[]ir.PlanWorktree{{Name: "../x", Kind: ir.Throwaway}}, `create worktree "../x"`},
	} {
		home := t.TempDir()
		_, err := openIn(context.Background(), root, common, home, "run1", tc.plan)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.plan, err, tc.want)
		}
		if list := wtList(t, root); len(list) != 1 {
			t.Errorf("%+v: git worktree list = %v, want only the repository", tc.plan, list)
		}
		if _, err := os.Stat(filepath.Join(home, "worktrees")); !os.IsNotExist(err) {
			t.Errorf("%+v: a refused open made %s", tc.plan, filepath.Join(home, "worktrees"))
		}
	}
}

func TestOpenEmptyRepository(t *testing.T) {
	t.Parallel()
	_, _ = testrepo.New(t)
	root := filepath.Join(t.TempDir(), "empty")
	testrepo.Git(t, "", "init", "-q", root)
	_, err := openIn(context.Background(), root, filepath.Join(root, ".git"), t.TempDir(), "run1", throwaways("a"))
	if err == nil || !strings.Contains(err.Error(), "no commits yet") {
		t.Errorf("error %v, want one saying the repository has no commits yet", err)
	}
}

// TestOpenBaseFromOrigin holds that a base branch only origin has (as
// check's Repo.Base may choose it) resolves to origin's commit, and that
// the local branch wins when both exist.
func TestOpenBaseFromOrigin(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	first := testrepo.Git(t, root, "rev-parse", "HEAD")
	testrepo.Write(t, filepath.Join(root, "second.txt"), "2\n")
	testrepo.Git(t, root, "add", "second.txt")
	testrepo.Git(t, root, "commit", "-q", "-m", "second")
	second := testrepo.Git(t, root, "rev-parse", "HEAD")
	testrepo.Git(t, root, "update-ref", "refs/remotes/origin/trunk", first)
	testrepo.Git(t, root, "update-ref", "refs/remotes/origin/main", first)
	plan := []ir.PlanWorktree{{Name: "a", Kind: ir.Throwaway, Base: "trunk"}, {Name: "b", Kind: ir.Throwaway, Base: "main"}}
	w, err := openIn(context.Background(), root, common, t.TempDir(), "run1", plan)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(context.Background(), t.TempDir())
	a, _ := w.Get("a")
	b, _ := w.Get("b")
	if a.Base != first || b.Base != second {
		t.Errorf("bases: trunk %s, main %s; want %s (origin/trunk), %s (main)", a.Base, b.Base, first, second)
	}
	if got := testrepo.Git(t, a.Path, "rev-parse", "HEAD"); got != first {
		t.Errorf("worktree a is at %s, want %s", got, first)
	}
}

// TestOpenPartialFailure holds that when one worktree cannot be created,
// those made before it are removed again.
func TestOpenPartialFailure(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	home := t.TempDir()
	runDir := filepath.Join(home, "worktrees", "run1")
	testrepo.Write(t, filepath.Join(runDir, "b", "in-the-way"), "x\n")
	w, err := openIn(context.Background(), root, common, home, "run1", throwaways("a", "b", "c"))
	if err == nil || !strings.Contains(err.Error(), `create worktree "b"`) {
		t.Fatalf("error %v, want one naming worktree \"b\"", err)
	}
	if list := wtList(t, root); len(list) != 1 {
		t.Errorf("git worktree list = %v, want only the repository", list)
	}
	if _, err := os.Stat(filepath.Join(runDir, "a")); !os.IsNotExist(err) {
		t.Errorf("worktree a was left at %s (%v)", filepath.Join(runDir, "a"), err)
	}
	if err := w.Close(context.Background(), t.TempDir()); err != nil {
		t.Errorf("Close after a failed open: %v", err)
	}
	if w.All() != nil {
		t.Errorf("All after a failed open = %v", w.All())
	}
}

func TestOpenCancelled(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := openIn(ctx, root, common, t.TempDir(), "run1", throwaways("a")); err == nil {
		t.Error("a cancelled open succeeded")
	}
	if list := wtList(t, root); len(list) != 1 {
		t.Errorf("git worktree list = %v, want only the repository", list)
	}
}

// TestCloseKeepsUnsavedWork holds that a worktree whose changes cannot be
// saved is left in place, named in the error, and that a later Close with
// a usable run folder saves and removes it.
func TestCloseKeepsUnsavedWork(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	w, err := openIn(context.Background(), root, common, t.TempDir(), "run1", throwaways("a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := w.Get("a")
	testrepo.Write(t, filepath.Join(a.Path, "work.txt"), "precious\n")
	blocked := filepath.Join(t.TempDir(), "file")
	testrepo.Write(t, blocked, "not a folder\n")
	err = w.Close(context.Background(), blocked)
	if err == nil || !strings.Contains(err.Error(), `worktree "a"`) || !strings.Contains(err.Error(), a.Path) {
		t.Fatalf("Close into a file: %v; want an error naming worktree \"a\" and its path", err)
	}
	if got, _ := os.ReadFile(filepath.Join(a.Path, "work.txt")); string(got) != "precious\n" {
		t.Errorf("the unsaved work is gone")
	}
	if list := wtList(t, root); len(list) != 2 {
		t.Errorf("git worktree list = %v, want the repository and a", list)
	}
	patches := filepath.Join(t.TempDir(), "worktrees")
	if err := w.Close(context.Background(), patches); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(patches, "a.patch")); err != nil {
		t.Error(err)
	}
	if list := wtList(t, root); len(list) != 1 {
		t.Errorf("git worktree list = %v, want only the repository", list)
	}
}

// TestCloseAfterWorktreeDeleted holds that a worktree folder a step deleted
// does not stop Close from cleaning up.
func TestCloseAfterWorktreeDeleted(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	w, err := openIn(context.Background(), root, common, t.TempDir(), "run1", throwaways("a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := w.Get("a")
	if err := os.RemoveAll(a.Path); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(context.Background(), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if list := wtList(t, root); len(list) != 1 {
		t.Errorf("git worktree list = %v, want only the repository", list)
	}
}

// TestOpenConcurrent holds that two runs creating worktrees in one
// repository at once both succeed: the lock serialises git worktree add.
func TestOpenConcurrent(t *testing.T) {
	t.Parallel()
	root, common := testrepo.New(t)
	home := t.TempDir()
	var wg sync.WaitGroup
	ws := make([]*Worktrees, 2)
	errs := make([]error, 2)
	for i := range ws {
		wg.Go(func() {
			ws[i], errs[i] = openIn(context.Background(), root, common, home, fmt.Sprintf("run%d", i), throwaways("a", "b", "c", "d"))
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if list := wtList(t, root); len(list) != 9 {
		t.Errorf("git worktree list has %d entries, want 9: %v", len(list), list)
	}
	for i := range ws {
		wg.Go(func() { errs[i] = ws[i].Close(context.Background(), t.TempDir()) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if list := wtList(t, root); len(list) != 1 {
		t.Errorf("git worktree list = %v, want only the repository", list)
	}
}

// BenchmarkOpen8 opens the 8 throwaway worktrees of a parallel
// group in a small repository (docs/design.md §12); closing them is not timed.
func BenchmarkOpen8(b *testing.B) {
	root, common := testrepo.New(b)
	home := b.TempDir()
	plan := throwaways("a", "b", "c", "d", "e", "f", "g", "h")
	patches := filepath.Join(b.TempDir(), "worktrees")
	for i := 0; b.Loop(); i++ {
		w, err := openIn(context.Background(), root, common, home, fmt.Sprintf("run%d", i), plan)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := w.Close(context.Background(), patches); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkClose8 closes 8 throwaway worktrees, one with a change
// to save; opening them is not timed.
func BenchmarkClose8(b *testing.B) {
	root, common := testrepo.New(b)
	home := b.TempDir()
	plan := throwaways("a", "b", "c", "d", "e", "f", "g", "h")
	patches := filepath.Join(b.TempDir(), "worktrees")
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		w, err := openIn(context.Background(), root, common, home, fmt.Sprintf("run%d", i), plan)
		if err != nil {
			b.Fatal(err)
		}
		a, _ := w.Get("a")
		testrepo.Write(b, filepath.Join(a.Path, "README.md"), "changed\n")
		b.StartTimer()
		if err := w.Close(context.Background(), patches); err != nil {
			b.Fatal(err)
		}
	}
}

// testGit runs git in the test's environment, which testrepo.Main set.
func testGit() *git.Git { return git.New(os.Environ()) }
