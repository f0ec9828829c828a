package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/testrepo"
	"github.com/cairn-dev/cairn/ir"
)

// issuePlan is a plan with one issue-branch worktree "work" on branch.
func issuePlan(branch string) []ir.PlanWorktree {
	return []ir.PlanWorktree{{Name: "work", Kind: ir.IssueBranch, Base: "main", Branch: branch}}
}

// originRepo is a repository (testrepo.New) with an origin: a bare
// repository, main pushed there.
type originRepo struct{ root, common, origin string }

func newOriginRepo(t *testing.T) *originRepo {
	t.Helper()
	root, common := testrepo.New(t)
	return &originRepo{root: root, common: common, origin: testrepo.Origin(t, root, "https://github.com/acme/widgets.git")}
}

// openIssueBranch opens the issue-branch worktree of run on branch.
func openIssueBranch(t *testing.T, f *originRepo, home, run, branch string) (*Worktrees, Worktree) {
	t.Helper()
	w, err := openIn(context.Background(), f.root, f.common, home, run, issuePlan(branch))
	if err != nil {
		t.Fatal(err)
	}
	wt, ok := w.Get("work")
	if !ok {
		t.Fatal("no worktree \"work\"")
	}
	return w, wt
}

// commitIn commits a new file name in the worktree at dir.
func commitIn(t *testing.T, dir, name string) string {
	t.Helper()
	testrepo.Write(t, filepath.Join(dir, name), name+"\n")
	testrepo.Git(t, dir, "add", name)
	testrepo.Git(t, dir, "commit", "-q", "-m", "add "+name)
	return testrepo.Git(t, dir, "rev-parse", "HEAD")
}

func TestIssueBranchWorktreeFresh(t *testing.T) {
	t.Parallel()
	f := newOriginRepo(t)
	home := t.TempDir()
	const run, branch = "fix_2026-03-01T090000Z", "cairn/42-fix-the-crash"
	w, wt := openIssueBranch(t, f, home, run, branch)
	main := testrepo.Git(t, f.root, "rev-parse", "main")
	want, _ := filepath.EvalSymlinks(filepath.Join(home, "worktrees", run))
	if wt.Path != filepath.Join(want, "work") || wt.Branch != branch || wt.Base != main || wt.Kind != ir.IssueBranch {
		t.Errorf("worktree = %+v", wt)
	}
	if got := testrepo.Git(t, wt.Path, "symbolic-ref", "HEAD"); got != "refs/heads/"+branch {
		t.Errorf("HEAD is %s, want the branch %s", got, branch)
	}
	if got := testrepo.Git(t, wt.Path, "rev-parse", "HEAD"); got != main {
		t.Errorf("the branch starts at %s, want main's %s", got, main)
	}
	if up := testrepo.Git(t, f.root, "config", "--default", "", "branch."+branch+".merge"); up != "" {
		t.Errorf("a new branch tracks %q, want nothing", up)
	}

	// The run fails: its work stays, and Kept names the branch and path.
	commitIn(t, wt.Path, "fix.go")
	if err := w.Close(context.Background(), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	kept := w.Kept()
	if len(kept) != 1 || kept[0].Branch != branch || kept[0].Path != wt.Path || kept[0].Reason != "the run did not succeed" {
		t.Fatalf("kept = %+v", kept)
	}
	for _, s := range []string{`"` + branch + `"`, wt.Path} {
		if !strings.Contains(kept[0].String(), s) {
			t.Errorf("%q does not name %s", kept[0], s)
		}
	}
	if _, err := os.Stat(filepath.Join(wt.Path, "fix.go")); err != nil {
		t.Errorf("the failed run's work is gone: %v", err)
	}
	if _, ok := wtList(t, f.root)[wt.Path]; !ok {
		t.Error("git forgot the kept worktree")
	}
	if err := w.Close(context.Background(), t.TempDir()); err != nil || len(w.Kept()) != 1 {
		t.Errorf("a second Close: %v, kept %+v", err, w.Kept())
	}
}

func TestIssueBranchWorktreeContinuesLocalBranch(t *testing.T) {
	t.Parallel()
	f := newOriginRepo(t)
	const branch = "cairn/42-fix"
	testrepo.Git(t, f.root, "branch", branch)
	side := filepath.Join(t.TempDir(), "side")
	testrepo.Git(t, f.root, "worktree", "add", "-q", side, branch)
	tip := commitIn(t, side, "earlier.go")
	testrepo.Git(t, f.root, "worktree", "remove", side)

	_, wt := openIssueBranch(t, f, t.TempDir(), "fix_2026-03-01T090000Z", branch)
	if got := testrepo.Git(t, wt.Path, "rev-parse", "HEAD"); got != tip {
		t.Errorf("HEAD is %s, want the existing branch's %s", got, tip)
	}
}

func TestIssueBranchWorktreeContinuesOriginsBranch(t *testing.T) {
	t.Parallel()
	f := newOriginRepo(t)
	const branch = "cairn/42-fix"
	other := filepath.Join(t.TempDir(), "other")
	testrepo.Git(t, "", "clone", "-q", f.origin, other)
	testrepo.Git(t, other, "switch", "-q", "-c", branch)
	tip := commitIn(t, other, "from-elsewhere.go")
	testrepo.Git(t, other, "push", "-q", "origin", branch)
	testrepo.Git(t, f.root, "fetch", "-q", "origin")

	_, wt := openIssueBranch(t, f, t.TempDir(), "fix_2026-03-01T090000Z", branch)
	if got := testrepo.Git(t, wt.Path, "rev-parse", "HEAD"); got != tip {
		t.Errorf("HEAD is %s, want origin's %s", got, tip)
	}
	if got := testrepo.Git(t, f.root, "rev-parse", "--abbrev-ref", branch+"@{upstream}"); got != "origin/"+branch {
		t.Errorf("the branch tracks %q, want origin's", got)
	}
}

func TestIssueBranchWorktreeClose(t *testing.T) {
	t.Parallel()
	f := newOriginRepo(t)
	for i, c := range []struct {
		name   string
		work   func(t *testing.T, dir, branch string)
		reason string // "" when the worktree goes
	}{
		{"nothing done", func(*testing.T, string, string) {}, ""},
		{"committed and pushed", func(t *testing.T, dir, branch string) {
			commitIn(t, dir, "fix.go")
			testrepo.Git(t, dir, "push", "-q", "origin", branch)
		}, ""},
		{"committed, not pushed", func(t *testing.T, dir, _ string) {
			commitIn(t, dir, "unpushed.go")
		}, "its branch has commits that are neither on the base nor pushed to origin"},
		{"uncommitted", func(t *testing.T, dir, _ string) {
			testrepo.Write(t, filepath.Join(dir, "draft.go"), "package draft\n")
		}, "it has uncommitted changes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			branch := fmt.Sprintf("cairn/%d-fix", i+1)
			w, wt := openIssueBranch(t, f, home, "fix_2026-03-01T090000Z", branch)
			// cairn's own files are excluded, so they never keep a
			// worktree.
			if err := ExcludeCairnFiles(context.Background(), testGit(), wt.Path); err != nil {
				t.Fatal(err)
			}
			testrepo.Write(t, filepath.Join(wt.Path, ir.IssueFile), "# Issue\n")
			c.work(t, wt.Path, branch)
			w.MarkSucceeded()
			if err := w.Close(context.Background(), t.TempDir()); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(wt.Path)
			if c.reason == "" {
				if err == nil || len(w.Kept()) != 0 {
					t.Fatalf("the worktree of a succeeded run with its work saved was kept: %+v", w.Kept())
				}
				if entries, err := os.ReadDir(filepath.Join(home, "worktrees")); err != nil || len(entries) != 0 {
					t.Errorf("home/worktrees holds %v (%v), want nothing", entries, err)
				}
				testrepo.Git(t, f.root, "rev-parse", "--verify", "refs/heads/"+branch)
				return
			}
			if err != nil {
				t.Fatalf("the worktree is gone: %v", err)
			}
			if kept := w.Kept(); len(kept) != 1 || kept[0].Reason != c.reason {
				t.Errorf("kept = %+v, want the reason %q", kept, c.reason)
			}
		})
	}
}

// TestIssueBranchWorktreeKeptForResume: a failed run keeps its issue
// branch's worktree, and says its work is kept only when it holds some.
func TestIssueBranchWorktreeKeptForResume(t *testing.T) {
	t.Parallel()
	f := newOriginRepo(t)
	for i, c := range []struct {
		name string
		work func(t *testing.T, dir string)
		want string
	}{
		{"nothing done", func(*testing.T, string) {},
			`worktree "work" is kept on branch "cairn/%d-fix" at %s for a resume (the run did not succeed); no work was done there`},
		{"committed", func(t *testing.T, dir string) { commitIn(t, dir, "fix.go") },
			`the work of worktree "work" is kept on branch "cairn/%d-fix" at %s (the run did not succeed)`},
		{"uncommitted", func(t *testing.T, dir string) { testrepo.Write(t, filepath.Join(dir, "draft.go"), "package draft\n") },
			`the work of worktree "work" is kept on branch "cairn/%d-fix" at %s (the run did not succeed)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			branch := fmt.Sprintf("cairn/%d-fix", i+1)
			w, wt := openIssueBranch(t, f, t.TempDir(), "fix_2026-03-01T090000Z", branch)
			c.work(t, wt.Path)
			if err := w.Close(context.Background(), t.TempDir()); err != nil {
				t.Fatal(err)
			}
			kept := w.Kept()
			if want := fmt.Sprintf(c.want, i+1, wt.Path); len(kept) != 1 || kept[0].String() != want {
				t.Errorf("kept = %v, want %q", kept, want)
			}
		})
	}
}

func TestIssueBranchWorktreeAfterAKeptOne(t *testing.T) {
	t.Parallel()
	f := newOriginRepo(t)
	home := t.TempDir()
	const branch = "cairn/42-fix"
	first, old := openIssueBranch(t, f, home, "fix_2026-03-01T090000Z", branch)
	commitIn(t, old.Path, "fix.go")
	if err := first.Close(context.Background(), t.TempDir()); err != nil {
		t.Fatal(err)
	}

	// Uncommitted work in the kept worktree: the next run refuses the
	// branch, and says where it is.
	testrepo.Write(t, filepath.Join(old.Path, "draft.go"), "package draft\n")
	_, err := openIn(context.Background(), f.root, f.common, home, "fix_2026-03-01T100000Z", issuePlan(branch))
	if err == nil || !strings.Contains(err.Error(), `branch "`+branch+`" is checked out at `+old.Path) || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Fatalf("a branch with uncommitted work elsewhere: %v", err)
	}
	if _, err := os.Stat(filepath.Join(old.Path, "draft.go")); err != nil {
		t.Fatalf("the refusal lost the kept work: %v", err)
	}

	// All committed: the next run moves the branch into its own worktree.
	testrepo.Git(t, old.Path, "add", "draft.go")
	testrepo.Git(t, old.Path, "commit", "-q", "-m", "draft")
	tip := testrepo.Git(t, old.Path, "rev-parse", "HEAD")
	_, wt := openIssueBranch(t, f, home, "fix_2026-03-01T100000Z", branch)
	if got := testrepo.Git(t, wt.Path, "rev-parse", "HEAD"); got != tip {
		t.Errorf("HEAD is %s, want the kept work's %s", got, tip)
	}
	if _, err := os.Stat(filepath.Dir(old.Path)); err == nil {
		t.Error("the old run's empty worktree folder is left")
	}
}

func TestIssueBranchWorktreeInUseByLiveRun(t *testing.T) {
	t.Parallel()
	f := newOriginRepo(t)
	home := t.TempDir()
	const branch = "cairn/42-fix"
	const live = "fix_2026-03-01T090000Z"
	openIssueBranch(t, f, home, live, branch)
	repo := &git.Repo{Root: f.root, CommonDir: f.common, Git: git.New(os.Environ())}
	// nil: every run may be running.
	for _, running := range []func(string) bool{func(run string) bool { return run == live }, nil} {
		_, err := Open(context.Background(), repo, home, "fix_2026-03-01T100000Z", issuePlan(branch), running)
		if err == nil || !strings.Contains(err.Error(), `is in use by run "`+live+`"`) {
			t.Fatalf("a branch a live run works on: %v", err)
		}
	}
}

func TestIssueBranchWorktreeRefusals(t *testing.T) {
	t.Parallel()
	f := newOriginRepo(t)
	for _, c := range []struct{ branch, want string }{
		{"cairn/42-…", "no branch is named for it"},
		{"", "no branch is named for it"},
		{"cairn/42 fix", `invalid branch name "cairn/42 fix"`},
	} {
		_, err := openIn(context.Background(), f.root, f.common, t.TempDir(), "fix_2026-03-01T090000Z", issuePlan(c.branch))
		if err == nil || !strings.Contains(err.Error(), `create worktree "work": `+c.want) {
			t.Errorf("branch %q: %v, want %q", c.branch, err, c.want)
		}
	}
	// The repository's own working tree has the branch checked out.
	testrepo.Git(t, f.root, "switch", "-q", "-c", "cairn/42-mine")
	_, err := openIn(context.Background(), f.root, f.common, t.TempDir(), "fix_2026-03-01T090000Z", issuePlan("cairn/42-mine"))
	if err == nil || !strings.Contains(err.Error(), `branch "cairn/42-mine" is checked out at `+f.root) {
		t.Errorf("a branch checked out in the repository: %v", err)
	}
}

func TestIssueBranchWithThrowaway(t *testing.T) {
	t.Parallel()
	f := newOriginRepo(t)
	home := t.TempDir()
	plan := []ir.PlanWorktree{
		{Name: "scratch", Kind: ir.Throwaway, Base: "main"},
		{Name: "work", Kind: ir.IssueBranch, Base: "main", Branch: "cairn/42-fix"},
	}
	w, err := openIn(context.Background(), f.root, f.common, home, "fix_2026-03-01T090000Z", plan)
	if err != nil {
		t.Fatal(err)
	}
	scratch, _ := w.Get("scratch")
	work, _ := w.Get("work")
	if err := w.Close(context.Background(), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(scratch.Path); err == nil {
		t.Error("the throwaway is left")
	}
	if _, err := os.Stat(work.Path); err != nil {
		t.Errorf("the failed run's issue branch is gone: %v", err)
	}
}
