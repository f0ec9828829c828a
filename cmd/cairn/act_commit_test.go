package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
func TestActDifferentialCommit(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	for _, variant := range []struct {
		name, file string
		env        []string
	}{
		{"ok", "commit", nil}, {"failing", "commit", []string{"FAKE_FAIL=claude"}}, {"foreach", "foreach-commit", nil},
		{"parallel", "parallel-commit", nil}, {"parallel-failing", "parallel-commit", []string{"FAKE_FAIL=claude"}},
		{"parallel-throwaways", "parallel-throwaways", nil},
	} {
		t.Run(variant.name, func(t *testing.T) {
			t.Parallel()
			actCommit(t, act, standIns, filepath.Join(compileGoldenDir, variant.file+".toml"), variant.env)
		})
	}
}

// actCommit is TestActDifferentialCommit of the case in file, with env
// given to both runs.
func actCommit(t *testing.T, act, standIns, file string, env []string) {

	a := newCompileWork(t, file)
	base := a.head(t)
	stdout, stderr, code := a.run(t, env, "cairn", "run", filepath.Base(file))
	want := &actRecord{code: code, budgets: givenBudgets(t, a.work)}
	dir := a.onlyRepoRun(t)
	want.readRun(t, dir)
	want.printed = endLines(stdout + lastFailure(stderr))
	// The summary holds the last stage's results, then the run's picture
	// as cairn show draws it, then what each step's sessions used.
	graph, _, _ := a.run(t, nil, "cairn", "show", dir, "--format", "mermaid")
	want.summary = stdout + "```mermaid\n" + graph + "```\n" + usageSummary(t, dir)
	wantCommits := a.commitsSince(t, base, "HEAD")

	b := newCompileWork(t, file)
	origin := filepath.Join(b.work, "origin.git")
	for _, argv := range [][]string{{"git", "init", "-q", "--bare", origin}, {"git", "remote", "add", "origin", origin}} {
		if _, errOut, code := b.run(t, nil, argv...); code != 0 {
			t.Fatalf("%v: exit %d: %s", argv, code, errOut)
		}
	}
	var args []string
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
	if wantCommits != gotCommits {
		t.Errorf("the commits differ:\n--- cairn run\n%s\n--- pushed by the workflow\n%s", wantCommits, gotCommits)
	}
	if t.Failed() {
		t.Logf("act's log:\n%s", out.String())
	}
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
