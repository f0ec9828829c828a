package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// twoJobs is a process whose second step works on in the throwaway worktree
// of the first, so that its job starts from the first job's patch.
const twoJobs = `version = 1

[worktrees.w]
kind = "throwaway"

[[steps]]
name = "first"
worktree = "w"
command = "echo one > one.txt"

[[steps]]
name = "second"
worktree = "w"
command = "cat one.txt; echo two > two.txt"
`

// TestWorkflowJobsUntracked runs the two jobs of a compiled workflow without
// act, each in its own copy of a working copy that holds a file the
// repository does not track (act's checkout copies the working copy, such
// files too), the second given what the first kept, as the artifact actions
// pass it. Each job's patch holds what the steps changed and not the
// untracked file, so the second job applies the first one's and reads what
// it wrote. TestActDifferentialUntracked runs the same under act.
func TestWorkflowJobsUntracked(t *testing.T) {
	file := filepath.Join(t.TempDir(), "two.toml")
	if err := os.WriteFile(file, []byte(twoJobs), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newCompileWork(t, file)
	var wf ghWorkflow
	if err := yaml.Unmarshal(w.compileWorkflow(t, file), &wf); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, w.repo, map[string]string{"notes.txt": "the user's notes\n"})

	first := w.runJob(t, wf, "first", "")
	patch := readText(t, filepath.Join(first, "worktrees", "w.patch"))
	if !strings.Contains(patch, "+++ b/one.txt\n") || strings.Contains(patch, "notes.txt") {
		t.Fatalf("the first job's patch should add one.txt alone:\n%s", patch)
	}
	given := filepath.Join(w.work, "given")
	writeFiles(t, given, map[string]string{
		"results/first.md":  readText(t, filepath.Join(first, "results", "first.md")),
		"worktrees/w.patch": patch,
	})

	second := w.runJob(t, wf, "second", given)
	if got := readText(t, filepath.Join(second, "results", "second.md")); !strings.Contains(got, "one\n") {
		t.Errorf("step second read no one.txt; its result:\n%s", got)
	}
	patch = readText(t, filepath.Join(second, "worktrees", "w.patch"))
	if !strings.Contains(patch, "+++ b/one.txt\n") || !strings.Contains(patch, "+++ b/two.txt\n") || strings.Contains(patch, "notes.txt") {
		t.Errorf("the second job's patch should add one.txt and two.txt alone:\n%s", patch)
	}
}

// runJob runs job id of wf as a runner runs it, without act, and returns
// the run folder it kept: in a copy of the twin's working copy, the first
// job's run steps (which keep the shared functions, in the runner's
// $RUNNER_TEMP, where the job would take them), then the job's (the step's
// script), with given (what earlier jobs kept; "" for none) as
// $CAIRN_GIVEN. The steps that use an action (the checkout, the artifacts)
// are the caller's to stand in for.
func (w *compileWork) runJob(t *testing.T, wf ghWorkflow, id, given string) string {
	t.Helper()
	job, ok := wf.Jobs[id]
	if !ok {
		t.Fatalf("the workflow has no job %q", id)
	}
	checkout, runner := filepath.Join(w.work, "checkout-"+id), filepath.Join(w.work, "runner-"+id)
	if out, err := exec.Command("cp", "-a", w.repo, checkout).CombinedOutput(); err != nil {
		t.Fatalf("copy the working copy: %v\n%s", err, out)
	}
	if err := os.Mkdir(runner, 0o755); err != nil {
		t.Fatal(err)
	}
	output := filepath.Join(runner, "output")
	env := append(slices.Clone(w.env), "RUNNER_TEMP="+runner, "GITHUB_OUTPUT="+output,
		"CAIRN_HOME="+filepath.Join(runner, "cairn"), "CAIRN_GIVEN="+given)
	for _, st := range append(slices.Clone(wf.Jobs["runtime"].Steps), job.Steps...) {
		if st.Run == "" {
			continue
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", st.Run)
		cmd.Dir, cmd.Env = checkout, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("job %s, step %q: %v\n%s", id, st.Name, err, out)
		}
	}
	for line := range strings.Lines(readText(t, output)) {
		if folder, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "folder="); ok {
			return folder
		}
	}
	t.Fatalf("job %s gave no output folder", id)
	return ""
}

// readText is the text of file, or the test's end.
func readText(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
