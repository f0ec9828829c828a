package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// actionRepo is the repository of the Action: action.yml at its root.
var actionRepo = filepath.Join("..", "..")

// actionWorkflow uses the Action as a user's workflow does, twice: its
// annotations, which fail the step (so it goes on with continue-on-error),
// and a SARIF file that fails nothing.
const actionWorkflow = `name: lint
on: workflow_dispatch
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - id: annotate
        uses: cairn-dev/cairn@v1
        continue-on-error: true
        with:
          version: 1.0.0
          download-url: URL
      - id: sarif
        uses: cairn-dev/cairn@v1
        with:
          version: v1.0.0
          download-url: URL
          format: sarif
          sarif-file: out/cairn.sarif
          fail: "false"
      - name: Say what the Action did
        env:
          ANNOTATE: ${{ steps.annotate.outcome }}
          VERSION: ${{ steps.annotate.outputs.version }}
          SARIF: ${{ steps.sarif.outputs.sarif-file }}
        run: |
          echo "annotate=$ANNOTATE version=$VERSION"
          echo "sarif-file=$SARIF"
          cp "$SARIF" "$ACTION_OUT"
`

// TestActionDifferential runs the repository's Action (action.yml) under
// act in a user's workflow, installing cairn from a release served on this
// machine (GitHub's release layout: download/vX/cairn_linux_amd64.tar.gz
// and checksums.txt), and holds what it reports to `cairn check` of the
// same files run directly: the same annotations, the same SARIF. A release
// whose archive does not match its checksums installs nothing and fails
// the step, saying so.
func TestActionDifferential(t *testing.T) {
	slowSuite(t)
	act, _ := lookAct(t)
	cairn, err := exec.LookPath("cairn")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	release := filepath.Join(work, "release")
	archive := tarGz(t, cairn)
	serveRelease(t, release, "v1.0.0", archive, archive)
	serveRelease(t, release, "v1.0.1", archive, append(slices.Clone(archive), 0))
	srv := httptest.NewServer(http.FileServer(http.Dir(release)))
	defer srv.Close()

	repo := filepath.Join(work, "repo")
	files := map[string]string{
		".cairn/processes/bad.toml":  "version = 1\n[[steps]]\nname = \"a\"\ncommand = \"if true; then\"\n",
		".cairn/processes/good.toml": "version = 1\n[[steps]]\nname = \"a\"\ncommand = \"true\"\n",
		".cairn/processes/ask.toml":  "version = 1\n[[steps]]\nname = \"ask\"\nprompt = \"hi\"\nharness = \"codex\"\n",
		"docs.procedure.card":        "---\nsteps:\n  - id: Bad Name\n    run:\n      shells: [\"true\"]\n---\n",
		".github/workflows/lint.yml": strings.ReplaceAll(actionWorkflow, "URL", srv.URL),
	}
	writeFiles(t, repo, files)
	gitRepo(t, repo)
	if actionlint, err := exec.LookPath("actionlint"); err == nil {
		cmd := exec.Command(actionlint, "-no-color", ".github/workflows/lint.yml")
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("actionlint finds fault with the README's use of the Action: %v\n%s", err, out)
		}
	}
	targets := []string{".cairn/processes/ask.toml", ".cairn/processes/bad.toml", ".cairn/processes/good.toml", "docs.procedure.card"}

	sarifOut := filepath.Join(work, "action.sarif")
	run := func(workflow string) (events []map[string]any, log string, code int) {
		cmd := exec.Command(act, "workflow_dispatch", "-W", workflow, "-P", "ubuntu-latest=-self-hosted",
			"--no-cache-server", "--json", "--env", "ACTION_OUT="+sarifOut,
			"--local-repository", "cairn-dev/cairn@v1="+mustAbs(t, actionRepo))
		cmd.Dir = repo
		// act keeps its cache under HOME: not in the repository it copies.
		env := append(environ(t, repo), "HOME="+filepath.Join(work, "home"))
		cmd.Env = append(env, "PATH="+actPath(env, act))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("act: %v", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var e map[string]any
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				events = append(events, e)
			}
		}
		return events, out.String(), code
	}

	events, log, code := run(".github/workflows/lint.yml")
	if code != 0 {
		t.Errorf("act: exit %d; want 0 (the annotating step may fail, the job goes on)", code)
	}
	var annotations []string
	for _, e := range events {
		if c, _ := e["command"].(string); (c == "error" || c == "warning" || c == "notice") && e["stepID"] != nil {
			if raw, _ := e["raw"].(string); strings.HasPrefix(raw, "::") {
				annotations = append(annotations, strings.TrimSuffix(raw, "\n"))
			}
		}
	}
	// cairn check itself, on the files the Action found, asking no harness.
	want, _, wantCode := cairnIn(t, repo, append([]string{"check", "--format", "github", "--no-preflight"}, targets...)...)
	if wantCode != 1 {
		t.Fatalf("cairn check: exit %d; want 1 (bad.toml and the card are refused)", wantCode)
	}
	if got := strings.Join(annotations, "\n") + "\n"; got != string(want) {
		t.Errorf("the Action annotated\n%s\nwant what cairn check --format github says\n%s", got, want)
	}
	if !strings.Contains(log, "annotate=failure version=cairn ") {
		t.Errorf("the annotating step did not fail with the version installed")
	}
	if !strings.Contains(log, "sarif-file=out/cairn.sarif") {
		t.Errorf("the SARIF step did not name its file")
	}
	wantSarif, _, _ := cairnIn(t, repo, append([]string{"check", "--format", "sarif", "--no-preflight"}, targets...)...)
	if got, err := os.ReadFile(sarifOut); err != nil || !bytes.Equal(got, wantSarif) {
		t.Errorf("the Action's SARIF (%v):\n%s\nwant cairn check's:\n%s", err, got, wantSarif)
	}

	// A release whose archive is not the one its checksums name.
	if t.Failed() {
		t.Logf("act's log:\n%s", log)
	}
	writeFiles(t, repo, map[string]string{".github/workflows/tampered.yml": strings.ReplaceAll(strings.ReplaceAll(files[".github/workflows/lint.yml"],
		"continue-on-error: true", "continue-on-error: false"), "1.0.0", "1.0.1")})
	events, log, code = run(".github/workflows/tampered.yml")
	if code == 0 {
		t.Errorf("act: exit 0 with a tampered archive; want the job to fail")
	}
	said := false
	for _, e := range events {
		if raw, _ := e["raw"].(string); strings.Contains(raw, "cairn_linux_amd64.tar.gz from ") && strings.Contains(raw, "but checksums.txt says") {
			said = true
		}
	}
	if !said || strings.Contains(log, "installed cairn") {
		t.Errorf("a tampered archive was not refused, or was installed anyway")
	}
	if t.Failed() {
		t.Logf("act's log:\n%s", log)
	}
}

// tarGz is a gzipped tar of the file at path, as the release's cairn.
func tarGz(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path) // the executable, through any link
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: "cairn", Mode: 0o755, Size: fi.Size(), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(tw, f); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// serveRelease lays out release tag under dir as GitHub serves it: the
// archive served, and checksums.txt naming the SHA-256 of summed.
func serveRelease(t *testing.T, dir, tag string, served, summed []byte) {
	t.Helper()
	sum := sha256.Sum256(summed)
	writeFiles(t, filepath.Join(dir, "download", tag), map[string]string{
		"cairn_linux_amd64.tar.gz": string(served),
		"checksums.txt":            fmt.Sprintf("%s  cairn_darwin_arm64.tar.gz\n%s  cairn_linux_amd64.tar.gz\n", strings.Repeat("0", 64), hex.EncodeToString(sum[:])),
	})
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestReleaseNamesWhatTheActionReads holds .goreleaser.yaml to what the
// Action's install.sh downloads: archives named cairn_OS_ARCH (zip on
// Windows), their sums in checksums.txt, the version stamped where
// cairn --version reads it, and a static build.
func TestReleaseNamesWhatTheActionReads(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join(actionRepo, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Builds []struct {
			Main    string   `yaml:"main"`
			Env     []string `yaml:"env"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
		Archives []struct {
			NameTemplate string `yaml:"name_template"`
			Formats      []string
			Overrides    []struct {
				Goos    string   `yaml:"goos"`
				Formats []string `yaml:"formats"`
			} `yaml:"format_overrides"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(src, &cfg); err != nil {
		t.Fatal(err)
	}
	install, err := os.ReadFile(filepath.Join(actionRepo, ".github", "action", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Builds) != 1 || cfg.Builds[0].Main != "./cmd/cairn" || !slices.Contains(cfg.Builds[0].Env, "CGO_ENABLED=0") ||
		!strings.Contains(strings.Join(cfg.Builds[0].Ldflags, " "), "-X main.stampedVersion=v{{ .Version }}") {
		t.Errorf("builds %+v; want one static build of ./cmd/cairn stamping main.stampedVersion", cfg.Builds)
	}
	if stampedVersion != "" {
		t.Errorf("a test build is stamped %q", stampedVersion)
	}
	if len(cfg.Archives) != 1 || cfg.Archives[0].NameTemplate != "cairn_{{ .Os }}_{{ .Arch }}" ||
		len(cfg.Archives[0].Overrides) != 1 || cfg.Archives[0].Overrides[0].Goos != "windows" || !slices.Equal(cfg.Archives[0].Overrides[0].Formats, []string{"zip"}) {
		t.Errorf("archives %+v; want cairn_{{ .Os }}_{{ .Arch }}, zip on windows", cfg.Archives)
	}
	for _, want := range []string{"archive=cairn_${os}_${arch}.tar.gz", "archive=cairn_${os}_${arch}.zip", "get checksums.txt checksums.txt"} {
		if !strings.Contains(string(install), want) {
			t.Errorf("install.sh does not say %q", want)
		}
	}
	if cfg.Checksum.NameTemplate != "checksums.txt" {
		t.Errorf("checksum name %q; want checksums.txt", cfg.Checksum.NameTemplate)
	}
}
