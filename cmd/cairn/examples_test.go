package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cairn-dev/cairn/parse"
)

// examplesDir holds the example processes the README and docs point at.
var examplesDir = filepath.Join("..", "..", "examples")

// TestExamplesCheck holds every file in examples/ to `cairn check
// --no-preflight`: no errors, no warnings, one plan each. An example that
// stops checking clean is a broken promise of the docs. The examples are
// checked as the user they were written for would check them: with
// examples/ in the config's process_path, as if copied to the home's
// processes, so that a run-published-issue step finds the processes it
// names; and an example that works on an issue, whose only complaint
// without one is that it needs one, is checked again on an issue.
func TestExamplesCheck(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Abs(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	config, err := json.Marshal(examples)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() || parse.NotProcess(e.Name()) {
			// cairn test's files: TestExamplesTest runs them.
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			file, err := filepath.Abs(filepath.Join(examplesDir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"home/config.toml": "process_path = [" + string(config) + "]\n"})
			check := func(args ...string) (diagnostics []string, out []byte) {
				args = append([]string{"check", "--no-preflight", "--format", "json", file}, args...)
				stdout, stderr, code := cairnIn(t, dir, args...)
				if code != 0 {
					t.Fatalf("cairn %s exited %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
				}
				var doc struct {
					Diagnostics []struct {
						Severity string `json:"severity"`
						Rule     string `json:"rule"`
					} `json:"diagnostics"`
					Plans []json.RawMessage `json:"plans"`
				}
				if err := json.Unmarshal(stdout, &doc); err != nil {
					t.Fatalf("check's JSON: %v\n%s", err, stdout)
				}
				if len(doc.Plans) != 1 {
					t.Errorf("cairn %s: want one plan, got %d:\n%s", strings.Join(args, " "), len(doc.Plans), stdout)
				}
				for _, d := range doc.Diagnostics {
					diagnostics = append(diagnostics, d.Severity+" "+d.Rule)
				}
				return diagnostics, stdout
			}
			got, out := check()
			if len(got) > 0 && !slices.ContainsFunc(got, func(d string) bool { return d != "warning issue-branch-needs-issue" }) {
				got, out = check("issue", "1")
			}
			if len(got) != 0 {
				t.Errorf("want no diagnostics, got %v:\n%s", got, out)
			}
		})
	}
	if n == 0 {
		t.Fatal("examples/ holds no files")
	}
}

// examplesChildren are the workflows of the child processes an example's
// workflow calls, by file and target, which compile writes beside it.
var examplesChildren = map[string][]string{
	"idea.toml github-actions": {"idea.tickets.yml", "idea.fix-issue.yml"},
}

// TestExamplesCompile compiles every process of examples/ to each target,
// as TestExamplesCheck checks them (examples/ on the process path): each
// compiles, bash reads the script it writes, and a workflow whose
// run-published-issue step calls child processes has their workflows
// beside it (idea.toml: tickets.toml's and fix-issue.toml's).
func TestExamplesCompile(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || parse.NotProcess(e.Name()) {
			continue
		}
		for _, target := range []string{"bash", "github-actions"} {
			t.Run(e.Name()+"/"+target, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				repo := filepath.Join(dir, "repo")
				copyTree(t, examplesDir, filepath.Join(repo, "examples"))
				gitRepo(t, repo)
				config, err := json.Marshal(filepath.Join(repo, "examples"))
				if err != nil {
					t.Fatal(err)
				}
				writeFiles(t, dir, map[string]string{"home/config.toml": "process_path = [" + string(config) + "]\n"})
				out := filepath.Join(dir, "out")
				args := []string{"compile", "-C", "repo", "--target", target, "-o", out, filepath.Join("examples", e.Name())}
				stdout, stderr, code := cairnIn(t, dir, args...)
				if code != 0 {
					t.Fatalf("cairn %s exited %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
				}
				if target == "bash" {
					if b, err := exec.Command("bash", "-n", out).CombinedOutput(); err != nil {
						t.Errorf("bash -n: %v\n%s", err, b)
					}
				}
				for _, child := range examplesChildren[e.Name()+" "+target] {
					if _, err := os.Stat(filepath.Join(dir, child)); err != nil {
						t.Errorf("cairn %s wrote no %s beside -o: %v", strings.Join(args, " "), child, err)
					}
				}
			})
		}
	}
}

// TestProcessPagesExample runs examples/process-pages.procedure.card, the
// example of docs/procedures.md, with a fake agent that does nothing: with
// an empty inbox the run skips every step and leaves nothing behind; with a
// page in the inbox, the checklist gate keeps the step from passing, the
// agent is sent back twice, and the failed run is committed. Its shipped
// stubs take the same way, with no agent CLI: a stub edits nothing.
func TestProcessPagesExample(t *testing.T) {
	t.Parallel()
	files := map[string]string{".gitignore": "/home/\n/bin/\n"}
	for _, name := range []string{"process-pages.procedure.card", "process-pages.stubs.toml"} {
		b, err := os.ReadFile(filepath.Join(examplesDir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	dir := t.TempDir()
	writeFiles(t, dir, files)
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"fake.bash": 0o644, "claude": 0o755} {
		if err := copyFake(filepath.Join(fakesDir, name), filepath.Join(bin, name), mode); err != nil {
			t.Fatal(err)
		}
	}
	gitRepo(t, dir)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = environ(t, dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}

	// Nothing to do: no commit, no run folder.
	_, stderr, code := cairnIn(t, dir, "run", "process-pages.procedure.card")
	if code != 0 {
		t.Fatalf("run on an empty inbox exited %d\n%s", code, stderr)
	}
	for _, want := range []string{"skipped intake: No saved page waits to be filed", "skipped index: Nothing was filed in this run"} {
		if !strings.Contains(string(stderr), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if log := git("log", "--format=%s"); log != "init\n" {
		t.Errorf("a run with nothing to do committed:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cairn")); !os.IsNotExist(err) {
		t.Errorf("a run with nothing to do left .cairn behind (%v)", err)
	}

	// A page to file, and an agent that ticks nothing: the gate fails it.
	writeFiles(t, dir, map[string]string{"inbox/pages/sourdough.md": "# Sourdough\n"})
	git("add", "-A")
	git("commit", "-q", "-m", "Save a page")
	_, stderr, code = cairnIn(t, dir, "run", "process-pages.procedure.card")
	if code != 1 {
		t.Fatalf("run with an unticked checklist exited %d, want 1\n%s", code, stderr)
	}
	for _, want := range []string{"intake: review retry 2 of 2: validate: exit status 1", "failed intake: validate: still failing after 2 review retries", "cancelled index"} {
		if !strings.Contains(string(stderr), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	want := "Complete process: process-pages (failed)\n[cairn] Complete step: intake (failed)\nStart process: process-pages\nSave a page\ninit\n"
	if log := git("log", "--format=%s"); log != want {
		t.Errorf("git log:\n%s\nwant:\n%s", log, want)
	}
	if st := git("status", "--porcelain"); st != "" {
		t.Errorf("the failed run left changes uncommitted:\n%s", st)
	}

	// The same page, run stubbed: no agent starts, the gate holds alike.
	if err := os.RemoveAll(bin); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = cairnIn(t, dir, "run", "process-pages.procedure.card", "--stubs", "process-pages.stubs.toml")
	if code != 1 {
		t.Fatalf("stubbed run with a page to file exited %d, want 1\n%s", code, stderr)
	}
	for _, want := range []string{"stubbed run", "intake: review retry 2 of 2: validate: exit status 1", "failed intake: validate: still failing after 2 review retries", "cancelled index"} {
		if !strings.Contains(string(stderr), want) {
			t.Errorf("stubbed run's stderr lacks %q:\n%s", want, stderr)
		}
	}
	want = "Complete process: process-pages (failed)\n[cairn] Complete step: intake (failed)\nStart process: process-pages\n" + want
	if log := git("log", "--format=%s"); log != want {
		t.Errorf("git log after the stubbed run:\n%s\nwant:\n%s", log, want)
	}
	if st := git("status", "--porcelain"); st != "" {
		t.Errorf("the failed stubbed run left changes uncommitted:\n%s", st)
	}
}

func init() {
	// Scripts reach the examples as $EXAMPLES: the stubbed run of the
	// hunt example runs the very files the README points at.
	scriptSetups = append(scriptSetups, func(e *testscript.Env) error {
		dir, err := filepath.Abs(examplesDir)
		if err != nil {
			return err
		}
		e.Setenv("EXAMPLES", dir)
		return nil
	})
}

// TestExamplesTest runs `cairn test` on examples/, as CI does: every
// *.test.toml there (the hunt example and the card with their shipped
// stubs) passes in a fresh repository they are copied into, as they pass in
// this one (a stub reads a result_file only inside the repository the run
// is in), with no agent CLI on PATH, and leaves no run behind, nor a commit
// of the card's in the repository.
func TestExamplesTest(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	dir := filepath.Join(repo, "examples")
	if err := os.CopyFS(dir, os.DirFS(examplesDir)); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, repo)
	stdout, stderr, code := cairnIn(t, repo, "test", dir)
	if code != 0 {
		t.Fatalf("cairn test %s exited %d\n%s%s", dir, code, stdout, stderr)
	}
	for _, test := range []string{"hunt.test.toml", "hunt-inconclusive.test.toml", "process-pages.test.toml"} {
		if !strings.Contains(string(stdout), "ok   "+filepath.Join(dir, test)) {
			t.Errorf("no passing line for %s:\n%s", test, stdout)
		}
	}
	if got := strings.TrimSpace(string(stderr)); !strings.HasSuffix(got, "passed, 0 failed") {
		t.Errorf("summary: %q", got)
	}
	if _, err := os.Stat(filepath.Join(repo, "home", "runs")); !os.IsNotExist(err) {
		t.Errorf("cairn test left runs in the real CAIRN_HOME: %v", err)
	}
	if log := runGit(t, repo, "log", "--format=%s"); log != "init\n" {
		t.Errorf("cairn test committed in the repository:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(repo, ".cairn")); !os.IsNotExist(err) {
		t.Errorf("the card's case, whose steps all skip, left .cairn behind (%v)", err)
	}
}

// TestFixTestsExample runs examples/fix-tests.hcl, the HCL example, on a Go
// module whose test fails, with a fake claude whose session fixes the code:
// the fix is left in the working tree, and the validate shells (go vet, go
// test) pass it. Once the tests pass, the fix step skips with its why.
func TestFixTestsExample(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go on PATH to run the example's tests with: %v", err)
	}
	example, err := os.ReadFile(filepath.Join(examplesDir, "fix-tests.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	writeFiles(t, repo, map[string]string{
		"go.mod": "module example.com/add\n\ngo 1.22\n",
		"add.go": "package add\n\n// Add returns a plus b.\nfunc Add(a, b int) int { return a - b }\n",
		"add_test.go": "package add\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n" +
			"\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n",
	})
	gitRepo(t, repo)
	writeFiles(t, work, map[string]string{
		"fix-tests.hcl":         string(example),
		"answers/claude.fix":    "Add subtracted; it adds now.\n",
		"answers/claude.fix.do": "sed -i 's/a - b/a + b/' add.go\n",
	})
	bin := filepath.Join(work, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"fake.bash": 0o644, "claude": 0o755} {
		if err := copyFake(filepath.Join(fakesDir, name), filepath.Join(bin, name), mode); err != nil {
			t.Fatal(err)
		}
	}
	cache, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		"FAKE_LOG=" + filepath.Join(work, "fakelog"),
		"FAKE_ANSWERS=" + filepath.Join(work, "answers"),
		"GOCACHE=" + strings.TrimSpace(string(cache)),
		"GOTOOLCHAIN=local",
	}
	for k, v := range testEnv(t, work) {
		switch k {
		case "PATH":
			v = filepath.Dir(goBin) + string(os.PathListSeparator) + v
		case "CAIRN_HOME":
			// Out of the checkout, which must stay clean.
			v = filepath.Join(work, v)
		}
		env = append(env, k+"="+v)
	}
	run := func() (string, string, int) {
		t.Helper()
		cmd := exec.Command("cairn", "run", filepath.Join(work, "fix-tests.hcl"))
		cmd.Dir, cmd.Env = repo, env
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		code := 0
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), code
	}

	stdout, stderr, code := run()
	if code != 0 || stdout != "Add subtracted; it adds now.\n" {
		t.Fatalf("run on a failing test exited %d, printed %q\n%s", code, stdout, stderr)
	}
	if diff := runGit(t, repo, "diff"); !strings.Contains(diff, "+func Add(a, b int) int { return a + b }") {
		t.Errorf("the fix is not in the working tree:\n%s", diff)
	}

	runGit(t, repo, "commit", "-q", "-a", "-m", "Fix Add")
	stdout, stderr, code = run()
	if code != 0 || stdout != "" {
		t.Fatalf("run on passing tests exited %d, printed %q\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "skipped fix: Every test passes: there is nothing to fix") {
		t.Errorf("the fix step did not skip:\n%s", stderr)
	}
}

// runGit runs git with args in dir and returns its output.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = environ(t, dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
