package views_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/views"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestPlanJSONCorpus holds the compact report of `cairn check --no-preflight
// --format json` to the bytes json.Encoder makes of the whole document, on
// every process file the repository holds: golden/check and golden/plan
// (with their configs) in a repository made from golden/repo, examples,
// golden/home's processes, the real sessions' processes, and every process
// file of cmd/cairn's testscripts, each script's files in a folder of their
// own (no repository) with its home.
func TestPlanJSONCorpus(t *testing.T) {
	root := filepath.Join("..")
	home := t.TempDir()
	if err := os.CopyFS(home, os.DirFS(filepath.Join(root, "golden", "home"))); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CAIRN_HOME", home)

	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS(filepath.Join(root, "golden", "repo"))); err != nil {
		t.Fatal(err)
	}
	var files, configured []string
	for _, dir := range []string{"golden/check", "golden/plan", "examples", "golden/home/processes", "cmd/cairn/testdata/realsessions"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !isProcessFile(e.Name()) {
				continue
			}
			src, err := os.ReadFile(filepath.Join(root, dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(strings.ReplaceAll(dir, "/", "-"), e.Name())
			write(t, repo, file, src)
			files = append(files, file)
			if _, err := os.Stat(filepath.Join(root, dir, strings.TrimSuffix(e.Name(), ".toml")+".config.toml")); err == nil {
				configured = append(configured, file)
			}
		}
	}
	gitCommit(t, repo)

	plans := checkSame(t, repo, files)
	for _, file := range configured {
		cfg, err := os.ReadFile(filepath.Join(root, strings.Replace(strings.TrimSuffix(file, ".toml"), "-", "/", 1)+".config.toml"))
		if err != nil {
			t.Fatal(err)
		}
		write(t, home, "config.toml", cfg)
		plans += checkSame(t, repo, []string{file})
	}

	scripts, err := filepath.Glob(filepath.Join(root, "cmd", "cairn", "testdata", "script", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, script := range scripts {
		a, err := txtar.ParseFile(script)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		var files []string
		for _, f := range a.Files {
			if strings.Contains(f.Name, "..") || filepath.IsAbs(f.Name) {
				continue
			}
			write(t, dir, f.Name, f.Data)
			if isProcessFile(f.Name) && !strings.HasSuffix(f.Name, "config.toml") {
				files = append(files, f.Name)
			}
		}
		if len(files) > 0 {
			// The testscripts run with CAIRN_HOME=home.
			t.Setenv("CAIRN_HOME", filepath.Join(dir, "home"))
			plans += checkSame(t, dir, files)
		}
	}
	t.Logf("%d plans compared", plans)
	if plans < 100 {
		t.Errorf("only %d plans compared", plans)
	}
}

// isProcessFile reports whether name is a process file: TOML but a config,
// HCL, or a card.
func isProcessFile(name string) bool {
	switch {
	case strings.HasSuffix(name, ".config.toml"):
		return false
	case strings.HasSuffix(name, ".toml"), strings.HasSuffix(name, ".hcl"), strings.HasSuffix(name, ".procedure.card"):
		return true
	}
	return false
}

// checkSame checks files in dir and fails t unless WriteJSON writes the
// compact report as the encoder does; it returns how many plans there were.
func checkSame(t *testing.T, dir string, files []string) int {
	t.Helper()
	r := load.Open(context.Background(), dir, load.Options{NoPreflight: true, Env: os.Environ()}).Check(context.Background(), files, "")
	var got bytes.Buffer
	if err := r.WriteJSON(&got, false); err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	want, err := views.EncodedJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("%v: the written report differs from the encoder's:\n%s\nencoder:\n%s", files, got.Bytes(), want)
	}
	return len(r.Plans)
}

// write writes data to dir/name, making its folders.
func write(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitCommit makes dir a git repository of one commit holding its files.
func gitCommit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
