package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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

// TestGolden runs `cairn check --no-preflight [ARGS] FILE` for every
// golden/check and golden/plan case, NAME.toml, NAME.hcl or a card, in a fresh
// repository made from golden/repo, with golden/home as CAIRN_HOME=home, and
// compares stdout and the exit code ("[exit N]" on a last line) with the
// case's .out; plan cases also hold `--format json` to the schema and compare
// it with the case's .json. A TOML case's outputs are NAME.out and NAME.json;
// an HCL case's are NAME.hcl.out and NAME.hcl.json, so that it can sit beside
// its TOML twin; a card's are NAME.procedure.card.out and .json.
// NAME.config.toml beside a case replaces home/config.toml.
func TestGolden(t *testing.T) {
	fastSuite(t)
	for _, kind := range []string{"check", "plan"} {
		for _, file := range goldenCases(t, kind) {
			t.Run(kind+"/"+strings.TrimSuffix(filepath.Base(file), ".toml"), func(t *testing.T) {
				t.Parallel()
				runGolden(t, file, kind == "plan")
			})
		}
	}
}

// goldenCases returns the process files of golden/KIND: its .toml files but
// the configs, its .hcl files and its cards.
func goldenCases(t *testing.T, kind string) []string {
	t.Helper()
	var cases []string
	for _, ext := range []string{".toml", ".hcl", ".procedure.card"} {
		files, err := filepath.Glob(filepath.Join(goldenDir, kind, "*"+ext))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !strings.HasSuffix(f, ".config.toml") {
				cases = append(cases, f)
			}
		}
	}
	return cases
}

// goldenStem is what a case's output files are named after: NAME for
// NAME.toml, NAME.hcl for NAME.hcl, NAME.procedure.card for a card.
func goldenStem(file string) string {
	return strings.TrimSuffix(file, ".toml")
}

// goldenRepo makes the repository a case runs in: golden/repo, committed,
// with golden/home as its home, the case's NAME.config.toml as the config
// when there is one, and the case's files.
func goldenRepo(t *testing.T, file string) string {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, filepath.Join(goldenDir, "repo"), dir)
	gitRepo(t, dir)
	copyTree(t, filepath.Join(goldenDir, "home"), filepath.Join(dir, "home"))
	name := strings.TrimSuffix(file, filepath.Ext(file))
	if cfg, err := os.ReadFile(name + ".config.toml"); err == nil {
		writeFiles(t, dir, map[string]string{"home/config.toml": string(cfg)})
	}
	return dir
}

func runGolden(t *testing.T, file string, plan bool) {
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := goldenRepo(t, file)
	stem := goldenStem(file)
	base := filepath.Base(file)
	writeFiles(t, dir, map[string]string{base: string(src)})

	args := append([]string{"check", "--no-preflight"}, caseArgs(src)...)
	stdout, code := goldenRun(t, dir, append(args, base)...)
	compareGolden(t, stem+".out", fmt.Appendf(stdout, "[exit %d]\n", code))
	if plan {
		stdout, _ := goldenRun(t, dir, append(args, "--format", "json", base)...)
		// cairn writes compact JSON to a pipe; the golden file is indented
		// so that a reviewer can read its diff.
		var indented bytes.Buffer
		if err := json.Indent(&indented, stdout, "", "  "); err != nil {
			t.Fatalf("%s: --format json printed invalid JSON: %v", base, err)
		}
		compareGolden(t, stem+".json", indented.Bytes())
	}
}

// TestGoldenTwins holds every golden/plan/NAME.toml to its HCL twin
// NAME.hcl (docs/design.md §4.2): both must give the same plan, in text and in JSON,
// apart from the file's name, its format and positions.
func TestGoldenTwins(t *testing.T) {
	fastSuite(t)
	tomls, err := filepath.Glob(filepath.Join(goldenDir, "plan", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range tomls {
		if strings.HasSuffix(file, ".config.toml") {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(file), ".toml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			twin := strings.TrimSuffix(file, ".toml") + ".hcl"
			if _, err := os.Stat(twin); err != nil {
				t.Fatalf("%s has no HCL twin: write %s", file, twin)
			}
			dir := goldenRepo(t, file)
			var text, js [2][]byte
			for i, f := range []string{file, twin} {
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				base := filepath.Base(f)
				writeFiles(t, dir, map[string]string{base: string(src)})
				args := append([]string{"check", "--no-preflight"}, caseArgs(src)...)
				out, code := goldenRun(t, dir, append(args, base)...)
				text[i] = fmt.Appendf(twinText(out, name), "[exit %d]\n", code)
				out, _ = goldenRun(t, dir, append(args, "--format", "json", base)...)
				js[i] = twinJSON(t, out, name)
			}
			if !bytes.Equal(text[0], text[1]) {
				t.Errorf("the twins' plans differ\n--- %s\n%s\n--- %s\n%s", filepath.Base(file), text[0], filepath.Base(twin), text[1])
			}
			if !bytes.Equal(js[0], js[1]) {
				t.Errorf("the twins' JSON differs\n--- %s\n%s\n--- %s\n%s", filepath.Base(file), js[0], filepath.Base(twin), js[1])
			}
		})
	}
}

// twinPos matches where a diagnostic of a twin points, and twinQuote the
// lines that quote its source.
var (
	twinPos   = regexp.MustCompile(`\.(toml|hcl):\d+:\d+:`)
	twinQuote = regexp.MustCompile(`(?m)^ *\d* \| .*\n`)
)

// twinText is `cairn check` text output of process name with its file's
// name, positions and source quotes taken out.
func twinText(out []byte, name string) []byte {
	out = twinQuote.ReplaceAll(out, nil)
	out = twinPos.ReplaceAll(out, []byte(":"))
	out = bytes.ReplaceAll(out, []byte(name+".hcl"), []byte(name))
	return bytes.ReplaceAll(out, []byte(name+".toml"), []byte(name))
}

// twinJSON is `cairn check --format json` output of process name with its
// file's name and format taken out of the plans, and its diagnostics reduced
// to their rules, severities and messages, indented.
func twinJSON(t *testing.T, out []byte, name string) []byte {
	t.Helper()
	var doc struct {
		Diagnostics []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
		} `json:"diagnostics"`
		Plans []map[string]any `json:"plans"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("--format json printed invalid JSON: %v\n%s", err, out)
	}
	for _, p := range doc.Plans {
		delete(p, "file")
		delete(p, "format")
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(name+".hcl"), []byte(name))
	return bytes.ReplaceAll(b, []byte(name+".toml"), []byte(name))
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
