package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompiledScriptSaysWhatItNeeds: a compiled script run by a shell that
// is no bash 5.1 says so before it reads what such a shell cannot, and one
// missing a tool names it; on macOS (uname says Darwin), each says what to
// install with Homebrew.
func TestCompiledScriptSaysWhatItNeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gitRepo(t, dir)
	script := filepath.Join(dir, "single.sh")
	golden, err := filepath.Abs(filepath.Join(compileGoldenDir, "single.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := cairnIn(t, dir, "compile", "-o", script, golden); code != 0 {
		t.Fatalf("compile: exit %d\n%s", code, stderr)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	// bin: every command of the machine's /usr/bin and /bin but flock, and
	// darwin/uname, which says Darwin.
	bin, darwin := filepath.Join(dir, "bin"), filepath.Join(dir, "darwin")
	for _, d := range []string{bin, darwin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, from := range []string{"/usr/bin", "/bin"} {
		entries, _ := os.ReadDir(from)
		for _, e := range entries {
			if e.Name() == "flock" {
				continue
			}
			_ = os.Symlink(filepath.Join(from, e.Name()), filepath.Join(bin, e.Name()))
		}
	}
	writeFiles(t, darwin, map[string]string{"uname": "#!/bin/sh\necho Darwin\n"})
	if err := os.Chmod(filepath.Join(darwin, "uname"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, shell, path, want string
	}{
		{"sh", sh, os.Getenv("PATH"), "cairn: error: bash (none) is too old: the script needs bash 5.1 or later; run it with bash 5.1 or later\n"},
		{"sh on macOS", sh, darwin + ":" + os.Getenv("PATH"), `cairn: error: bash (none) is too old: the script needs bash 5.1 or later; on macOS: brew install bash, then run it with "$(brew --prefix)/bin/bash" SCRIPT` + "\n"},
		{"no flock", bash, bin, "cairn: error: \"flock\" not found on PATH: the script needs git, coreutils, util-linux and jq\n"},
		{"no flock on macOS", bash, darwin + ":" + bin, `on macOS: brew install coreutils flock util-linux jq, and put "$(brew --prefix)/opt/coreutils/libexec/gnubin" and "$(brew --prefix)/opt/util-linux/bin" first on PATH`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(tc.shell, script)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + tc.path, "HOME=" + dir, "CAIRN_HOME=" + filepath.Join(dir, "home")}
			out, err := cmd.CombinedOutput()
			exit, ok := err.(*exec.ExitError)
			if !ok || exit.ExitCode() != 1 {
				t.Fatalf("%s single.sh: %v; want exit 1\n%s", tc.name, err, out)
			}
			if !strings.HasSuffix(tc.want, "\n") && strings.Contains(string(out), tc.want) || string(out) == tc.want {
				return
			}
			t.Errorf("%s single.sh said\n%s\nwant\n%s", tc.name, out, tc.want)
		})
	}
}
