package catalogue

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/internal/fakegh"
	"github.com/cairn-dev/cairn/internal/ghtest"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/testrepo"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// fixerScript is the agent of the delivery tests' repair sessions
// (testRun.Session): session N keeps its prompt as $FIXER_DIR/prompt.N,
// runs $FIXER_DIR/do.N (when there is one) in the worktree, and answers
// "fixed in round N".
const fixerScript = `#!/bin/bash
n=1
while [ -e "$FIXER_DIR/prompt.$n" ]; do n=$((n + 1)); done
cat >"$FIXER_DIR/prompt.$n"
if [ -f "$FIXER_DIR/do.$n" ]; then . "$FIXER_DIR/do.$n"; fi
echo "fixed in round $n"
`

// testRun is the run of the catalogue tests (Run): a run folder with a
// plan, on an issue, its progress kept, and its sessions answered by the
// fixer script in the worktree dir and the environment env, a skill read
// where the worktree would have it.
type testRun struct {
	plan   *ir.Plan
	issue  *forge.Issue
	folder *record.Folder
	repo   *git.Repo
	fixer  string
	dir    string
	env    []string

	mu          sync.Mutex
	prog        strings.Builder
	pullRequest string
}

var _ Run = (*testRun)(nil)

func (r *testRun) Plan() *ir.Plan      { return r.plan }
func (r *testRun) Issue() *forge.Issue { return r.issue }
func (r *testRun) Name() string        { return r.folder.Name() }
func (r *testRun) Dir() string         { return r.folder.Dir }
func (r *testRun) Warn(err error)      { r.Note("cairn: warning: " + err.Error()) }
func (r *testRun) Children() Children  { return nil }

func (r *testRun) StepStart(string) *time.Time  { return nil }
func (r *testRun) SetChildren(string, []string) {}

func (r *testRun) Note(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prog.WriteString(line + "\n")
}

// progress is what the run's progress showed.
func (r *testRun) progress() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prog.String()
}

func (r *testRun) SetPullRequest(url string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pullRequest = url
}

// pullRequestURL is what SetPullRequest recorded last.
func (r *testRun) pullRequestURL() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pullRequest
}

// Session runs the fixer as the session's agent: its prompt on stdin, its
// output the final message, kept at trace too.
func (r *testRun) Session(ctx context.Context, a *ir.PlanAction, trace string, prompt func(string) (string, error)) Result {
	if a.Harness.Value != "fixer" {
		return failure("unknown harness %q", a.Harness.Value)
	}
	p, err := prompt(filepath.Join(r.dir, ".cairn", "skills", a.Skill.Name, "SKILL.md"))
	if err != nil {
		return failure("%v", err)
	}
	cmd := exec.CommandContext(ctx, r.fixer)
	cmd.Dir, cmd.Env, cmd.Stdin = r.dir, r.env, strings.NewReader(p)
	out, err := cmd.Output()
	if err != nil {
		return failure("fixer: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(trace), 0o755); err != nil {
		return failure("%v", err)
	}
	if err := os.WriteFile(trace, out, 0o644); err != nil {
		return failure("%v", err)
	}
	return Result{Result: string(out), Trace: trace}
}

func (r *testRun) OpenIssue(ctx context.Context, ref string, env []string) (*forge.Issue, error) {
	return forge.OpenIssue(ctx, r.repo, ref, nil, env)
}

// branch is the deliveries' issue branch.
const branch = "cairn/42-fix-the-parser"

// deliveryFixture is a run on issue 42 whose issue-branch worktree "fix",
// at dir, holds one commit over main, with the fake gh serving its pull
// requests and the fixer as the repair sessions' harness.
type deliveryFixture struct {
	*ghtest.Fixture
	r     *testRun
	s     *Step
	dir   string
	fixer string
}

func newDeliveryFixture(t *testing.T, checks []fakegh.CheckSpec, limits ir.PlanLimits) *deliveryFixture {
	t.Helper()
	t.Setenv(EnvPollInterval, "5ms")
	f := &deliveryFixture{Fixture: ghtest.New(t)}
	f.WriteIssue(t, fakegh.Issue{Number: 42, Title: "Fix the parser", Body: "It crashes.", Author: "alice", CreatedAt: ghtest.At(0)})
	if err := fakegh.SetOrigin(f.State, f.Origin); err != nil {
		t.Fatal(err)
	}
	if err := fakegh.WriteChecks(f.State, checks); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f.fixer = filepath.Join(dir, "fixer")
	if err := os.Mkdir(f.fixer, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "fixer.sh")
	if err := os.WriteFile(script, []byte(fixerScript), 0o755); err != nil {
		t.Fatal(err)
	}

	f.dir = filepath.Join(dir, "wt")
	testrepo.Git(t, f.Root, "worktree", "add", "-q", "-b", branch, f.dir, "main")
	writeFile(t, filepath.Join(f.dir, "src", "parse.go"), "package main\n\nfunc parse() {}\n")
	testrepo.Git(t, f.dir, "add", "-A")
	testrepo.Git(t, f.dir, "commit", "-q", "-m", "Fix the parser")

	is, err := forge.OpenIssue(context.Background(), f.Repo, "42", nil, f.Env)
	if err != nil {
		t.Fatal(err)
	}
	// As a run writes it: excluded from git.
	exclude := testrepo.Git(t, f.dir, "rev-parse", "--path-format=absolute", "--git-path", "info/exclude")
	writeFile(t, exclude, strings.Join(ir.CairnFiles, "\n")+"\n")
	if _, err := is.WriteFile(f.dir); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	folder, err := record.NewFolder(record.RunsDir(home), "fix", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { folder.Close() })
	plan := &ir.Plan{
		Process:   "fix",
		Limits:    limits,
		Worktrees: []ir.PlanWorktree{{Name: "fix", Kind: ir.IssueBranch, Base: "main", Branch: branch}},
		Repair: &ir.PlanAction{Kind: ir.Session,
			Skill:    &ir.PlanSkill{Name: "cairn-repair", Path: "builtin:repair", Source: ir.SkillBuiltin},
			Harness:  &ir.Setting{Value: "fixer", Source: ir.FromConfig},
			MaxTurns: &ir.IntSetting{Value: ir.DefaultMaxTurns, Source: ir.FromDefault}},
	}
	env := append(slices.Clone(f.Env), "FIXER_DIR="+f.fixer)
	f.r = &testRun{plan: plan, issue: is, folder: folder, repo: f.Repo, fixer: script, dir: f.dir, env: env}
	f.s = f.step("deliver")
	return f
}

// step is step name in the fixture's worktree, as the runtime would make it.
func (f *deliveryFixture) step(name string) *Step {
	return &Step{
		Name:      name,
		Worktree:  "fix",
		Kind:      ir.IssueBranch,
		Dir:       f.dir,
		Branch:    branch,
		Env:       f.r.env,
		Git:       git.New(f.r.env),
		IssueFile: filepath.Join(f.dir, ir.IssueFile),
		Trailers:  "Cairn-Run: " + f.r.Name() + "\nCairn-Step: " + name,
	}
}

// writeFile writes content to path, making its folder.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// do makes repair session n run script in the worktree.
func (f *deliveryFixture) do(t *testing.T, n int, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.fixer, "do."+strconv.Itoa(n)), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
}

// prompts are the prompts of the repair sessions, in order.
func (f *deliveryFixture) prompts(t *testing.T) []string {
	t.Helper()
	var out []string
	for n := 1; ; n++ {
		b, err := os.ReadFile(filepath.Join(f.fixer, "prompt."+strconv.Itoa(n)))
		if os.IsNotExist(err) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
}

// pull is pull request n of the fake's state.
func (f *deliveryFixture) pull(t *testing.T, n int) *fakegh.PullRequest {
	t.Helper()
	pr, err := fakegh.ReadPullRequest(f.State, n)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// deliver runs the delivery action.
func (f *deliveryFixture) deliver() Result {
	return Execute(context.Background(), f.r, f.s, &ir.PlanAction{Kind: ir.Catalogue, Catalogue: ir.Delivery})
}

// limits are the tests' limits: repair cap n, a self-merge allowed, no
// merge asked.
func limits(n int) ir.PlanLimits {
	return ir.PlanLimits{RepairCap: ir.IntSetting{Value: n, Source: ir.FromConfig}, SelfMerge: true,
		Merge: ir.Setting{Value: "false", Source: ir.FromDefault}, ProtectedPaths: []string{}}
}

const prURL = "https://github.com/acme/widgets/pull/43"

func TestDeliveryReadyWhenChecksPass(t *testing.T) {
	f := newDeliveryFixture(t, []fakegh.CheckSpec{{Name: "test", Pending: 1}, {Name: "lint"}}, limits(3))
	res := f.deliver()
	if res.Failed {
		t.Fatalf("delivery failed: %s\n%s", res.Cause, f.r.progress())
	}
	if !strings.HasPrefix(res.Result, "Pull request: "+prURL+"\n") || !strings.Contains(res.Result, "Ready for review: all 2 checks pass.") {
		t.Errorf("result:\n%s", res.Result)
	}
	pr := f.pull(t, 43)
	if pr.State != "OPEN" || pr.IsDraft || pr.Head != "cairn/42-fix-the-parser" || pr.Base != "main" || pr.Title != "Fix the parser" ||
		!strings.HasPrefix(pr.Body, "Closes #42.\n") || !strings.Contains(pr.Body, f.r.Name()) {
		t.Errorf("pull request = %+v", pr)
	}
	if got := f.r.pullRequestURL(); got != prURL {
		t.Errorf("the run's pull request = %q, want %q", got, prURL)
	}
	if head, pushed := testrepo.Git(t, f.dir, "rev-parse", "HEAD"), testrepo.Git(t, f.Origin, "rev-parse", "refs/heads/cairn/42-fix-the-parser"); head != pushed {
		t.Errorf("origin's branch is at %s, the worktree at %s", pushed, head)
	}
	if p := f.prompts(t); len(p) != 0 {
		t.Errorf("%d repair sessions ran for green checks", len(p))
	}
	calls := strings.Join(f.Calls(t), "\n")
	for _, want := range []string{
		"pr list --repo github.com/acme/widgets --head cairn/42-fix-the-parser --state open --json",
		"pr create --repo github.com/acme/widgets --head cairn/42-fix-the-parser --base main --title Fix the parser --body Closes #42.",
		"pr ready 43 --repo github.com/acme/widgets",
	} {
		if !strings.Contains(calls, want) {
			t.Errorf("gh was not called with %q; calls:\n%s", want, calls)
		}
	}
	if strings.Contains(calls, "pr comment") || strings.Contains(calls, "issue comment") {
		t.Errorf("cairn commented:\n%s", calls)
	}
	if !strings.Contains(f.r.progress(), "deliver: pull request "+prURL+" is ready for review") {
		t.Errorf("progress:\n%s", f.r.progress())
	}

	// Delivered again, the same pull request is updated, not opened twice.
	if res := f.deliver(); res.Failed {
		t.Fatalf("second delivery failed: %s", res.Cause)
	}
	if prs, _ := fakegh.PullRequests(f.State); len(prs) != 1 {
		t.Errorf("%d pull requests after two deliveries, want 1", len(prs))
	}
	if !strings.Contains(strings.Join(f.Calls(t), "\n"), "pr edit 43 --repo github.com/acme/widgets --title Fix the parser --body Closes #42.") {
		t.Errorf("the second delivery did not update pull request 43")
	}
}

func TestDeliveryRepairsARedCheckInTwoRounds(t *testing.T) {
	f := newDeliveryFixture(t, []fakegh.CheckSpec{
		{Name: "test", Workflow: "CI", Fails: 2, Log: "--- FAIL: TestParseEmpty\nparse_test.go:9: index out of range"},
		{Name: "lint"},
	}, limits(3))
	// The first session commits its fix itself; the second leaves it for
	// cairn to commit.
	f.do(t, 1, "echo one >> src/parse.go && git add -A && git commit -q -m 'Fix the empty case'\n")
	f.do(t, 2, "echo two >> src/parse.go\n")
	res := f.deliver()
	if res.Failed {
		t.Fatalf("delivery failed: %s\n%s", res.Cause, f.r.progress())
	}
	if !strings.Contains(res.Result, "after 2 repair sessions") || !strings.Contains(res.Result, `Repair 2: checks "test": fixed in round 2`) {
		t.Errorf("result:\n%s", res.Result)
	}
	prompts := f.prompts(t)
	if len(prompts) != 2 {
		t.Fatalf("%d repair sessions, want 2", len(prompts))
	}
	for i, p := range prompts {
		for _, want := range []string{
			"### `test`", "parse_test.go:9: index out of range", "--- FAIL: TestParseEmpty",
			prURL, "This is repair session " + strconv.Itoa(i+1) + " of at most 3.",
			".cairn/skills/cairn-repair/SKILL.md", ".cairn-issue.md",
		} {
			if !strings.Contains(p, want) {
				t.Errorf("prompt %d lacks %q:\n%s", i+1, want, p)
			}
		}
		if strings.Contains(p, "`lint`") {
			t.Errorf("prompt %d names the passing check", i+1)
		}
	}
	log := testrepo.Git(t, f.Origin, "log", "--format=%s%n%b", "refs/heads/cairn/42-fix-the-parser")
	if !strings.HasPrefix(log, "[cairn] Repair: test\nCairn-Run: "+f.r.Name()+"\nCairn-Step: deliver\n") || !strings.Contains(log, "Fix the empty case") {
		t.Errorf("origin's branch:\n%s", log)
	}
	if pr := f.pull(t, 43); pr.State != "OPEN" || pr.IsDraft {
		t.Errorf("pull request = %+v, want it open and ready", pr)
	}
	if status := testrepo.Git(t, f.dir, "status", "--porcelain"); status != "" {
		t.Errorf("the worktree is left dirty:\n%s", status)
	}
	for _, want := range []string{"deliver: repair 1 of 3: checks \"test\" of pull request " + prURL + " fail", "deliver: repair 2 of 3"} {
		if !strings.Contains(f.r.progress(), want) {
			t.Errorf("progress lacks %q:\n%s", want, f.r.progress())
		}
	}
	if _, err := os.Stat(filepath.Join(f.r.Dir(), record.TracesDir, "deliver.repair-2.jsonl")); err != nil {
		t.Errorf("the second session's trace: %v", err)
	}
}

func TestDeliveryStopsAtTheRepairCap(t *testing.T) {
	f := newDeliveryFixture(t, []fakegh.CheckSpec{{Name: "test", Fails: 9, Log: "boom"}}, limits(2))
	f.do(t, 1, "echo one >> src/parse.go\n")
	f.do(t, 2, "echo two >> src/parse.go\n")
	res := f.deliver()
	if !res.Failed {
		t.Fatalf("delivery succeeded at the repair cap:\n%s", res.Result)
	}
	want := `the repair cap (2) is reached and checks "test" still fail; pull request ` + prURL + ` stays open`
	if res.Cause != want {
		t.Errorf("cause = %q, want %q", res.Cause, want)
	}
	if n := len(f.prompts(t)); n != 2 {
		t.Errorf("%d repair sessions, want the cap's 2", n)
	}
	if pr := f.pull(t, 43); pr.State != "OPEN" || !pr.IsDraft {
		t.Errorf("pull request = %+v, want it open, still a draft", pr)
	}
	if got := f.r.pullRequestURL(); got != prURL {
		t.Errorf("the run's pull request = %q", got)
	}
}

func TestDeliveryRepairCapZero(t *testing.T) {
	f := newDeliveryFixture(t, []fakegh.CheckSpec{{Name: "test", Fails: 1}}, limits(0))
	res := f.deliver()
	if !res.Failed || !strings.Contains(res.Cause, "the repair cap (0) is reached") {
		t.Fatalf("delivery = %+v", res)
	}
	if n := len(f.prompts(t)); n != 0 {
		t.Errorf("%d repair sessions with a cap of 0", n)
	}
}

func TestDeliveryRebasesAConflict(t *testing.T) {
	f := newDeliveryFixture(t, []fakegh.CheckSpec{{Name: "test"}}, limits(3))
	// The branch and main both change README.md.
	writeFile(t, filepath.Join(f.dir, "README.md"), "hello from the branch\n")
	testrepo.Git(t, f.dir, "commit", "-q", "-am", "Branch README")
	// An earlier delivery pushed the branch as it was.
	testrepo.Git(t, f.dir, "push", "-q", "origin", "cairn/42-fix-the-parser")
	writeFile(t, filepath.Join(f.Root, "README.md"), "hello from main\n")
	testrepo.Git(t, f.Root, "commit", "-q", "-am", "Main README")
	testrepo.Git(t, f.Root, "push", "-q", "origin", "main")
	f.do(t, 1, "printf 'hello from main and the branch\\n' > README.md && git add README.md\n")

	res := f.deliver()
	if res.Failed {
		t.Fatalf("delivery failed: %s\n%s", res.Cause, f.r.progress())
	}
	prompts := f.prompts(t)
	if len(prompts) != 1 {
		t.Fatalf("%d repair sessions, want 1", len(prompts))
	}
	for _, want := range []string{"rebasing `cairn/42-fix-the-parser` onto `origin/main`", "- `README.md`", "do not run `git rebase --continue`"} {
		if !strings.Contains(prompts[0], want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompts[0])
		}
	}
	branch := "refs/heads/cairn/42-fix-the-parser"
	mainHead := testrepo.Git(t, f.Origin, "rev-parse", "refs/heads/main")
	testrepo.Git(t, f.Origin, "merge-base", "--is-ancestor", mainHead, branch)
	if got := testrepo.Git(t, f.Origin, "show", branch+":README.md"); got != "hello from main and the branch" {
		t.Errorf("README.md on origin's branch = %q", got)
	}
	if pr := f.pull(t, 43); pr.IsDraft || pr.State != "OPEN" {
		t.Errorf("pull request = %+v", pr)
	}
	if !strings.Contains(f.r.progress(), `the rebase onto origin/main stopped on conflicts in "README.md"`) {
		t.Errorf("progress:\n%s", f.r.progress())
	}
}

func TestDeliveryRefusals(t *testing.T) {
	f := newDeliveryFixture(t, []fakegh.CheckSpec{{Name: "test"}}, limits(3))
	throwaway := f.step("deliver")
	throwaway.Kind = ir.Throwaway
	res := Execute(context.Background(), f.r, throwaway, &ir.PlanAction{Kind: ir.Catalogue, Catalogue: ir.Delivery})
	if !res.Failed || res.Cause != `delivery works on an issue-branch worktree, and worktree "fix" is a throwaway worktree` {
		t.Errorf("delivery in a throwaway = %+v", res)
	}
	writeFile(t, filepath.Join(f.dir, "loose.txt"), "not committed\n")
	res = f.deliver()
	if !res.Failed || !strings.Contains(res.Cause, `worktree "fix" has uncommitted changes`) {
		t.Errorf("delivery of a dirty worktree = %+v", res)
	}
	if prs, _ := fakegh.PullRequests(f.State); len(prs) != 0 {
		t.Errorf("a refused delivery opened %d pull requests", len(prs))
	}
}

// TestCairnPathspecs holds that the pathspecs of cairn's own files match
// them, as git exclude patterns do, and nothing else.
func TestCairnPathspecs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testrepo.Git(t, "", "init", "-q", root)
	own := []string{".cairn-issue.md", ".cairn/skills/hunt/SKILL.md", ".cairn/runs/r/.lock", ".cairn/runs/r/events.jsonl"}
	others := []string{"src/.cairn-issue.md", ".cairn/runs/r/run.json", ".cairn/runs/r/results/a.md", ".cairn/processes/p.toml"}
	for _, p := range append(slices.Clone(own), others...) {
		writeFile(t, filepath.Join(root, filepath.FromSlash(p)), "x\n")
	}
	testrepo.Git(t, root, "add", "-A")
	got := strings.Fields(testrepo.Git(t, root, append([]string{"ls-files", "--"}, ir.CairnPathspecs()...)...))
	slices.Sort(got)
	slices.Sort(own)
	if !slices.Equal(got, own) {
		t.Errorf("cairn's pathspecs match %q, want %q", got, own)
	}
}
