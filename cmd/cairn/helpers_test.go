package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// writeFiles writes files (relative path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitRepo makes dir a git repository on branch main with everything in it
// committed.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "--allow-empty", "-m", "init"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = environ(t, dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// environ is the environment of cairn and git under test (testEnv) as a
// list.
func environ(t *testing.T, dir string) []string {
	t.Helper()
	var env []string
	for k, v := range testEnv(t, dir) {
		env = append(env, k+"="+v)
	}
	return env
}

// cairnIn runs the cairn binary with args in dir and returns its stdout,
// stderr and exit code.
func cairnIn(t *testing.T, dir string, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	cmd := exec.Command("cairn", args...)
	cmd.Dir = dir
	cmd.Env = environ(t, dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("cairn %v: %v", args, err)
	}
	return out.Bytes(), errb.Bytes(), code
}
