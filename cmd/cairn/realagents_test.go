package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
)

// realAgentsBin is the folder of the real agent CLIs that .ci/agents.sh
// installed under $CAIRN_REAL_AGENTS; the test skips when it is not set.
func realAgentsBin(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CAIRN_REAL_AGENTS")
	if dir == "" {
		t.Skip("CAIRN_REAL_AGENTS is not set: `.ci/agents.sh DIR` installs the real agent CLIs, then `CAIRN_REAL_AGENTS=DIR go test ./cmd/cairn -run RealAgents` runs this suite")
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	if fi, err := os.Stat(bin); err != nil || !fi.IsDir() {
		t.Fatalf("CAIRN_REAL_AGENTS=%s holds no node_modules/.bin: run .ci/agents.sh %s", dir, dir)
	}
	return bin
}

// cliRefusal matches what the CLIs print when they refuse their command
// line (commander, yargs, clap): an unknown or misused flag, or their help.
var cliRefusal = regexp.MustCompile(`(?i)unknown (option|argument)|unexpected argument|invalid value|argument missing|not enough arguments|allowed choices|usage:|\[boolean\]`)

// TestRealAgents runs the real agent CLIs (docs/design.md §11) with cairn's own argv, with
// no credentials and an empty HOME: each must accept the argv and fail the
// session with its own error, which Final must turn into a cause. Codex
// offline retries for minutes, so only its preflight is run.
func TestRealAgents(t *testing.T) {
	bin := realAgentsBin(t)
	path := []string{bin}
	for _, tool := range []string{"node", "git"} {
		if p, err := exec.LookPath(tool); err == nil {
			path = append(path, filepath.Dir(p))
		}
	}
	path = append(path, "/usr/local/bin", "/usr/bin", "/bin")
	home := t.TempDir()
	// Only what a CLI needs to start: no API key, no config of the user's.
	env := []string{
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"HOME=" + home,
		"TMPDIR=" + t.TempDir(),
		"LANG=C.UTF-8",
		"NO_COLOR=1",
	}
	t.Setenv("PATH", strings.Join(path, string(os.PathListSeparator)))
	t.Setenv("HOME", home)
	reg := harness.NewRegistry(nil)

	// Without credentials every CLI says it is not logged in; with the key
	// variable each reads (codex: CODEX_API_KEY, which cairn itself reads),
	// that it is. The status commands answer offline.
	for _, tc := range []struct {
		name, key string
	}{
		{"claude", "ANTHROPIC_API_KEY"},
		{"codex", "CODEX_API_KEY"},
		{"gemini", "GEMINI_API_KEY"},
		{"opencode", "ANTHROPIC_API_KEY"},
	} {
		h, _ := reg.Lookup(tc.name)
		for _, withKey := range []bool{false, true} {
			penv := env
			if withKey {
				penv = append(slices.Clone(env), tc.key+"=sk-cairn-test")
			}
			st := h.Preflight(context.Background(), harness.PreflightOptions{Env: penv})
			t.Logf("%s preflight (key %v): ok=%v %s; logged in %v: %s", tc.name, withKey, st.OK, st.Detail, fmtBool(st.LoggedIn), st.Login)
			if !st.OK {
				t.Errorf("preflight of %s: %s", tc.name, st.Detail)
			}
			if st.LoggedIn == nil || *st.LoggedIn != withKey {
				t.Errorf("preflight of %s with key %v: logged in %s (%s); want %v", tc.name, withKey, fmtBool(st.LoggedIn), st.Login, withKey)
			}
		}
	}

	for _, tc := range []struct {
		harness, model, effort string
		// resume is a session to resume, as a review retry does.
		resume string
	}{
		{"claude", "sonnet", "high", ""},
		{"claude", "sonnet", "high", "5ce51378-5456-4068-a083-5c62d20aebc2"},
		{"gemini", "gemini-2.5-pro", "", ""},
		{"gemini", "gemini-2.5-pro", "", "611e63cb-13f1-4783-846d-5abb9eb9d130"},
		{"opencode", "anthropic/claude-sonnet-4-5", "high", ""},
		{"opencode", "anthropic/claude-sonnet-4-5", "high", "ses_0123456789abcdefABCDEFGHIJ"},
	} {
		name := tc.harness
		if tc.resume != "" {
			name += "-resume"
		}
		for _, access := range ir.Accesses {
			t.Run(name+"/"+access, func(t *testing.T) {
				repo := t.TempDir()
				if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
					t.Fatalf("git init: %v\n%s", err, out)
				}
				h, _ := reg.Lookup(tc.harness)
				inv := harness.Invocation{
					Prompt:     "Say hello in one word.",
					Model:      tc.model,
					Effort:     tc.effort,
					Access:     access,
					MaxTurns:   3,
					Resume:     tc.resume,
					Worktree:   repo,
					OutputFile: filepath.Join(t.TempDir(), "last-message.md"),
				}
				inv.FilesDir = t.TempDir()
				c, err := h.Command(inv)
				if err != nil {
					t.Fatal(err)
				}
				argv := c.Argv
				for _, f := range c.Files {
					if err := os.WriteFile(filepath.Join(inv.FilesDir, f.Name), []byte(f.Text), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				var stdout, stderr bytes.Buffer
				p := &proc.Proc{
					Argv:    argv,
					Dir:     repo,
					Env:     append(slices.Clone(env), c.Env...),
					Stdout:  &stdout,
					Stderr:  &stderr,
					Timeout: 60 * time.Second,
					Grace:   time.Second,
				}
				p.Stdin = strings.NewReader(inv.Prompt)
				res, err := p.Run(context.Background())
				if err != nil {
					t.Fatalf("start %q: %v", argv, err)
				}
				message, cause, failed := h.Final(harness.Output{
					Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: res.ExitCode, OutputFile: inv.OutputFile,
				})
				t.Logf("argv %q\nexit %d\nstdout:\n%s\nstderr:\n%s\nfinal: message %q, cause %q, failed %v",
					argv, res.ExitCode, clipOutput(stdout.String()), clipOutput(stderr.String()), message, cause, failed)
				if res.TimedOut {
					t.Fatalf("%s did not fail within 60s without credentials", tc.harness)
				}
				if m := cliRefusal.FindString(stdout.String() + stderr.String()); m != "" {
					t.Errorf("%s refused cairn's argv (%q)", tc.harness, m)
				}
				if m := rootRefusal.FindString(stdout.String() + stderr.String()); m != "" {
					t.Errorf("%s refused cairn's access %s as root (%q)", tc.harness, access, m)
				}
				if res.ExitCode == 0 || !failed || cause == "" {
					t.Errorf("%s without credentials: exit %d, failed %v, cause %q; want a failure with a cause", tc.harness, res.ExitCode, failed, cause)
				}
			})
		}
	}
}

// rootRefusal matches what Claude Code prints when it refuses
// bypassPermissions as root without IS_SANDBOX=1.
var rootRefusal = regexp.MustCompile(`cannot be used with root/sudo privileges`)

// clipOutput keeps a test log readable: the first 40 lines of s.
func clipOutput(s string) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 40 {
		return strings.Join(lines[:40], "") + "…\n"
	}
	return s
}

// fmtBool words a true, false or unknown.
func fmtBool(b *bool) string {
	if b == nil {
		return "unknown"
	}
	return fmt.Sprint(*b)
}
