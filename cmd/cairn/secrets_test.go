package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// printedEnv is a line of what `env` prints in a step's shell.
var printedEnv = regexp.MustCompile(`(?m)^CAIRN_STEP=`)

// secretsProcess is a session step whose precheck and validate shells print
// their environment, then a command that prints its own and the key its
// step's env sets.
const secretsProcess = `version = 1

[[steps]]
name = "ask"
prompt = "Say hello."
harness = "claude"

[steps.precheck]
shells = ["env"]

[steps.validate]
shells = ["env"]

[[steps]]
name = "after"
command = 'env; echo "the step key: $OPENROUTER_API_KEY"'
env = { OPENROUTER_API_KEY = "written-in-the-process" }
`

// agentKeys are the keys the user's environment holds in
// TestShellsSeeNoAgentKey, besides testEnv's GEMINI_API_KEY, and the
// workflow's secrets.
var agentKeys = map[string]string{
	"ANTHROPIC_API_KEY":       "sk-ant-cairn-secret-1",
	"OPENAI_API_KEY":          "sk-openai-cairn-secret-2",
	"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-cairn-secret-3",
}

// TestShellsSeeNoAgentKey runs secretsProcess with agent keys in the user's
// environment through `cairn run`, the compiled script and (where act is
// installed) the compiled workflow given them as secrets: the shells print
// their environment, which the run folder keeps (and a workflow uploads),
// and no file of the run folder holds a key; the session's CLI got its key;
// a key the step's own env sets reaches its shell as written.
func TestShellsSeeNoAgentKey(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "secrets.toml")
	writeFiles(t, filepath.Dir(file), map[string]string{"secrets.toml": secretsProcess})
	var keys, secrets []string
	// testEnv's GEMINI_API_KEY is a key too, in the environment alone.
	values := []string{"cairn-test-key"}
	for k, v := range agentKeys {
		keys = append(keys, k+"="+v)
		secrets = append(secrets, "--secret", k+"="+v)
		values = append(values, v)
	}
	for _, target := range []string{"run", "script", "workflow"} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			w := newCompileWork(t, file)
			writeFiles(t, w.work, map[string]string{
				// What the session's CLI was given, kept outside the run folder.
				"answers/claude.ask.do": `printf '%s\n' "${ANTHROPIC_API_KEY-none}" "${CLAUDE_CODE_OAUTH_TOKEN-none}" >"$FAKE_ANSWERS/../session-key"` + "\n",
			})
			// runDir is the run folder; kept, what the run keeps: the
			// run folder, or every artifact the workflow kept.
			var runDir, kept string
			switch target {
			case "run":
				_, stderr, code := w.run(t, keys, "cairn", "run", "secrets.toml")
				if code != 0 {
					t.Fatalf("cairn run: exit %d\n%s", code, stderr)
				}
				runDir = w.onlyRun(t)
				kept = runDir
			case "script":
				w.compile(t, file)
				_, stderr, code := w.run(t, keys, "bash", filepath.Join(w.work, "secrets.sh"))
				if code != 0 {
					t.Fatalf("the script: exit %d\n%s", code, stderr)
				}
				runDir = w.onlyRun(t)
				kept = runDir
			case "workflow":
				act, standIns := lookAct(t)
				art, out, errOut, code := w.act(t, act, standIns, file, secrets...)
				if code != 0 {
					t.Fatalf("act: exit %d\n%s\n%s", code, errOut, out)
				}
				runDir, kept = filepath.Join(art, "cairn-run"), art
			}
			holdsNoKey(t, kept, values)
			for _, shell := range []string{"shells/ask.precheck.1.stdout", "shells/ask.validate.1.stdout", "results/after.md"} {
				b, err := os.ReadFile(filepath.Join(runDir, shell))
				if err != nil {
					t.Fatal(err)
				}
				if !printedEnv.Match(b) {
					t.Errorf("%s: the shell did not print its environment:\n%s", shell, b)
				}
			}
			if b, err := os.ReadFile(filepath.Join(runDir, "results", "after.md")); err != nil || !strings.Contains(string(b), "the step key: written-in-the-process\n") {
				t.Errorf("results/after.md: the key the step's env sets did not reach its shell (%v):\n%s", err, b)
			}
			b, err := os.ReadFile(filepath.Join(w.work, "session-key"))
			if err != nil {
				t.Fatalf("the session did not run: %v", err)
			}
			// Both of claude's: an API key, and a subscription's token
			// (a workflow's secret CLAUDE_CODE_OAUTH_TOKEN).
			if got, want := string(b), agentKeys["ANTHROPIC_API_KEY"]+"\n"+agentKeys["CLAUDE_CODE_OAUTH_TOKEN"]+"\n"; got != want {
				t.Errorf("the session's CLI read ANTHROPIC_API_KEY and CLAUDE_CODE_OAUTH_TOKEN\n%s\nwant the user's\n%s", got, want)
			}
		})
	}
}

// holdsNoKey reports every file under dir that holds one of values.
func holdsNoKey(t *testing.T, dir string, values []string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for _, v := range values {
			if strings.Contains(string(b), v) {
				rel, _ := filepath.Rel(dir, path)
				t.Errorf("%s holds the key %q", rel, v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Errorf("%s holds no file", dir)
	}
}
