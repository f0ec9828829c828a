package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakegh"
	"github.com/goccy/go-yaml"
)

// TestActDifferentialCommit runs the golden case commit, a process in
// commit mode, under act as TestActDifferential runs its cases, with an
// origin to push to, and holds it to cairn run: the same exit code, log
// lines, results and patches, and the commits the workflow's push job put
// on origin's main are the ones cairn run made on its branch (subjects,
// trailers and the files each changed), made by jobs that held no write
// token, and the budgets the sessions were given. It runs as it is, and with the agent failing, which fails the run
// at its second step: its last step is cancelled, and the run's end
// committed all the same. So does the golden case foreach-commit, whose
// items run in their step's job (in commit mode, no matrix: on runners of
// their own they would commit the one run at once), and the golden case
// parallel-commit, whose parallel group runs in one job for the same
// reason, as it is and with its session failing, which fails the run in
// the group's job: the other member ends, the step after is cancelled.
// The golden case needs-commit, whose needs let a session and a command run
// at once, runs their jobs one after another in file order, and is held to
// cairn run --jobs 1, which runs them so (run at once, the command's
// precheck's output is in the session's commit): with the session failing,
// the command's job does not run, and the command is cancelled, as cairn
// run --jobs 1 starts nothing after the failure.
func TestActDifferentialCommit(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	for _, variant := range []struct {
		name, file   string
		env, runArgs []string
	}{
		{"ok", "commit", nil, nil}, {"failing", "commit", []string{"FAKE_FAIL=claude"}, nil}, {"foreach", "foreach-commit", nil, nil},
		{"parallel", "parallel-commit", nil, nil}, {"parallel-failing", "parallel-commit", []string{"FAKE_FAIL=claude"}, nil},
		{"parallel-throwaways", "parallel-throwaways", nil, nil},
		{"needs", "needs-commit", nil, []string{"--jobs", "1"}}, {"needs-failing", "needs-commit", []string{"FAKE_FAIL=claude"}, []string{"--jobs", "1"}},
	} {
		t.Run(variant.name, func(t *testing.T) {
			t.Parallel()
			a, _ := actCommit(t, act, standIns, filepath.Join(compileGoldenDir, variant.file+".toml"), variant.env, variant.runArgs, nil)
			if variant.name == "needs-failing" {
				// The workflow's log is cairn run's (actCommit).
				b, err := os.ReadFile(filepath.Join(a.onlyRepoRun(t), "log"))
				if err != nil || !regexp.MustCompile(`(?m)^.*step=aside .*outcome=cancelled$`).Match(b) {
					t.Errorf("cairn run --jobs 1's log (%v):\n%s\nwant aside cancelled", err, b)
				}
			}
		})
	}
	// A procedure on an issue whose delivery is in a parallel group: its
	// members run one after another, each in a job of its own (the
	// delivery's alone may write), and the run's commits and the pull
	// request are cairn run's.
	t.Run("group-deliver", func(t *testing.T) {
		t.Parallel()
		path := dispatchEvent(t, "7")
		actArgs := []string{"-e", path, "-s", "GITHUB_TOKEN=" + actGitHubToken, "-s", "CAIRN_PUSH_TOKEN=" + actPushToken, "--remote-name", "github"}
		file := filepath.Join(compileGoldenDir, "commit-group-deliver.toml")
		a, b := actCommit(t, act, standIns, file, nil, []string{"issue", "7"}, actArgs)
		if pa, pb := a.pullRequests(t), b.pullRequests(t); !slices.Equal(pa, pb) || len(pb) != 1 || !strings.HasSuffix(pb[0], "OPEN draft=false") {
			t.Errorf("pull requests: cairn run leaves %q, the workflow %q; want one, the same, ready", pa, pb)
		}
		var wf ghWorkflow
		if err := yaml.Unmarshal(b.compileWorkflow(t, file), &wf); err != nil {
			t.Fatal(err)
		}
		checkLeastPrivilege(t, wf)
		if needs := wf.Jobs["note"].Needs; !slices.Contains(needs, "deliver") {
			t.Errorf("job note needs %q; want it after deliver", needs)
		}
	})
	// A parallel group whose session opens an issue with gh: its members
	// run one after another, each in a job of its own, the session's with
	// a stand-in gh whose calls its publish job makes with the workflow's
	// token before the note's job starts; the issue is cairn run's, but
	// GitHub's bot's, and the step's result names it by its real number.
	t.Run("group-publish", func(t *testing.T) {
		t.Parallel()
		path := dispatchEvent(t, "")
		actArgs := []string{"-e", path, "-s", "GITHUB_TOKEN=" + actGitHubToken, "--remote-name", "github"}
		file := filepath.Join(compileGoldenDir, "commit-group-publish.toml")
		a, b := actCommit(t, act, standIns, file, nil, []string{"--jobs", "1"}, actArgs)
		sameIssue(t, a, b, "Flaky test")
		var wf ghWorkflow
		if err := yaml.Unmarshal(b.compileWorkflow(t, file), &wf); err != nil {
			t.Fatal(err)
		}
		checkLeastPrivilege(t, wf)
		if needs := wf.Jobs["note"].Needs; !slices.Contains(needs, "report_publish") {
			t.Errorf("job note needs %q; want it after report_publish", needs)
		}
	})
	// A step with for_each whose items' sessions each open an issue with
	// gh: in commit mode the items run in the step's job, whose stand-in gh
	// numbers both issues provisionally in one outbox, and its publish job
	// opens them in order, naming them by their real numbers in the items'
	// results the note's job is given; the step's commit holds the results
	// as the sessions wrote them.
	t.Run("foreach-publish", func(t *testing.T) {
		t.Parallel()
		path := dispatchEvent(t, "")
		// One item at a time, as cairn run --jobs 1 runs them: the issues
		// get their numbers in the order the publish job opens them.
		actArgs := []string{"-e", path, "-s", "GITHUB_TOKEN=" + actGitHubToken, "--remote-name", "github", "--env", "CAIRN_JOBS=1"}
		file := filepath.Join(compileGoldenDir, "foreach-commit-publish.toml")
		a, b := actCommit(t, act, standIns, file, nil, []string{"--jobs", "1"}, actArgs)
		for _, test := range []string{"TestSync", "TestLoad"} {
			sameIssue(t, a, b, "Flaky "+test)
		}
		// The step's own commit, made in its job with the provisional
		// numbers, was made again by the publish job: its results name the
		// issues by their real numbers, as cairn run's do.
		origin := filepath.Join(b.work, "origin.git")
		sha, _, _ := b.run(t, nil, "git", "--git-dir="+origin, "log", "--format=%H", "-F", "--grep=[cairn] Complete step: report", "main")
		// Its results; the sessions' traces keep what the stand-in answered.
		got, _, _ := b.run(t, nil, "git", "--git-dir="+origin, "grep", "-h", "Opened the issue", strings.TrimSpace(sha), "--", "*/results/*")
		for _, test := range []string{"TestSync", "TestLoad"} {
			if is := titledIssue(t, a, "Flaky "+test); is != nil && !strings.Contains(got, fmt.Sprintf("Opened the issue about %s: #%d.", test, is.Number)) || strings.Contains(got, "#90000") {
				t.Errorf("the pushed commit of step report (%q) holds:\n%s\nwant the issue about %s by its number", strings.TrimSpace(sha), got, test)
			}
		}
	})
	// A procedure on an issue, delivered: the issue branch goes from job
	// to job beside the run's commits, and the delivery's job pushes it and
	// opens its pull request, as cairn run does, while the run's commits
	// go to the checkout's branch.
	t.Run("deliver", func(t *testing.T) {
		t.Parallel()
		path := dispatchEvent(t, "7")
		actArgs := []string{"-e", path, "-s", "GITHUB_TOKEN=" + actGitHubToken, "-s", "CAIRN_PUSH_TOKEN=" + actPushToken, "--remote-name", "github"}
		a, b := actCommit(t, act, standIns, filepath.Join(compileGoldenDir, "commit-deliver.toml"), nil, []string{"issue", "7"}, actArgs)
		if pa, pb := a.pullRequests(t), b.pullRequests(t); !slices.Equal(pa, pb) || len(pb) != 1 || !strings.HasSuffix(pb[0], "OPEN draft=false") {
			t.Errorf("pull requests: cairn run leaves %q, the workflow %q; want one, the same, ready", pa, pb)
		}
		if la, lb := a.originLog(t), b.originLog(t); la != lb || !strings.Contains(lb, "NOTES.md") || !strings.Contains(lb, "main.go") {
			t.Errorf("origin's issue branch: cairn run pushed\n%s\nthe workflow\n%s\nwant both steps' work on it", la, lb)
		}
	})
	// The same on a delivery whose check fails once: the delivery's job
	// hands the failing check to repair job 1, which commits nothing of the
	// run and keeps the branch it repaired; the delivery's next job pushes
	// it and ends the step, so the run's commits are cairn run's. With the
	// repair session failing, the delivery's next job fails the step and
	// ends the run, its pull request left a draft. On a branch that
	// conflicts with its base, which moved meanwhile (commit-rebase), the
	// repair job rebases it, a session resolving the conflict, and the
	// delivery's next job pushes it with a lease.
	for _, tc := range []struct {
		name, file, pr, branch, result string
		env                            []string
		// moved is set for a case whose steps move origin's main.
		moved bool
	}{
		{"repair", "commit-repair", "OPEN draft=false", "[cairn] Repair: test\tdeliver\n", `Repair 1: checks "test": Made the test pass.`, nil, false},
		{"repair-failing", "commit-repair", "OPEN draft=true", "main.go", "repair session 1: ", []string{"FAKE_FAIL=claude"}, false},
		{"rebase", "commit-rebase", "OPEN draft=false", "main.go", `Repair 1: conflicts with main in "main.go": Kept both lines.`, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := dispatchEvent(t, "7")
			actArgs := []string{"-e", path, "-s", "GITHUB_TOKEN=" + actGitHubToken, "-s", "CAIRN_PUSH_TOKEN=" + actPushToken, "--remote-name", "github"}
			file := filepath.Join(compileGoldenDir, tc.file+".toml")
			a, b := actCommitIn(t, act, standIns, file, tc.env, []string{"issue", "7"}, actArgs, tc.moved)
			if pa, pb := a.pullRequests(t), b.pullRequests(t); !slices.Equal(pa, pb) || len(pb) != 1 || !strings.HasSuffix(pb[0], tc.pr) {
				t.Errorf("pull requests: cairn run leaves %q, the workflow %q; want one, the same, %s", pa, pb, tc.pr)
			}
			if la, lb := a.originLog(t), b.originLog(t); la != lb || !strings.Contains(lb, tc.branch) {
				t.Errorf("origin's issue branch: cairn run pushed\n%s\nthe workflow\n%s\nwant %q on it", la, lb, tc.branch)
			}
			for _, job := range []string{"deliver-repair-1", "deliver-redeliver-1"} {
				if !strings.Contains(b.lastAct, `"jobID":"`+job+`"`) {
					t.Errorf("job %s did not run", job)
				}
			}
			if strings.Contains(b.lastAct, `"jobID":"deliver-repair-2"`) {
				t.Errorf("job deliver-repair-2 ran; the step ended after repair 1")
			}
			var r actRecord
			r.readRun(t, filepath.Join(b.work, "artifacts", "cairn-run"))
			if !strings.Contains(r.results["deliver.md"], tc.result) {
				t.Errorf("the delivery's result:\n%s\nwant %q", r.results["deliver.md"], tc.result)
			}
			var wf ghWorkflow
			if err := yaml.Unmarshal(b.compileWorkflow(t, file), &wf); err != nil {
				t.Fatal(err)
			}
			checkLeastPrivilege(t, wf)
			// The repair job, where an agent runs and no step ends, keeps
			// no commits for the jobs after it.
			for _, st := range wf.Jobs["deliver-repair-1"].Steps {
				if strings.HasPrefix(st.Name, "Keep the run's commits") {
					t.Errorf("job deliver-repair-1 keeps the run's commits (step %q)", st.Name)
				}
			}
		})
	}
}

// actCommit is TestActDifferentialCommit of the case in file, with env
// given to both runs, runArgs to cairn run's and actArgs to act's; it
// returns the twins, cairn run's and the workflow's.
func actCommit(t *testing.T, act, standIns, file string, env, runArgs, actArgs []string) (*compileWork, *compileWork) {
	t.Helper()
	return actCommitIn(t, act, standIns, file, env, runArgs, actArgs, false)
}

// actCommitIn is actCommit, and with moved set, of a case whose steps
// move the branch the run is on, on origin, while it runs: cairn run
// commits on its local branch as ever, but the workflow's push job, which
// forces no push, is refused and fails the workflow, and pushes the run's
// commits (cairn run's) to a branch of the run's own, which it names;
// origin's branch holds the other change alone.
func actCommitIn(t *testing.T, act, standIns, file string, env, runArgs, actArgs []string, moved bool) (*compileWork, *compileWork) {
	t.Helper()
	a := newCompileWork(t, file)
	base := a.head(t)
	stdout, stderr, code := a.run(t, env, append([]string{"cairn", "run", filepath.Base(file)}, runArgs...)...)
	want := &actRecord{code: code, budgets: givenBudgets(t, a.work)}
	if moved && code == 0 {
		// The workflow fails in its push job alone.
		want.code = 1
	}
	dir := a.onlyRepoRun(t)
	want.readRun(t, dir)
	want.printed = endLines(stdout + lastFailure(stderr))
	// The summary holds the last stage's results, then the run's picture
	// as cairn show draws it, then what each step's sessions used.
	graph, _, _ := a.run(t, nil, "cairn", "show", dir, "--format", "mermaid")
	want.summary = stdout + "```mermaid\n" + graph + "```\n" + usageSummary(t, dir)
	wantCommits := a.commitsSince(t, base, "HEAD")

	b := newCompileWork(t, file)
	// The origin the push job pushes to: a run on an issue has one.
	origin := filepath.Join(b.work, "origin.git")
	if !isDir(origin) {
		for _, argv := range [][]string{{"git", "init", "-q", "--bare", origin}, {"git", "remote", "add", "origin", origin}} {
			if _, errOut, code := b.run(t, nil, argv...); code != 0 {
				t.Fatalf("%v: exit %d: %s", argv, code, errOut)
			}
		}
	}
	args := slices.Clone(actArgs)
	for _, e := range env {
		args = append(args, "--env", e)
	}
	art, out, errOut, code := b.act(t, act, standIns, file, args...)
	got := &actRecord{code: code, budgets: givenBudgets(t, b.work)}
	got.readRun(t, filepath.Join(art, "cairn-run"))
	got.printed, got.summary = actOutput(t, out.Bytes(), "The results of the last stage")
	if t.Failed() || len(got.log) == 0 {
		t.Fatalf("act left no run folder; its stderr:\n%s\nits output:\n%s", errOut.String(), out.String())
	}
	compareAct(t, want, got)
	// The workflow's commit (act's checkout), then the run's.
	workflow := b.head(t)
	gotCommits := b.commitsSince(t, workflow, "--git-dir="+origin, "main")
	if moved {
		// The run's commits went to a branch of the run's own.
		refused := regexp.MustCompile(`cairn: error: the run's commits are not on branch main: git refused the push above \(.*\); they are on branch (cairn/runs/[A-Za-z0-9._-]+) instead: merge it into main`)
		branch := ""
		if m := refused.FindStringSubmatch(b.lastAct); m != nil {
			branch = m[1]
		} else if branch = runBranch(t, b, origin); branch != "" {
			// On a loaded machine act can lose the last lines a failing
			// step writes (its reader races the step's end): the branch
			// is origin's.
			t.Logf("act's log holds no %q; origin has branch %s", refused, branch)
		}
		if !strings.HasPrefix(gotCommits, "Their change\n") || strings.Contains(gotCommits, "Cairn-Run") || branch == "" {
			t.Errorf("origin's main, which moved while the run ran, holds\n%s\nwant the other change alone, and the push job to say %q", gotCommits, refused)
		} else if side := b.commitsSince(t, workflow, "--git-dir="+origin, branch); side != wantCommits {
			t.Errorf("the commits on origin's %s differ:\n--- cairn run\n%s\n--- pushed by the workflow\n%s", branch, wantCommits, side)
		}
	} else if wantCommits != gotCommits {
		t.Errorf("the commits differ:\n--- cairn run\n%s\n--- pushed by the workflow\n%s", wantCommits, gotCommits)
	}
	if t.Failed() {
		t.Logf("act's log:\n%s", out.String())
	}
	return a, b
}

// head is the commit the twin's repository is at.
func (w *compileWork) head(t *testing.T) string {
	t.Helper()
	out, errOut, code := w.run(t, nil, "git", "rev-parse", "HEAD")
	if code != 0 {
		t.Fatalf("git rev-parse: exit %d: %s", code, errOut)
	}
	return strings.TrimSpace(out)
}

// onlyRepoRun is the folder of the one run in the twin's .cairn/runs.
func (w *compileWork) onlyRepoRun(t *testing.T) string {
	t.Helper()
	runs, err := filepath.Glob(filepath.Join(w.repo, ".cairn", "runs", "*"))
	if err != nil || len(runs) != 1 {
		t.Fatalf("want one run folder in %s, have %v (%v)", w.repo, runs, err)
	}
	return runs[0]
}

// commitRunName is a run folder's name in a commit's files and trailers.
var commitRunName = regexp.MustCompile(`\b[a-z0-9][a-z0-9-]*_[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{6}Z(-[0-9]+)?`)

// commitsSince is what a run committed after base, oldest first: each
// commit's subject, trailers and the files it changed, the run's name as
// $RUN; git's arguments (a --git-dir, then the branch) say where.
func (w *compileWork) commitsSince(t *testing.T, base string, where ...string) string {
	t.Helper()
	argv := []string{"git"}
	argv = append(argv, where[:len(where)-1]...)
	argv = append(argv, "log", "--reverse", "--format=%s%n%(trailers:only)", "--name-status", where[len(where)-1], "^"+base)
	out, errOut, code := w.run(t, nil, argv...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", argv, code, errOut)
	}
	return commitRunName.ReplaceAllString(out, "$$RUN")
}

// runBranch is the one branch of a run's own (cairn/runs/NAME) on the
// bare repository origin, empty for none or more than one.
func runBranch(t *testing.T, w *compileWork, origin string) string {
	t.Helper()
	out, errOut, code := w.run(t, nil, "git", "--git-dir="+origin, "for-each-ref", "--format=%(refname:short)", "refs/heads/cairn/runs/")
	if code != 0 {
		t.Fatalf("git for-each-ref: exit %d: %s", code, errOut)
	}
	if refs := strings.Fields(out); len(refs) == 1 {
		return refs[0]
	}
	return ""
}

// sameIssue holds the issue titled title that the workflow's twin b opened
// to the one cairn run's twin a opened: the same number, body and labels,
// alice's under cairn run and GitHub's bot's in the workflow.
func sameIssue(t *testing.T, a, b *compileWork, title string) {
	t.Helper()
	ia, ib := titledIssue(t, a, title), titledIssue(t, b, title)
	if ia == nil || ib == nil || ia.Number != ib.Number || ia.Body != ib.Body || !slices.Equal(ia.Labels, ib.Labels) ||
		ia.Author != "alice" || ib.Author != fakegh.Bot {
		t.Errorf("the issue %q: cairn run opened %+v, the workflow %+v; want the same, alice's and %s's", title, ia, ib, fakegh.Bot)
	}
}

// titledIssue is the issue titled title that twin w's run opened (as
// golden/compile/commit-group-publish.answers opens "Flaky test"), nil for
// none.
func titledIssue(t *testing.T, w *compileWork, title string) *fakegh.Issue {
	t.Helper()
	for n := 1; n <= 20; n++ {
		if is, err := fakegh.ReadIssue(filepath.Join(w.work, "gh"), n); err == nil && is.Title == title {
			return is
		}
	}
	return nil
}
