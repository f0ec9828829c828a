package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cairn-dev/cairn/internal/fakegh"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"cairn": main, "gh": fakegh.Main})
}

// scriptCmds are the commands scripts may use besides testscript's own; test
// files add theirs in init.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"indent-json": indentJSON,
}

// scriptSetups run, in order, after the environment is set for each script;
// test files add theirs in init.
var scriptSetups []func(e *testscript.Env) error

// TestScripts runs the scripts of testdata/script against the cairn binary,
// each in a fresh folder with real git.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Cmds:                scriptCmds,
		Setup: func(e *testscript.Env) error {
			for k, v := range testEnv(t, e.WorkDir) {
				e.Setenv(k, v)
			}
			for _, setup := range scriptSetups {
				if err := setup(e); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

// testEnv is the environment cairn runs in under test: git's identity and
// no user or system git config, CAIRN_HOME=home (relative, so printed paths
// are stable), no colour setting, and a PATH of $WORK/bin (for fake agent
// CLIs), cairn and git only, so that no real agent CLI is found.
func testEnv(t *testing.T, work string) map[string]string {
	t.Helper()
	cairn, err := exec.LookPath("cairn")
	if err != nil {
		t.Fatalf("cairn is not on PATH: %v", err)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is not on PATH: %v", err)
	}
	path := []string{filepath.Join(work, "bin"), filepath.Dir(cairn), filepath.Dir(git)}
	return map[string]string{
		"PATH":       strings.Join(path, string(os.PathListSeparator)),
		"HOME":       work,
		"CAIRN_HOME": "home",
		"NO_COLOR":   "",
		// A race-built fake gh would sleep a second at each exit.
		"GORACE": "atexit_sleep_ms=0",
		// Gemini CLI has no login status command: cairn reads its key
		// variable, which the fake gemini does not need.
		"GEMINI_API_KEY":      "cairn-test-key",
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL":   os.DevNull,
		"GIT_AUTHOR_NAME":     "Cairn Test",
		"GIT_AUTHOR_EMAIL":    "test@cairn.invalid",
		"GIT_COMMITTER_NAME":  "Cairn Test",
		"GIT_COMMITTER_EMAIL": "test@cairn.invalid",
		"GIT_AUTHOR_DATE":     "2026-01-01T00:00:00Z",
		"GIT_COMMITTER_DATE":  "2026-01-01T00:00:00Z",
	}
}

// indentJSON is the script command "indent-json FILE": it rewrites FILE's JSON
// indented, so that a script can compare cairn's compact JSON (it writes JSON
// compact to a pipe) with a readable expected file.
func indentJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: indent-json FILE")
	}
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(ts.ReadFile(args[0])), "", "  "); err != nil {
		ts.Fatalf("%s is not JSON: %v", args[0], err)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b.Bytes(), 0o644))
}
