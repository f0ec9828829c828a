// Package testrepo makes the git repositories tests work in, with one git
// identity and configuration that a test binary sets once, so that its
// tests may run in parallel. Only tests import it.
package testrepo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// Env is the git identity and configuration of every test's git: the
// machine's own configuration is left out.
var Env = map[string]string{
	"GIT_AUTHOR_NAME":     "Test",
	"GIT_AUTHOR_EMAIL":    "test@example.com",
	"GIT_COMMITTER_NAME":  "Test",
	"GIT_COMMITTER_EMAIL": "test@example.com",
	"GIT_CONFIG_GLOBAL":   os.DevNull,
	"GIT_CONFIG_NOSYSTEM": "1",
}

// Main is a test binary's TestMain: it sets Env in the process's
// environment, once, before any test runs, then runs the tests and exits.
// The run fails if a test wrote to the unset keys that every ir.Action,
// ir.Step or ir.Phase without any shares (their Keys): they are for reading
// only.
func Main(m *testing.M) {
	for k, v := range Env {
		os.Setenv(k, v)
	}
	code := m.Run()
	if !reflect.ValueOf(*new(ir.Action).Keys()).IsZero() || !reflect.ValueOf(*new(ir.Step).Keys()).IsZero() ||
		!reflect.ValueOf(*new(ir.Phase).Keys()).IsZero() {
		fmt.Fprintln(os.Stderr, "testrepo: a test wrote to the shared unset keys of actions, steps or phases (ir.Action.Keys, ir.Step.Keys, ir.Phase.Keys); fill them with Fill")
		code = 1
	}
	os.Exit(code)
}

// Binary is a file git treats as binary: it holds NUL bytes.
var Binary = []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 3, 0, 0xff, 0xfe, '\n', 0}

// New makes a small repository on branch main, with a text file, a binary
// file (Binary) and a folder committed, and returns its root and git
// common dir.
func New(t testing.TB) (root, commonDir string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "repo")
	Git(t, "", "init", "-q", "-b", "main", root)
	Write(t, filepath.Join(root, "README.md"), "hello\n")
	Write(t, filepath.Join(root, "src", "main.go"), "package main\n")
	Write(t, filepath.Join(root, "logo.bin"), string(Binary))
	Write(t, filepath.Join(root, "old.txt"), "to be deleted\n")
	Git(t, root, "add", "-A")
	Git(t, root, "commit", "-q", "-m", "first")
	common, err := filepath.EvalSymlinks(filepath.Join(root, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	return root, common
}

// Origin gives the repository at root the remote origin at url, which git
// is told to find (url.insteadOf) in a new bare repository, and pushes and
// fetches main there. It returns the bare repository's path.
func Origin(t testing.TB, root, url string) string {
	t.Helper()
	origin := filepath.Join(t.TempDir(), "origin.git")
	Git(t, "", "init", "-q", "--bare", "-b", "main", origin)
	Git(t, root, "remote", "add", "origin", url)
	Git(t, root, "config", "url."+origin+".insteadOf", url)
	Git(t, root, "push", "-q", "origin", "main")
	Git(t, root, "fetch", "-q", "origin")
	return origin
}

// Git runs git in dir ("" for the current folder) and returns its trimmed
// output, failing the test when git fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	out, err := exec.Command("git", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes content to path, making its folder.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
