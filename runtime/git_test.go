package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testrepo"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/record"
)

// TestRunGitInItsEnvironment: the git a run runs is the repository's, in
// the environment the run was given: the commits of a commit-mode run, its
// bookkeeping and the step's work, carry that environment's identity, not
// the one the test process has (testrepo's).
func TestRunGitInItsEnvironment(t *testing.T) {
	root, _ := testrepo.New(t)
	testrepo.Write(t, filepath.Join(root, "note.toml"), `version = 1
commit = true

[worktrees.here]
kind = "checkout"

[[steps]]
name = "note"
worktree = "here"
command = "echo noted > note.txt"
`)
	testrepo.Git(t, root, "add", "note.toml")
	testrepo.Git(t, root, "commit", "-q", "-m", "a process")
	base := testrepo.Git(t, root, "rev-parse", "HEAD")
	t.Setenv("CAIRN_HOME", t.TempDir())
	env := append(os.Environ(),
		"GIT_AUTHOR_NAME=Handle", "GIT_AUTHOR_EMAIL=handle@example.com",
		"GIT_COMMITTER_NAME=Handle", "GIT_COMMITTER_EMAIL=handle@example.com")
	ctx := context.Background()
	rn, report, err := load.PrepareRun(ctx, root, "note.toml", "", load.Options{NoPreflight: true, Env: env})
	if err != nil {
		t.Fatalf("prepare: %v %v", err, report.Diagnostics)
	}
	status, err := Run(ctx, Options{Home: rn.Home, Repo: rn.Repo, Env: env, Harnesses: rn.Harnesses, Plan: rn.Plan, Source: rn.Source})
	if err != nil || status != record.StatusSucceeded {
		t.Fatalf("run ended %s: %v", status, err)
	}
	log := testrepo.Git(t, root, "log", "--format=%an <%ae> %cn <%ce>: %s", base+"..HEAD")
	lines := strings.Split(log, "\n")
	if len(lines) < 2 {
		t.Fatalf("the run made no commits:\n%s", log)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "Handle <handle@example.com> Handle <handle@example.com>: ") {
			t.Errorf("a commit not made in the run's environment: %s", l)
		}
	}
	if got := testrepo.Git(t, root, "show", "HEAD:note.txt"); got != "noted" {
		t.Errorf("note.txt at HEAD = %q, want the step's work", got)
	}
}
