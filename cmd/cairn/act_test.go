package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/cairn-dev/cairn/internal/fakegh"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// actCases are the golden compile cases the act suite runs: a parallel
// group whose required member fails (its siblings finish, the next stage is
// cancelled, each worktree's patch kept), prechecks and validate shells
// that skip, warn and fail, a session on each harness in parallel with a
// judge given their results, a process of one step (one job, whose
// shared step no other aliases), and sessions under budgets kept across
// the jobs: a parallel group given its shares, a later job's claude given
// only what is left and stopped at it, the next session not started, and a
// step stopped at its own budget ending the run with the run's, spent too;
// a diamond of needs, whose jobs wait for their steps' needs alone; and
// whens over outcomes and over a triage's typed output, both ways; and a
// for_each whose items run inside their step's job.
var actCases = []string{"budget", "budget-end", "checkout", "foreach", "foreach-edges", "foreach-judge", "judge", "needs", "outputs", "parallel", "phases", "review", "sessions", "single", "triage", "when", "when-untyped"}

// actStandIns are the offline stand-ins of the artifact actions
// (testdata/act/README.md).
var actStandIns = filepath.Join("testdata", "act")

// artifactUses finds the artifact actions a workflow uses, with the commit
// act must map to a stand-in.
var artifactUses = regexp.MustCompile(`uses: (actions/(upload|download)-artifact@[0-9a-f]{40})`)

// actRecord is what a run shows a user, compared between `cairn run` and
// the compiled workflow under act: the exit code, each step's log line
// (sorted, without its duration), the results, the throwaway worktrees'
// patches, what the run printed at its end (the last stage's results, then
// the line of the step that failed it), and the budgets its sessions' CLIs
// were given (sorted).
type actRecord struct {
	code     int
	log      []string
	budgets  []string
	results  map[string]string
	patches  map[string]string
	printed  string
	summary  string
	duration time.Duration
}

// TestActDifferential runs a few golden workflows under nektos/act in
// self-hosted mode (no containers), with the stand-ins of the artifact
// actions and the fake agent CLIs on PATH, and holds each to `cairn run` of
// the same process in a twin repository: the same exit code, step outcomes
// (log lines), results, patches and final results, which the workflow also
// writes to the run's summary. A slow suite, it needs act on PATH (.ci/run
// installs it); CAIRN_ACT=off skips it.
func TestActDifferential(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	for _, name := range actCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			actDifferential(t, act, standIns, filepath.Join(compileGoldenDir, name+".toml"), nil, nil)
		})
	}
}

// TestActDifferentialUntracked runs the phases case, whose stages work one after
// another in one throwaway worktree, with a file the repository does not
// track in the working copy, which act copies into every job's checkout (a
// checkout on GitHub never has one): each job's patch holds its own changes
// only, so the next job applies it, and the run is cairn run's. A slow
// suite, as TestActDifferential.
func TestActDifferentialUntracked(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	actDifferential(t, act, standIns, filepath.Join(compileGoldenDir, "phases.toml"), map[string]string{"notes.txt": "the user's notes\n"}, nil)
}

// TestActHuntDifferential runs examples/hunt.toml, three families hunting
// in parallel and a judge of what they found, as a workflow under act and
// with cairn run, with the fakes (and a go whose vet finds nothing): a
// judge that passes ends both with exit 0, one that gives prose (the fakes'
// answer to the step "judge") ends both inconclusive, exit 3, with the one
// line that says so. A slow suite, as TestActDifferential.
func TestActHuntDifferential(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	for _, tc := range []struct {
		name    string
		answers map[string]string
		code    int
	}{
		{"pass", map[string]string{"answers/claude.judge.2": `{"verdict": "pass", "reasoning": "main.go:3 is real."}`}, 0},
		{"prose", nil, exitInconclusive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{"bin/go": "#!/bin/sh\nexit 0\n"}
			maps.Copy(files, tc.answers)
			if code := actDifferential(t, act, standIns, filepath.Join(examplesDir, "hunt.toml"), nil, files); code != tc.code {
				t.Errorf("cairn run and the workflow: exit %d; want %d", code, tc.code)
			}
		})
	}
}

// TestActIssueDifferential runs golden/compile/on-issue.toml, a process on
// an issue, as a workflow under act, dispatched on issue 7 by an account
// with write access, and with cairn run on the same issue, against the fake
// gh: the workflow's first job checks the dispatch as GitHub's gate (the
// account's permission, through gh api) and the steps' scripts read the
// issue, keep only the trusted comments in .cairn-issue.md and check its
// edits as cairn run does. Dispatched by an account with triage access,
// the workflow runs no step. A slow suite, as TestActDifferential.
func TestActIssueDifferential(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	file := filepath.Join(compileGoldenDir, "on-issue.toml")
	event := func(t *testing.T, sender string) []string {
		path := filepath.Join(t.TempDir(), "event.json")
		writeFiles(t, filepath.Dir(path), map[string]string{"event.json": fmt.Sprintf(`{"inputs": {"issue": "7", "directive": ""}, "sender": {"login": %q}}`, sender)})
		// act names the repository after the remote "github", as origin's
		// URL was before the twin's url.insteadOf sent it to a folder.
		return []string{"-e", path, "-s", "GITHUB_TOKEN=" + actGitHubToken, "--remote-name", "github"}
	}
	t.Run("write", func(t *testing.T) {
		t.Parallel()
		_, _, b := actDifferentialIn(t, act, standIns, file, nil, nil, []string{"issue", "7"}, event(t, "alice"))
		// The workflow took the issue's Claim, and released it.
		if stdout, _, _ := b.run(t, nil, "git", "ls-remote", "origin", "refs/cairn/claims/7"); stdout != "" {
			t.Errorf("the workflow left its claim on origin: %s", stdout)
		}
		if !strings.Contains(b.lastAct, "Success - Main Take the issue's Claim") || !strings.Contains(b.lastAct, "Success - Main Release the issue's Claim") {
			t.Errorf("the workflow did not take and release the issue's Claim")
		}
	})
	t.Run("claimed", func(t *testing.T) {
		t.Parallel()
		// A cairn run on another machine holds the issue's Claim.
		w := newCompileWork(t, file)
		if _, stderr, code := w.run(t, nil, "bash", "-c", `t=$(git mktree </dev/null) && `+
			`c=$(printf 'cairn claim on issue #7\n\nhost: laptop\nrun: on-issue_2026-01-01T000000Z\npid: 42\n' | git commit-tree "$t") && `+
			`git push -q origin "$c:refs/cairn/claims/7"`); code != 0 {
			t.Fatalf("claim: %s", stderr)
		}
		_, out, _, code := w.act(t, act, standIns, file, event(t, "alice")...)
		if code == 0 {
			t.Errorf("act: exit 0; want the claim to refuse the run")
		}
		if !strings.Contains(out.String(), `issue #7 is claimed by run \"on-issue_2026-01-01T000000Z\" on host \"laptop\" (pid 42)`) {
			t.Errorf("the workflow did not say who holds the claim; act's log:\n%s", out.String())
		}
		if calls, _ := filepath.Glob(filepath.Join(w.work, "fakelog", "claude.*")); len(calls) > 0 {
			t.Errorf("an agent CLI started: %v", calls)
		}
		if stdout, _, _ := w.run(t, nil, "git", "ls-remote", "origin", "refs/cairn/claims/7"); stdout == "" {
			t.Errorf("the workflow deleted a claim it did not hold")
		}
	})
	t.Run("triage", func(t *testing.T) {
		t.Parallel()
		w := newCompileWork(t, file)
		writeFiles(t, filepath.Join(w.work, "gh"), map[string]string{"permissions.json": `{"mallory": "triage"}`})
		art, out, _, code := w.act(t, act, standIns, file, event(t, "mallory")...)
		if code == 0 {
			t.Errorf("act: exit 0; want the gate to fail the run")
		}
		if !strings.Contains(out.String(), "@mallory has triage access to acme/widgets: only a label set or a dispatch by an account with write access starts a run") {
			t.Errorf("the gate did not say why it refused; act's log:\n%s", out.String())
		}
		if _, err := os.Stat(filepath.Join(art, "cairn-run")); err == nil {
			t.Errorf("a step ran: the workflow kept a run folder in %s", art)
		}
		if calls, _ := filepath.Glob(filepath.Join(w.work, "fakelog", "claude.*")); len(calls) > 0 {
			t.Errorf("an agent CLI started: %v", calls)
		}
	})
}

// TestActDeliverDifferential runs golden/compile/deliver.toml, a fix on an
// issue branch, its delivery and a self-merge, as a workflow under act,
// dispatched on issue 7 with and without merge, and with cairn run (with
// and without --merge), against the fake gh and origin: the steps' jobs
// carry the branch's commits as a bundle, the delivery's job alone may
// push, with the token of [github] push_token, and opens the pull request,
// waits for its check and marks it ready; the self-merge merges it only
// when asked. Both leave origin's branch and the pull request alike. So
// does golden/compile/deliver-reviewed.toml: an agent's session whose work
// a validate shell and then a judge send back (review retries, in the job
// that runs agents, with no write token), its branch then delivered; and
// golden/compile/foreach-issue.toml: a session per item, each in a matrix
// job of its own, with the issue's file, then a fix delivered. A slow
// suite, as TestActDifferential.
func TestActDeliverDifferential(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	for _, tc := range []struct {
		name  string
		merge bool
	}{{"deliver", false}, {"deliver", true}, {"deliver-reviewed", false}, {"foreach-issue", false}} {
		file := filepath.Join(compileGoldenDir, tc.name+".toml")
		merge := tc.merge
		t.Run(fmt.Sprintf("%s/merge=%v", tc.name, merge), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "event.json")
			writeFiles(t, filepath.Dir(path), map[string]string{"event.json": fmt.Sprintf(
				// An event's inputs are strings, as GitHub sends them.
				`{"inputs": {"issue": "7", "directive": "", "merge": "%v"}, "sender": {"login": "alice"}}`, merge)})
			actArgs := []string{"-e", path, "-s", "GITHUB_TOKEN=" + actGitHubToken, "-s", "CAIRN_PUSH_TOKEN=" + actPushToken, "--remote-name", "github"}
			runArgs := []string{"issue", "7"}
			if merge {
				runArgs = append(runArgs, "--merge")
			}
			_, a, b := actDifferentialIn(t, act, standIns, file, nil, nil, runArgs, actArgs)
			if pa, pb := a.pullRequests(t), b.pullRequests(t); !slices.Equal(pa, pb) || len(pa) != 1 {
				t.Errorf("pull requests: cairn run leaves %q, the workflow %q; want one, the same", pa, pb)
			}
			if la, lb := a.originLog(t), b.originLog(t); la != lb || la == "" {
				t.Errorf("origin's issue branch: cairn run pushed\n%s\nthe workflow\n%s", la, lb)
			}
		})
	}
}

// TestActForEachPublishDifferential runs golden/compile/foreach-publish.toml
// under act against the fake gh, one item at a time, and holds it to cairn
// run --jobs 1: each item's session, in a job of its own, opens an issue
// with the stand-in gh, which numbers both provisionally (900000001); the
// publish job after the items' jobs opens them in item order with the
// workflow's token, each item with a map of its own, and the step's job
// after it takes the items' results naming the real numbers. The issues
// are cairn run's, but GitHub's bot's, and the results, log lines and what
// the last step printed are the same. A slow suite, as TestActDifferential.
func TestActForEachPublishDifferential(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	file := filepath.Join(compileGoldenDir, "foreach-publish.toml")
	actArgs := []string{"-e", dispatchEvent(t, ""), "-s", "GITHUB_TOKEN=" + actGitHubToken, "--remote-name", "github"}
	_, a, b := actDifferentialIn(t, act, standIns, file, nil, nil, []string{"--jobs", "1"}, actArgs)
	for _, test := range []string{"TestSync", "TestLoad"} {
		sameIssue(t, a, b, "Flaky "+test)
	}
	var wf ghWorkflow
	if err := yaml.Unmarshal(b.compileWorkflow(t, file), &wf); err != nil {
		t.Fatal(err)
	}
	checkLeastPrivilege(t, wf)
	if needs := wf.Jobs["report_publish"].Needs; !slices.Equal(needs, []string{"report_items"}) {
		t.Errorf("job report_publish needs %q; want it after the items' jobs alone", needs)
	}
	if needs := wf.Jobs["report"].Needs; !slices.Contains(needs, "report_publish") {
		t.Errorf("job report needs %q; want it after report_publish", needs)
	}
}

// TestActRepairDifferential runs the repair loop of a delivery unrolled
// into jobs under act, against the fake gh, and holds it to cairn run of the
// same process: golden/compile/deliver-repair.toml, whose check fails on the
// first head, has the delivery's job hand the failing check to repair job
// 1, whose fake claude session, with the workflow's read-only token, fixes
// it; the delivery's next job pushes the repair, waits for the checks again
// and marks the pull request ready. golden/compile/deliver-capped.toml,
// whose check fails on every head, reaches its repair cap (1) and fails as
// cairn run does. A slow suite, as TestActDifferential.
func TestActRepairDifferential(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	for _, tc := range []struct {
		name string
		code int
		// pr is how the pull request ends; commit, a commit on the
		// branch pushed; prompt, what the repair session was given;
		// result, what the delivery's result says of it; failure, how the
		// run ends when it fails.
		pr, commit, prompt, result, failure string
	}{
		{name: "deliver-repair", pr: "OPEN draft=false", commit: "[cairn] Repair: test\tdeliver\n",
			prompt: "main_test.go:3: main.go is not `fixed`", result: "Repair 1: checks \"test\": Made the test pass."},
		{name: "deliver-capped", code: 1, pr: "OPEN draft=true", commit: "[cairn] Repair: test\tdeliver\n",
			prompt: "main_test.go:3: main.go is still not `fixed`", result: "Repair 1: checks \"test\": Made the test pass.",
			failure: "cairn: failed at step deliver: the repair cap (1) is reached and checks"},
		{name: "deliver-rebase", pr: "OPEN draft=false", commit: "main.go",
			prompt: "- `main.go`", result: "Repair 1: conflicts with main in \"main.go\": Kept both lines."},
		// Under the run's budget: the repair job's session is given what
		// the fix's session left of it (compareAct holds the budgets each
		// CLI was given, and the summary's spending, to cairn run's).
		{name: "deliver-spent", pr: "OPEN draft=false", commit: "[cairn] Repair: test\tdeliver\n",
			prompt: "main_test.go:3: main.go is not `fixed`", result: "Repair 1: checks \"test\": Made the test pass."},
		{name: "deliver-budget", code: 1, pr: "OPEN draft=true", commit: "main.go",
			prompt: "main_test.go:3: main.go is not `fixed`", result: "budget spent",
			failure: "cairn: failed at step deliver: budget spent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(compileGoldenDir, tc.name+".toml")
			path := dispatchEvent(t, "7")
			const pushToken = actPushToken
			actArgs := []string{"-e", path, "-s", "GITHUB_TOKEN=" + actGitHubToken, "-s", "CAIRN_PUSH_TOKEN=" + pushToken, "--remote-name", "github"}
			code, a, b := actDifferentialIn(t, act, standIns, file, nil, nil, []string{"issue", "7"}, actArgs)
			if code != tc.code {
				t.Errorf("cairn run: exit %d; want %d", code, tc.code)
			}
			if pa, pb := a.pullRequests(t), b.pullRequests(t); !slices.Equal(pa, pb) || len(pb) != 1 || !strings.HasSuffix(pb[0], tc.pr) {
				t.Errorf("pull requests: cairn run leaves %q, the workflow %q; want one, the same, %s", pa, pb, tc.pr)
			}
			la, lb := a.originLog(t), b.originLog(t)
			if la != lb || !strings.Contains(lb, tc.commit) {
				t.Errorf("origin's issue branch: cairn run pushed\n%s\nthe workflow\n%s\nwant %q on it", la, lb, tc.commit)
			}
			var r actRecord
			r.readRun(t, filepath.Join(b.work, "artifacts", "cairn-run"))
			if !strings.Contains(r.results["deliver.md"], tc.result) {
				t.Errorf("the delivery's result:\n%s\nwant %q", r.results["deliver.md"], tc.result)
			}
			if traces, _ := filepath.Glob(filepath.Join(b.work, "artifacts", "cairn-run", "traces", "deliver.repair-1.*")); len(traces) == 0 {
				t.Errorf("the run folder keeps no trace of the repair session")
			}
			if tc.failure != "" && !strings.Contains(b.lastAct, tc.failure) {
				t.Errorf("the workflow's run did not end with %q", tc.failure)
			}
			for _, job := range []string{"deliver-repair-1", "deliver-redeliver-1"} {
				if !strings.Contains(b.lastAct, `"jobID":"`+job+`"`) {
					t.Errorf("job %s did not run", job)
				}
			}
			// The repair session ran in a job with the workflow's read-only
			// token: neither it nor its job's script was given the push token.
			var sessions []string
			all, _ := filepath.Glob(filepath.Join(b.work, "fakelog", "claude.*"))
			for _, s := range all {
				if env, _ := os.ReadFile(filepath.Join(s, "env")); bytes.Contains(env, []byte("CAIRN_STEP=deliver\n")) {
					sessions = append(sessions, s)
				}
			}
			if len(sessions) != 1 {
				t.Fatalf("the workflow ran %d claude sessions of step deliver; want 1, the repair's", len(sessions))
			}
			for _, f := range []string{"env", "stdin"} {
				got, _ := os.ReadFile(filepath.Join(sessions[0], f))
				if bytes.Contains(got, []byte(pushToken)) || bytes.Contains(got, []byte("GH_TOKEN")) {
					t.Errorf("the repair session's %s holds a token:\n%s", f, got)
				}
			}
			stdin, _ := os.ReadFile(filepath.Join(sessions[0], "stdin"))
			if !strings.Contains(string(stdin), tc.prompt) {
				t.Errorf("the repair session was not given %q:\n%s", tc.prompt, stdin)
			}
			// The same prompt as cairn run's repair session, but for where
			// its worktree is.
			runSessions, _ := filepath.Glob(filepath.Join(a.work, "fakelog", "claude.*"))
			var want []byte
			for _, rs := range runSessions {
				if b, _ := os.ReadFile(filepath.Join(rs, "stdin")); len(b) > 0 {
					want = b
				}
			}
			if got, run := promptWorktree(stdin), promptWorktree(want); got != run {
				t.Errorf("the repair session's prompt:\n%s\ncairn run's:\n%s", got, run)
			}
			var wf ghWorkflow
			if err := yaml.Unmarshal(b.compileWorkflow(t, file), &wf); err != nil {
				t.Fatal(err)
			}
			checkLeastPrivilege(t, wf)
			if t.Failed() {
				t.Logf("act's log:\n%s", b.lastAct)
			}
		})
	}
}

// promptWorktree is a session's prompt with its worktree's path, the one
// the prompt says it works in, as $WORKTREE.
func promptWorktree(prompt []byte) string {
	m := regexp.MustCompile("Your working directory is `([^`]+)`").FindSubmatch(prompt)
	if m == nil {
		return string(prompt)
	}
	return strings.ReplaceAll(string(prompt), string(m[1]), "$WORKTREE")
}

// TestActDeliverUncheckedDifferential runs golden/compile/deliver-red.toml, whose
// check fails, as a workflow under act with no [github] push_token: its
// push, made with the workflow's own token, would start no check on
// GitHub, so the delivery waits for none and leaves the pull request open
// for review, ready, and says why; the run succeeds. A slow suite, as
// TestActDifferential.
func TestActDeliverUncheckedDifferential(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	file := filepath.Join(compileGoldenDir, "deliver-red.toml")
	run := func(t *testing.T, allow bool) (w *compileWork, art, out string, code int) {
		w = newCompileWork(t, file)
		if allow {
			// The repository lets GitHub Actions create pull requests.
			if err := fakegh.AllowActionsPRs(filepath.Join(w.work, "gh")); err != nil {
				t.Fatal(err)
			}
		}
		path := dispatchEvent(t, "7")
		art, stdout, _, code := w.act(t, act, standIns, file, "-e", path, "-s", "GITHUB_TOKEN="+actGitHubToken, "--remote-name", "github")
		return w, art, stdout.String(), code
	}
	t.Run("allowed", func(t *testing.T) {
		t.Parallel()
		w, art, out, code := run(t, true)
		if code != 0 {
			t.Errorf("act: exit %d; want 0", code)
		}
		var r actRecord
		r.readRun(t, filepath.Join(art, "cairn-run"))
		want := "Left for review: its checks do not run on a push made with the workflow's own token."
		if !strings.Contains(r.results["deliver.md"], want) {
			t.Errorf("the delivery's result:\n%s\nwant %q", r.results["deliver.md"], want)
		}
		if !strings.Contains(out, "is left for review: its checks do not run on a push made with the workflow's own token; name a token's secret in [github] push_token to wait for them") {
			t.Errorf("the delivery did not say why it waited for no check")
		}
		if prs := w.pullRequests(t); len(prs) != 1 || !strings.HasSuffix(prs[0], "OPEN draft=false") {
			t.Errorf("pull requests %q; want one, open and ready", prs)
		}
		if t.Failed() {
			t.Logf("act's log:\n%s", out)
		}
	})
	// A new repository does not let the workflow's token open one: the
	// delivery fails, saying what to change, and the branch stays pushed.
	t.Run("not allowed", func(t *testing.T) {
		t.Parallel()
		w, art, out, code := run(t, false)
		if code == 0 {
			t.Errorf("act: exit 0; want the delivery to fail")
		}
		var r actRecord
		r.readRun(t, filepath.Join(art, "cairn-run"))
		want := `outcome=failed cause="gh pr create: pull request create failed: GraphQL: GitHub Actions is not permitted to create or approve pull requests (createPullRequest); allow it in the repository's Settings > Actions > General (Allow GitHub Actions to create and approve pull requests), or name a token's secret in [github] push_token"`
		if !slices.ContainsFunc(r.log, func(l string) bool { return strings.HasPrefix(l, "step=deliver ") && strings.HasSuffix(l, want) }) {
			t.Errorf("the delivery did not say what to change: its log\n%s\nwant a line ending %s; act's log:\n%s", strings.Join(r.log, "\n"), want, out)
		}
		if prs := w.pullRequests(t); len(prs) != 0 {
			t.Errorf("pull requests %q; want none", prs)
		}
		if stdout, _, _ := w.run(t, nil, "git", "ls-remote", "origin", "refs/heads/cairn/7-*"); stdout == "" {
			t.Errorf("the issue branch is not on origin")
		}
	})
}

// actDifferential runs the process in file with cairn run in one twin
// repository and under act (at path act, with the stand-ins in standIns)
// in another, each with the files untracked written in its working copy
// and left untracked, and files in its work folder (the fakes' answers,
// more commands in bin/), compares the two runs, and returns cairn run's
// exit code.
func actDifferential(t *testing.T, act, standIns, file string, untracked, files map[string]string) int {
	t.Helper()
	return actDifferentialOn(t, act, standIns, file, untracked, files, nil, nil)
}

// actDifferentialOn is actDifferential with runArgs after cairn run's
// process and actArgs after act's (an issue to run on, an event).
func actDifferentialOn(t *testing.T, act, standIns, file string, untracked, files map[string]string, runArgs, actArgs []string) int {
	t.Helper()
	code, _, _ := actDifferentialIn(t, act, standIns, file, untracked, files, runArgs, actArgs)
	return code
}

// actDifferentialIn is actDifferentialOn, which returns the twins too,
// cairn run's and the workflow's, to compare what else they left.
func actDifferentialIn(t *testing.T, act, standIns, file string, untracked, files map[string]string, runArgs, actArgs []string) (int, *compileWork, *compileWork) {
	t.Helper()
	twin := func() *compileWork {
		w := newCompileWork(t, file)
		writeFiles(t, w.repo, untracked)
		writeFiles(t, w.work, files)
		for f := range files {
			if strings.HasPrefix(f, "bin/") {
				if err := os.Chmod(filepath.Join(w.work, f), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
		return w
	}
	a := twin()
	start := time.Now()
	stdout, stderr, code := a.run(t, nil, append([]string{"cairn", "run", filepath.Base(file)}, runArgs...)...)
	want := &actRecord{code: code, duration: time.Since(start)}
	want.readRun(t, a.onlyRun(t))
	want.budgets = givenBudgets(t, a.work)
	want.printed = endLines(stdout + lastFailure(stderr))
	// The summary holds the last stage's results, then the run's picture
	// as cairn show draws it, then what each step's sessions used.
	graph, _, _ := a.run(t, nil, "cairn", "show", "--format", "mermaid")
	want.summary = stdout + "```mermaid\n" + graph + "```\n" + usageSummary(t, a.onlyRun(t))

	b := twin()
	start = time.Now()
	art, out, errOut, code := b.act(t, act, standIns, file, actArgs...)
	got := &actRecord{code: code, duration: time.Since(start)}
	got.readRun(t, filepath.Join(art, "cairn-run"))
	got.budgets = givenBudgets(t, b.work)
	got.printed, got.summary = actOutput(t, out.Bytes(), "The results of the last stage")
	got.asRun()
	for _, r := range []*actRecord{want, got} {
		r.each(func(s string) string {
			s = childRun.ReplaceAllString(commitID.ReplaceAllString(s, "$$COMMIT"), "$$RUN/children/${1}_$$STAMP")
			return stepBegan.ReplaceAllString(s, "began ($$TIME)")
		})
	}
	if n := lastStepExit(out.Bytes(), "The results of the last stage"); code != 0 && n > 0 {
		// act exits 1 when a job failed; the run's code is the last
		// job's (3: inconclusive).
		got.code = n
	}
	t.Logf("cairn run: exit %d in %v; act: exit %d in %v", want.code, want.duration.Round(time.Millisecond), got.code, got.duration.Round(time.Millisecond))
	if t.Failed() || len(got.log) == 0 {
		t.Fatalf("act left no run folder; its stderr:\n%s\nits output:\n%s", errOut.String(), out.String())
	}
	compareAct(t, want, got)
	if t.Failed() {
		t.Logf("act's log:\n%s", out.String())
	}
	return want.code, a, b
}

// workflowWords are what a workflow's run says otherwise than cairn run, as
// cairn run says it: how a self-merge is asked for.
var workflowWords = strings.NewReplacer("dispatch the workflow with merge", "run with --merge")

// childRun is the folder of a child run (a run-published-issue step's),
// named after its process and when it began, in its parent's run folder,
// which the twins keep in folders of their own.
var childRun = regexp.MustCompile(`/\S+/children/([a-z0-9][a-z0-9_-]*)_\d{4}-\d\d-\d\dT\d{6}Z(-\d+)?`)

// stepBegan is when a step began, as a refusal of an issue published
// before it says it, which differs between the twins.
var stepBegan = regexp.MustCompile(`began \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)`)

// commitID is a commit's full id, which differs between the twins.
var commitID = regexp.MustCompile(`\b[0-9a-f]{40}\b`)

// asRun words the workflow's run r as cairn run words it (workflowWords).
func (r *actRecord) asRun() {
	r.each(workflowWords.Replace)
}

// each replaces what r shows a user, its log, results and output, with f
// of it.
func (r *actRecord) each(f func(string) string) {
	for i, l := range r.log {
		r.log[i] = f(l)
	}
	for k, v := range r.results {
		r.results[k] = f(v)
	}
	r.printed, r.summary = f(r.printed), f(r.summary)
}

// actGitHubToken is the workflow's GITHUB_TOKEN under act: an app's
// installation token, as GitHub's is (ghs_), which the fake gh refuses
// what GitHub refuses it, such as gh api user.
const actGitHubToken = "ghs_notAToken"

// actPushToken is the secret [github] push_token names under act: a
// fine-grained token, as the README asks for, which the fake gh refuses
// what GitHub refuses it, such as the check runs of a pull request.
const actPushToken = "github_pat_notATokenEither"

// lookAct finds act on PATH and the stand-ins of the artifact actions, or
// skips the test: where act is not installed, or CAIRN_ACT=off.
func lookAct(t *testing.T) (act, standIns string) {
	t.Helper()
	if os.Getenv("CAIRN_ACT") == "off" {
		t.Skip("CAIRN_ACT=off")
	}
	act, err := exec.LookPath("act")
	if err != nil {
		t.Skipf("act is not on PATH (.ci/run installs it): %v", err)
	}
	standIns, err = filepath.Abs(actStandIns)
	if err != nil {
		t.Fatal(err)
	}
	return act, standIns
}

// act compiles the case's process in file to a workflow, commits it in the
// twin and runs it under act (at path act) in self-hosted mode, with the
// offline stand-ins of the artifact actions (in folder standIns), the twin's
// environment, its fakes first on PATH, and args (secrets, say). It
// returns the folder of the artifacts the workflow kept, act's stdout (its
// JSON log) and stderr, and its exit code.
func (w *compileWork) act(t *testing.T, act, standIns, file string, args ...string) (art string, stdout, stderr *bytes.Buffer, code int) {
	t.Helper()
	name := strings.TrimSuffix(filepath.Base(file), ".toml")
	// The workflow, and those of the child processes it calls, beside it.
	files := w.compileWorkflows(t, file)
	workflow := ".github/workflows/" + name + ".yml"
	for fname, b := range files {
		writeFiles(t, w.repo, map[string]string{".github/workflows/" + fname: string(b)})
	}
	argvs := [][]string{{"git", "add", "--", ".github/workflows"}, {"git", "commit", "-q", "-m", "workflow"}}
	if isDir(filepath.Join(w.work, "origin.git")) {
		// On GitHub the workflow is on the branch it runs from.
		argvs = append(argvs, []string{"git", "push", "-q", "origin", "main"})
	}
	for _, argv := range argvs {
		if out, errOut, code := w.run(t, nil, argv...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", argv, code, out, errOut)
		}
	}
	art = filepath.Join(w.work, "artifacts")
	args = append([]string{"workflow_dispatch", "-W", workflow,
		"-P", "ubuntu-latest=-self-hosted", "--no-cache-server", "--json", "--env", "ACT_STUB_ART=" + art}, args...)
	var all []byte
	for _, b := range files {
		all = append(all, b...)
	}
	for _, m := range artifactUses.FindAllStringSubmatch(string(all), -1) {
		arg := m[1] + "=" + filepath.Join(standIns, m[2])
		if !slices.Contains(args, arg) {
			args = append(args, "--local-repository", arg)
		}
	}
	cmd := exec.Command(act, args...)
	cmd.Dir = w.repo
	cmd.Env = append(slices.Clone(w.env), "PATH="+actPath(w.env, act))
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	w.lastAct = stdout.String()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("act: %v", err)
	}
	return art, stdout, stderr, code
}

// onlyRun is the folder of the one run in the twin's home.
func (w *compileWork) onlyRun(t *testing.T) string {
	t.Helper()
	runs, err := filepath.Glob(filepath.Join(w.home, "runs", "*"))
	if err != nil || len(runs) != 1 {
		t.Fatalf("want one run folder in %s, have %v (%v)", w.home, runs, err)
	}
	return runs[0]
}

// readRun reads the log, results and patches of the run folder dir.
func (r *actRecord) readRun(t *testing.T, dir string) {
	t.Helper()
	r.results, r.patches = map[string]string{}, map[string]string{}
	b, err := os.ReadFile(filepath.Join(dir, "log"))
	if err != nil {
		t.Error(err)
		return
	}
	for line := range strings.Lines(string(b)) {
		r.log = append(r.log, durationField.ReplaceAllString(strings.TrimSuffix(line, "\n"), ""))
	}
	sort.Strings(r.log)
	for sub, m := range map[string]map[string]string{"results": r.results, "worktrees": r.patches} {
		readTree(t, filepath.Join(dir, sub), func(s string) string { return s }, m)
	}
}

// givenBudgets are the budgets the fake agent CLIs of the twin in work
// were given (what follows --max-budget-usd in their argv), sorted.
func givenBudgets(t *testing.T, work string) []string {
	t.Helper()
	argvs, err := filepath.Glob(filepath.Join(work, "fakelog", "*", "argv"))
	if err != nil {
		t.Fatal(err)
	}
	var budgets []string
	for _, f := range argvs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Split(string(b), "\n")
		for i, a := range args[:max(len(args)-1, 0)] {
			if a == "--max-budget-usd" {
				budgets = append(budgets, args[i+1])
			}
		}
	}
	sort.Strings(budgets)
	return budgets
}

// lastFailure is the line of stderr that says which step failed the run,
// or the lines that say which ended inconclusive, with their newlines; ""
// when there is none.
func lastFailure(stderr string) string {
	var lines string
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "cairn: failed at step ") {
			return line
		}
		if strings.HasPrefix(line, "cairn: inconclusive: ") {
			lines += line
		}
	}
	return lines
}

// actPath is the PATH act runs with: the twin's (the fakes first), then
// act's own folder and the system's, where the jobs find bash and jq.
func actPath(env []string, act string) string {
	path := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			path = v
		}
	}
	return strings.Join([]string{path, filepath.Dir(act), "/usr/local/bin", "/usr/bin", "/bin"}, string(os.PathListSeparator))
}

// actOutput reads act's JSON log: what the last job's step called step
// printed, and what it wrote to the run's summary.
func actOutput(t *testing.T, log []byte, step string) (printed, summary string) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Job       string `json:"job"`
			JobID     string `json:"jobID"`
			Step      string `json:"step"`
			Stage     string `json:"stage"`
			Msg       string `json:"msg"`
			RawOutput bool   `json:"raw_output"`
			Command   string `json:"command"`
			Content   string `json:"content"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Step != step || e.Stage != "Main" || calledJob(e.Job) {
			continue
		}
		switch {
		case e.RawOutput:
			printed += e.Msg
		case e.Command == "summary":
			summary += e.Content
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return endLines(printed), summary
}

// calledJob reports whether act's log names by job a job of a workflow
// another job called (a child process's): "CALLER/WORKFLOW/JOB", where the
// workflow's own are "WORKFLOW/JOB".
func calledJob(job string) bool {
	return strings.Count(job, "/") > 1
}

// lastStepExit reads act's JSON log: the exit status of the last job's
// step called step, 0 when it exited 0 or never ran.
func lastStepExit(log []byte, step string) int {
	code := 0
	for line := range bytes.Lines(log) {
		var e struct {
			Job, Step, Stage, Level, Msg string
		}
		if json.Unmarshal(line, &e) != nil || e.Step != step || e.Stage != "Main" || e.Level != "error" || calledJob(e.Job) {
			continue
		}
		fmt.Sscanf(e.Msg, "exit status %d", &code)
	}
	return code
}

// endLines is out with its blank lines at the end dropped: act runs a step
// in a terminal, and ends its output with a newline of its own when the
// terminal's last read (its keep-alive EOT, a second apart) did not follow
// one.
func endLines(out string) string {
	if out = strings.TrimRight(out, "\n"); out != "" {
		out += "\n"
	}
	return out
}

// compareAct reports every way the workflow's run got differs from cairn
// run's, want.
func compareAct(t *testing.T, want, got *actRecord) {
	t.Helper()
	if want.code != got.code {
		t.Errorf("exit code: cairn run %d, act %d", want.code, got.code)
	}
	if !slices.Equal(want.budgets, got.budgets) {
		t.Errorf("the budgets the sessions were given: cairn run %q, act %q", want.budgets, got.budgets)
	}
	if !slices.Equal(want.log, got.log) {
		t.Errorf("log lines differ:\n--- cairn run\n%s\n--- act\n%s", strings.Join(want.log, "\n"), strings.Join(got.log, "\n"))
	}
	for _, m := range []struct {
		what string
		a, b map[string]string
	}{{"result", want.results, got.results}, {"patch", want.patches, got.patches}} {
		for _, k := range slices.Sorted(maps.Keys(m.a)) {
			if v, ok := m.b[k]; !ok {
				t.Errorf("%s %s: the workflow left none; cairn run left:\n%s", m.what, k, m.a[k])
			} else if v != m.a[k] {
				t.Errorf("%s %s differs:\n--- cairn run\n%s\n--- act\n%s", m.what, k, m.a[k], v)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(m.b)) {
			if _, ok := m.a[k]; !ok {
				t.Errorf("%s %s: cairn run left none; the workflow left:\n%s", m.what, k, m.b[k])
			}
		}
	}
	if want.printed != got.printed {
		t.Errorf("the run's end printed:\n--- cairn run\n%q\n--- act\n%q", want.printed, got.printed)
	}
	if want.summary != got.summary {
		t.Errorf("the run's summary:\n--- cairn run's results\n%q\n--- act's summary\n%q", want.summary, got.summary)
	}
	t.Logf("compared %d log lines, %d results, %d patches, %d budgets given, %s of final output", len(want.log), len(want.results), len(want.patches), len(want.budgets), fmt.Sprint(len(want.printed), " bytes"))
}

// usageSummary is the table of what each step's sessions used that a
// compiled workflow's summary ends with (actions/results.sh.tmpl), from the
// record of cairn run's run in dir: a row per step that used anything,
// then the run's total; "" when none did.
func usageSummary(t *testing.T, dir string) string {
	t.Helper()
	rec, err := record.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	count := func(n *int64) string {
		if n == nil {
			return "-"
		}
		return strconv.FormatInt(*n, 10)
	}
	row := func(name string, u ir.Usage) string {
		return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |\n", name, count(u.Turns), count(u.InputTokens),
			count(u.CacheReadTokens), count(u.CacheWriteTokens), count(u.OutputTokens), u.CostText())
	}
	var rows []string
	for _, s := range rec.Steps {
		if !s.Usage.IsZero() {
			rows = append(rows, row(s.Name, s.Usage))
		}
	}
	if len(rows) == 0 {
		return ""
	}
	return "\n| step | turns | input | cache read | cache write | output | cost |\n|---|---:|---:|---:|---:|---:|---:|\n" +
		strings.Join(rows, "") + row("total", rec.Usage)
}

// dispatchEvent is the file of the event act starts a workflow with: a
// workflow_dispatch by alice, whose inputs name issue (none when empty)
// and no directive.
func dispatchEvent(t *testing.T, issue string) string {
	t.Helper()
	inputs := `"directive": ""`
	if issue != "" {
		inputs = `"issue": "` + issue + `", ` + inputs
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"event.json": `{"inputs": {` + inputs + `}, "sender": {"login": "alice"}}`})
	return filepath.Join(dir, "event.json")
}
