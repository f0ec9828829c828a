package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenDir holds the golden cases: golden/check (one per rule) and
// golden/plan (plans), the repository they run in (golden/repo) and the
// CAIRN_HOME they run with (golden/home).
var goldenDir = filepath.Join("..", "..", "golden")

// updateGolden is set by UPDATE_GOLDEN=1: golden files are rewritten, not compared.
var updateGolden = os.Getenv("UPDATE_GOLDEN") != ""

// argsPrefix introduces a case's extra command-line arguments on its first
// line: "# args: --lint".
const argsPrefix = "# args:"

// repoPlaceholder stands for the case's temporary repository in golden
// files, so that absolute paths (a home skill) stay stable.
const repoPlaceholder = "$REPO"

// TestGolden runs `cairn check --no-preflight [ARGS] NAME.toml` for every
// golden/check/NAME.toml and golden/plan/NAME.toml in a fresh repository made
// from golden/repo, with golden/home as CAIRN_HOME=home, and compares stdout
// and the exit code ("[exit N]" on a last line) with NAME.out; plan cases
// also hold `--format json` to the schema and compare it with NAME.json.
// NAME.config.toml beside a case replaces home/config.toml.
func TestGolden(t *testing.T) {
	for _, kind := range []string{"check", "plan"} {
		cases, err := filepath.Glob(filepath.Join(goldenDir, kind, "*.toml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range cases {
			if strings.HasSuffix(file, ".config.toml") {
				continue
			}
			name := strings.TrimSuffix(filepath.Base(file), ".toml")
			t.Run(kind+"/"+name, func(t *testing.T) {
				t.Parallel()
				runGolden(t, file, kind == "plan")
			})
		}
	}
}

func runGolden(t *testing.T, file string, plan bool) {
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, filepath.Join(goldenDir, "repo"), dir)
	gitRepo(t, dir)
	copyTree(t, filepath.Join(goldenDir, "home"), filepath.Join(dir, "home"))
	stem := strings.TrimSuffix(file, ".toml")
	if cfg, err := os.ReadFile(stem + ".config.toml"); err == nil {
		writeFiles(t, dir, map[string]string{"home/config.toml": string(cfg)})
	}
	base := filepath.Base(file)
	writeFiles(t, dir, map[string]string{base: string(src)})

	args := append([]string{"check", "--no-preflight"}, caseArgs(src)...)
	stdout, code := goldenRun(t, dir, append(args, base)...)
	compareGolden(t, stem+".out", fmt.Appendf(stdout, "[exit %d]\n", code))
	if plan {
		stdout, _ := goldenRun(t, dir, append(args, "--format", "json", base)...)
		validateJSON(t, checkSchema(t), stdout)
		// cairn writes compact JSON to a pipe; the golden file is indented
		// so that a reviewer can read its diff.
		var indented bytes.Buffer
		if err := json.Indent(&indented, stdout, "", "  "); err != nil {
			t.Fatalf("%s: --format json printed invalid JSON: %v", base, err)
		}
		compareGolden(t, stem+".json", indented.Bytes())
	}
}

// goldenRun runs cairn in dir and returns its stdout, with the repository's
// path replaced by $REPO, and its exit code.
func goldenRun(t *testing.T, dir string, args ...string) ([]byte, int) {
	t.Helper()
	out, _, code := cairnIn(t, dir, args...)
	paths := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		paths = append(paths, real)
	}
	for _, p := range paths {
		out = bytes.ReplaceAll(out, []byte(p), []byte(repoPlaceholder))
	}
	return out, code
}

// caseArgs are the arguments of a case's "# args: …" first line.
func caseArgs(src []byte) []string {
	first, _, _ := strings.Cut(string(src), "\n")
	if rest, ok := strings.CutPrefix(first, argsPrefix); ok {
		return strings.Fields(rest)
	}
	return nil
}

// compareGolden compares got with the golden file, or rewrites it under
// UPDATE_GOLDEN=1.
func compareGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if updateGolden {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 go test ./cmd/cairn writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (UPDATE_GOLDEN=1 go test ./cmd/cairn rewrites it)\n--- got\n%s\n--- want\n%s", golden, got, want)
	}
}

// copyTree copies the files under from to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
