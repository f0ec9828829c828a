package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cairn-dev/cairn/parse"
)

// examplesDir holds the example processes the README and docs point at.
var examplesDir = filepath.Join("..", "..", "examples")

// TestExamplesCheck holds every file in examples/ to `cairn check
// --no-preflight`: no errors, no warnings, one plan each. An example that
// stops checking clean is a broken promise of the docs.
func TestExamplesCheck(t *testing.T) {
	entries, err := os.ReadDir(examplesDir)
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
			stdout, stderr, code := cairnIn(t, t.TempDir(), "check", "--no-preflight", "--format", "json", file)
			if code != 0 {
				t.Fatalf("cairn check --no-preflight %s exited %d\n%s%s", e.Name(), code, stdout, stderr)
			}
			var doc struct {
				Diagnostics []json.RawMessage `json:"diagnostics"`
				Plans       []json.RawMessage `json:"plans"`
			}
			if err := json.Unmarshal(stdout, &doc); err != nil {
				t.Fatalf("check's JSON: %v\n%s", err, stdout)
			}
			if len(doc.Diagnostics) != 0 || len(doc.Plans) != 1 {
				t.Errorf("want no diagnostics and one plan, got %d diagnostics and %d plans:\n%s", len(doc.Diagnostics), len(doc.Plans), stdout)
			}
		})
	}
	if n == 0 {
		t.Fatal("examples/ holds no files")
	}
}

// TestProcessPagesExample runs examples/process-pages.procedure.card, the
// example of docs/procedures.md, with a fake agent that does nothing: with
// an empty inbox the run skips every step and leaves nothing behind; with a
// page in the inbox, the checklist gate keeps the step from passing, the
// agent is sent back twice, and the failed run is committed.
func TestProcessPagesExample(t *testing.T) {
	card, err := os.ReadFile(filepath.Join(examplesDir, "process-pages.procedure.card"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"process-pages.procedure.card": string(card),
		".gitignore":                   "/home/\n/bin/\n",
	})
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
// *.test.toml there (the hunt example with its shipped stubs) passes in a
// fresh repository they are copied into, as they pass in this one (a stub
// reads a result_file only inside the repository the run is in), with no
// agent CLI on PATH, and leaves no run behind.
func TestExamplesTest(t *testing.T) {
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
	if !strings.Contains(string(stdout), "ok   "+filepath.Join(dir, "hunt.test.toml")) {
		t.Errorf("no passing line for hunt.test.toml:\n%s", stdout)
	}
	if got := strings.TrimSpace(string(stderr)); !strings.HasSuffix(got, "passed, 0 failed") {
		t.Errorf("summary: %q", got)
	}
	if _, err := os.Stat(filepath.Join(repo, "home", "runs")); !os.IsNotExist(err) {
		t.Errorf("cairn test left runs in the real CAIRN_HOME: %v", err)
	}
}
