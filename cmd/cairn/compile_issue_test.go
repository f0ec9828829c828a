package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// issueCase is the golden compile case that runs on an issue.
var issueCase = filepath.Join(compileGoldenDir, "on-issue.toml")

// TestCompileDifferentialUntrustedEdit edits the issue's body last by an
// account the run does not trust: cairn run and the script both stop its
// first session, at the same step, with the same line, keep the same, and
// start no agent.
func TestCompileDifferentialUntrustedEdit(t *testing.T) {
	slowSuite(t)
	edited := `{"number": 7, "title": "Crash on empty input", "body": "The parser crashes.", "author": "bob",
 "createdAt": "2026-01-01T00:00:00Z", "edits": [{"editor": "mallory", "editedAt": "2026-01-04T00:00:00Z"}]}`
	var runs [2]*runRecord
	for i, script := range []bool{false, true} {
		w := newCompileWork(t, issueCase)
		writeFiles(t, filepath.Join(w.work, "gh"), map[string]string{"issues/7.json": edited})
		argv := []string{"cairn", "run", "on-issue.toml", "issue", "7"}
		if script {
			w.compile(t, issueCase)
			argv = []string{"bash", filepath.Join(w.work, "on-issue.sh"), "issue", "7"}
		}
		stdout, stderr, code := w.run(t, nil, argv...)
		runs[i] = w.record(t, code, stdout, "")
		want := `cairn: failed at step fix: issue #7 was edited by an untrusted account: its body was last edited by "mallory"; a trusted account must check the text and edit it last`
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 1 and %q", argv, code, stderr, want)
		}
		if _, ok := runs[i].sessions["claude.fix"]; ok {
			t.Errorf("%v: the session of step fix started on an issue an untrusted account edited", argv)
		}
	}
	compareRuns(t, runs[0], runs[1])
}

// TestCompileDifferentialIssueClaim runs on one issue from two clones of
// one origin, as two machines would: while the compiled script holds the
// issue's Claim, cairn run is refused, and while cairn run holds it, the
// script is, each naming the other as its holder; the refused run leaves
// no run folder (in commit mode, no .cairn in the checkout either) and says
// why in the activity log.
func TestCompileDifferentialIssueClaim(t *testing.T) {
	slowSuite(t)
	for _, commit := range []bool{false, true} {
		t.Run(fmt.Sprintf("commit=%v", commit), func(t *testing.T) {
			testIssueClaim(t, commit)
		})
	}
}

// testIssueClaim is TestCompileDifferentialIssueClaim, in commit mode when
// commit is set.
func testIssueClaim(t *testing.T, commit bool) {
	process := `version = 1

[worktrees.fix]
kind = "issue-branch"

[worktrees.work]
kind = "throwaway"

[[steps]]
name = "wait"
worktree = "work"
command = 'touch "$HOME/started"; while [ ! -e "$HOME/release" ]; do sleep 0.05; done'
`
	if commit {
		process = strings.Replace(process, "version = 1\n", "version = 1\ncommit = true\n", 1)
	}
	file := filepath.Join(t.TempDir(), "on-issue.toml")
	if err := os.WriteFile(file, []byte(process), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, scriptHolds := range []bool{true, false} {
		// Two clones of one repository: b's origin is a's.
		a, b := newCompileWork(t, file), newCompileWork(t, file)
		for _, argv := range [][]string{
			{"git", "config", "--remove-section", "url." + filepath.Join(b.work, "origin.git")},
			{"git", "config", "url." + filepath.Join(a.work, "origin.git") + ".insteadOf", "https://github.com/acme/widgets.git"},
		} {
			if _, stderr, code := b.run(t, nil, argv...); code != 0 {
				t.Fatalf("%v: %s", argv, stderr)
			}
		}
		holder, refused := a, b
		holderArgv := []string{"cairn", "run", "on-issue.toml", "issue", "7"}
		refusedArgv := []string{"bash", filepath.Join(b.work, "on-issue.sh"), "issue", "7"}
		b.compile(t, file)
		if scriptHolds {
			a.compile(t, file)
			holderArgv = []string{"bash", filepath.Join(a.work, "on-issue.sh"), "issue", "7"}
			refusedArgv = []string{"cairn", "run", "on-issue.toml", "issue", "7"}
		}
		cmd := exec.Command(holderArgv[0], holderArgv[1:]...)
		cmd.Dir, cmd.Env = holder.repo, holder.env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		holderStarted(t, filepath.Join(holder.work, "started"))
		_, stderr, code := refused.run(t, nil, refusedArgv...)
		claimed := regexp.MustCompile(`(?m)^cairn: error: issue #7 is claimed by run "on-issue_[0-9TZ-]+" on host "[^"]+" \(pid [0-9]+\) since \S+, which is still running; wait for it to end or stop it \(cairn stop on-issue_[0-9TZ-]+\)$`)
		if code != 1 || !claimed.MatchString(stderr) {
			t.Errorf("%v while %v runs: exit %d, stderr:\n%s\nwant exit 1 and %s", refusedArgv, holderArgv, code, stderr, claimed)
		}
		if runs, _ := filepath.Glob(filepath.Join(refused.home, "runs", "*")); len(runs) != 0 {
			t.Errorf("%v: a refused run left %v", refusedArgv, runs)
		}
		if _, err := os.Stat(filepath.Join(refused.repo, ".cairn")); err == nil {
			t.Errorf("%v: a refused run left .cairn in the checkout", refusedArgv)
		}
		if log, _ := os.ReadFile(filepath.Join(refused.home, "activity.log")); !regexp.MustCompile(`event=refused run=on-issue_\S+ process=on-issue repo=\S+ reason="issue #7 is claimed by`).Match(log) {
			t.Errorf("%v: the activity log does not say why it was refused:\n%s", refusedArgv, log)
		}
		writeFiles(t, holder.work, map[string]string{"release": ""})
		if err := cmd.Wait(); err != nil {
			t.Errorf("%v: %v", holderArgv, err)
		}
		// The holder let go of the claim at its end.
		if out, _, _ := a.run(t, nil, "git", "ls-remote", "origin", "refs/cairn/claims/7"); out != "" {
			t.Errorf("%v left its claim on origin: %s", holderArgv, out)
		}
	}
}

// holderStarted waits, up to a minute, for path, which the run holding the
// claim makes as its step starts.
func holderStarted(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

// preReceiveBranches is a pre-receive hook that refuses every push of a
// branch, and takes the rest (the issue's Claim).
const preReceiveBranches = `#!/bin/sh
while read -r old new ref; do
  case $ref in refs/heads/*) exit 1 ;; esac
done
exit 0
`

// TestCompileDifferentialPushRefused: origin refuses the delivery's push
// (a pre-receive hook, as GitHub's rules refuse one): cairn run and the
// script fail the step with the same cause, which names the ref and why
// rather than the "To URL" git's report starts with, and open no pull
// request.
func TestCompileDifferentialPushRefused(t *testing.T) {
	fastSuite(t)
	file := filepath.Join(compileGoldenDir, "deliver.toml")
	var runs [2]*runRecord
	for i, script := range []bool{false, true} {
		w := newCompileWork(t, file)
		writeFiles(t, filepath.Join(w.work, "origin.git", "hooks"), map[string]string{"pre-receive": preReceiveBranches})
		if err := os.Chmod(filepath.Join(w.work, "origin.git", "hooks", "pre-receive"), 0o755); err != nil {
			t.Fatal(err)
		}
		argv := []string{"cairn", "run", "deliver.toml", "issue", "7"}
		if script {
			w.compile(t, file)
			argv = []string{"bash", filepath.Join(w.work, "deliver.sh"), "issue", "7"}
		}
		stdout, stderr, code := w.run(t, nil, argv...)
		runs[i] = w.record(t, code, stdout, "")
		want := `cairn: failed at step deliver: push branch "cairn/7-crash-on-empty-input": git push --quiet origin refs/heads/cairn/7-crash-on-empty-input:refs/heads/cairn/7-crash-on-empty-input: ! [remote rejected] cairn/7-crash-on-empty-input -> cairn/7-crash-on-empty-input (pre-receive hook declined)`
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 1 and %q", argv, code, stderr, want)
		}
		if prs := w.pullRequests(t); len(prs) != 0 {
			t.Errorf("%v: pull requests %q; want none", argv, prs)
		}
	}
	compareRuns(t, runs[0], runs[1])
}
