package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// TestPreCommitHook reads the repository's .pre-commit-hooks.yaml as
// pre-commit would: its cairn-check hook takes the process files of
// .cairn/processes/ and cards, and neither stubs, tests nor other TOML
// files, and its entry, given the files it takes, lints them: the shipped
// card passes, a process file with a mistake fails at its line.
func TestPreCommitHook(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID, Entry, Language, Files, Exclude string
	}
	if err := yaml.Unmarshal(b, &hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	if len(hooks) != 1 || hooks[0].ID != "cairn-check" || hooks[0].Language != "golang" {
		t.Fatalf(".pre-commit-hooks.yaml: want one golang hook cairn-check, have %+v", hooks)
	}
	h := hooks[0]
	files, exclude := regexp.MustCompile(h.Files), regexp.MustCompile(h.Exclude)
	takes := func(path string) bool { return files.MatchString(path) && !exclude.MatchString(path) }
	for path, want := range map[string]bool{
		".cairn/processes/review.toml":          true,
		"sub/.cairn/processes/review.hcl":       true,
		"examples/process-pages.procedure.card": true,
		".cairn/processes/review.stubs.toml":    false,
		".cairn/processes/review.test.toml":     false,
		".cairn/processes/nested/notes.toml":    false,
		"Cargo.toml":                            false,
		"config/processes.toml":                 false,
	} {
		if got := takes(path); got != want {
			t.Errorf("the hook takes %s: %v, want %v", path, got, want)
		}
	}

	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	writeFiles(t, repo, map[string]string{
		".cairn/processes/ok.toml":  "version = 1\n\n[[steps]]\nname = \"ask\"\nprompt = \"Say hello.\"\n",
		".cairn/processes/bad.toml": "version = 1\n\n[[steps]]\nname = \"Ask Me\"\nprompt = \"Say hello.\"\n",
	})
	copyTree(t, examplesDir, filepath.Join(repo, "examples"))
	gitRepo(t, repo)
	argv := strings.Fields(h.Entry)
	if argv[0] != "cairn" {
		t.Fatalf("the hook's entry %q does not run cairn", h.Entry)
	}
	// run is the hook's entry given files: what it printed, and its exit code.
	run := func(files ...string) (string, int) {
		args := append([]string{"-C", "repo"}, argv[1:]...)
		stdout, stderr, code := cairnIn(t, dir, append(args, files...)...)
		return string(stdout) + string(stderr), code
	}
	if stderr, code := run(".cairn/processes/ok.toml", "examples/process-pages.procedure.card"); code != 0 {
		t.Errorf("%s on good files: exit %d\n%s", h.Entry, code, stderr)
	}
	stderr, code := run(".cairn/processes/ok.toml", ".cairn/processes/bad.toml")
	if code != 1 || !strings.Contains(stderr, ".cairn/processes/bad.toml:4:8: error:") {
		t.Errorf("%s on a bad file: exit %d, want 1 and the refusal at bad.toml:4:8\n%s", h.Entry, code, stderr)
	}
}
