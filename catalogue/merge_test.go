package catalogue

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakegh"
	"github.com/cairn-dev/cairn/internal/ghtest"
	"github.com/cairn-dev/cairn/internal/testrepo"
	"github.com/cairn-dev/cairn/ir"
)

// delivered is a delivery fixture whose branch, with files committed on
// it, is pushed and has its pull request 43, ready and green, with the
// given limits: as a delivery leaves it, without the gh calls of one.
func delivered(t *testing.T, l ir.PlanLimits, files map[string]string) *deliveryFixture {
	t.Helper()
	f := newDeliveryFixture(t, []fakegh.CheckSpec{{Name: "test"}}, l)
	for name, content := range files {
		writeFile(t, filepath.Join(f.dir, filepath.FromSlash(name)), content)
	}
	if len(files) > 0 {
		testrepo.Git(t, f.dir, "add", "-A")
		testrepo.Git(t, f.dir, "commit", "-q", "-m", "More")
	}
	testrepo.Git(t, f.dir, "push", "-q", "origin", branch)
	err := fakegh.WritePullRequest(f.State, &fakegh.PullRequest{Number: 43, Title: "Fix the parser", Body: "Closes #42.",
		Author: "alice", Head: branch, Base: "main", State: "OPEN", CreatedAt: ghtest.At(60)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// selfMerge runs the self-merge action in the fixture's worktree.
func (f *deliveryFixture) selfMerge() Result {
	f.r.SetPullRequest("")
	return Execute(context.Background(), f.r, f.step("merge"), &ir.PlanAction{Kind: ir.Catalogue, Catalogue: ir.SelfMerge})
}

func TestSelfMergeOnlyWhenAsked(t *testing.T) {
	f := delivered(t, limits(3), nil)
	res := f.selfMerge()
	const reason = "no merge was asked (run with --merge, or set merge_always = true in the config)"
	if res.Failed || res.Cause != "self-merge held: "+reason || !strings.Contains(res.Result, "Self-merge held: "+reason+".") {
		t.Fatalf("self-merge not asked = %+v", res)
	}
	if pr := f.pull(t, 43); pr.State != "OPEN" || pr.IsDraft || pr.Merge != nil {
		t.Errorf("pull request = %+v, want it open and ready", pr)
	}
	if !strings.Contains(f.r.progress(), "merge: self-merge held: "+reason+"; pull request "+prURL+" is left ready for review") {
		t.Errorf("progress:\n%s", f.r.progress())
	}
	if got := f.r.pullRequestURL(); got != prURL {
		t.Errorf("the run's pull request = %q", got)
	}

	// Asked (by the flag or the config: the plan says which), the same
	// pull request is merged, squashed, at the delivered head.
	f.r.plan.Limits.Merge = ir.Setting{Value: "true", Source: ir.FromFlag}
	res = f.selfMerge()
	if res.Failed || res.Cause != "" || !strings.Contains(res.Result, "Merged (squashed)") {
		t.Fatalf("merge asked: %+v", res)
	}
	pr := f.pull(t, 43)
	head := testrepo.Git(t, f.dir, "rev-parse", "HEAD")
	if pr.State != "MERGED" || pr.Merge == nil || pr.Merge.Method != "squash" || pr.Merge.HeadSHA != head {
		t.Errorf("merge asked: pull request = %+v", pr)
	}
	if !strings.Contains(strings.Join(f.Calls(t), "\n"), "pr merge 43 --repo github.com/acme/widgets --squash --match-head-commit "+head) {
		t.Errorf("gh pr merge was not called as expected:\n%s", strings.Join(f.Calls(t), "\n"))
	}
}

func TestSelfMergeHeldByAProtectedPath(t *testing.T) {
	l := limits(3)
	l.Merge = ir.Setting{Value: "true", Source: ir.FromFlag}
	l.ProtectedPaths = []string{".github/**", "migrations/**"}
	f := delivered(t, l, map[string]string{"migrations/001_init.sql": "create table t();\n"})
	res := f.selfMerge()
	want := `the change touches protected paths: "migrations/001_init.sql" (protected by "migrations/**")`
	if res.Failed || res.Cause != "self-merge held: "+want {
		t.Fatalf("self-merge = %+v, want it held: %s", res, want)
	}
	if pr := f.pull(t, 43); pr.State != "OPEN" || pr.IsDraft || pr.Merge != nil {
		t.Errorf("pull request = %+v, want it open and ready", pr)
	}
	if strings.Contains(strings.Join(f.Calls(t), "\n"), "pr merge") {
		t.Error("gh pr merge was called")
	}
}

func TestSelfMergeForbiddenByTheFile(t *testing.T) {
	l := limits(3)
	l.Merge = ir.Setting{Value: "true", Source: ir.FromFlag}
	l.SelfMerge = false
	f := delivered(t, l, nil)
	res := f.selfMerge()
	if res.Failed || res.Cause != "self-merge held: the process file forbids it (self_merge = false)" {
		t.Fatalf("self-merge = %+v", res)
	}
	if pr := f.pull(t, 43); pr.State != "OPEN" || pr.Merge != nil {
		t.Errorf("pull request = %+v, want it open", pr)
	}
}

func TestSelfMergeHeldByRedChecks(t *testing.T) {
	l := limits(3)
	l.Merge = ir.Setting{Value: "true", Source: ir.FromFlag}
	f := delivered(t, l, nil)
	// A check that went red since the delivery.
	if err := fakegh.WriteChecks(f.State, []fakegh.CheckSpec{{Name: "test"}, {Name: "audit", Fails: 1}}); err != nil {
		t.Fatal(err)
	}
	res := f.selfMerge()
	if res.Failed || res.Cause != `self-merge held: checks "audit" fail` {
		t.Fatalf("self-merge = %+v", res)
	}
	if pr := f.pull(t, 43); pr.Merge != nil {
		t.Errorf("pull request merged with a red check: %+v", pr)
	}
}

func TestSelfMergeWithoutAPullRequest(t *testing.T) {
	f := newDeliveryFixture(t, nil, limits(3))
	res := f.selfMerge()
	if !res.Failed || res.Cause != `branch "cairn/42-fix-the-parser" has no open pull request to merge; a delivery step opens it` {
		t.Errorf("self-merge = %+v", res)
	}
}

func TestProtects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		glob, path string
		want       bool
	}{
		{"migrations/**", "migrations/001.sql", true},
		{"migrations/**", "migrations/a/b/c.sql", true},
		{"migrations/**", "db/migrations/001.sql", false},
		{"**/migrations/**", "db/migrations/001.sql", true},
		{".github/**", ".github/workflows/ci.yml", true},
		{".github/**", "src/.github", false},
		{"infra", "infra/main.tf", true},
		{"infra", "infrastructure/main.tf", false},
		{"*.lock", "go.lock", true},
		{"*.lock", "sub/go.lock", false},
		{"**/*.lock", "sub/go.lock", true},
		{"src/*/secret.go", "src/a/secret.go", true},
		{"src/*/secret.go", "src/a/b/secret.go", false},
		{"/Makefile", "Makefile", true},
	} {
		got, err := protects(tc.glob, tc.path)
		if err != nil || got != tc.want {
			t.Errorf("protects(%q, %q) = %v, %v; want %v", tc.glob, tc.path, got, err, tc.want)
		}
	}
	if _, err := protects("[", "x"); err == nil {
		t.Error("a bad glob was taken")
	}
}
