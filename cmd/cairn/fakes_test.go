package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/rogpeppe/go-internal/testscript"
)

// fakesDir holds the fake agent CLIs (testdata/fakes/fake.bash says what
// they record and how they answer).
var fakesDir = filepath.Join("testdata", "fakes")

// fakeNames are the fakes a script may ask for.
var fakeNames = []string{"claude", "codex", "gemini", "opencode"}

func init() {
	scriptCmds["fakes"] = installFakes
	scriptSetups = append(scriptSetups, func(e *testscript.Env) error {
		e.Setenv("FAKE_LOG", filepath.Join(e.WorkDir, "fakelog"))
		e.Setenv("FAKE_ANSWERS", filepath.Join(e.WorkDir, "answers"))
		return nil
	})
}

// installFakes is the script command "fakes NAME...": it puts the named fake
// agent CLIs in $WORK/bin, which is on the scripts' PATH. Each call of a
// fake is then recorded in $WORK/fakelog/NAME.N/{argv,stdin,cwd,env}; a
// session answers with $WORK/answers/NAME.STEP.N (its Nth session in the
// step), $WORK/answers/NAME.STEP or $WORK/answers/NAME ("@max-turns" makes
// claude stop at its turn cap), after running $WORK/answers/NAME.STEP.N.do
// or NAME.STEP.do with bash in its folder, when there is one (its edits);
// `env FAKE_FAIL=NAME` makes it fail as the real CLI fails without
// credentials, `env FAKE_LOGGED_OUT=NAME` makes its login status command say
// it is not logged in (gemini has none: `env GEMINI_API_KEY=` does that),
// `env FAKE_SLEEP=SECONDS` makes it slow.
func installFakes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: fakes NAME... (of %v)", fakeNames)
	}
	bin := ts.MkAbs("bin")
	ts.Check(os.MkdirAll(bin, 0o755))
	ts.Check(copyFake(filepath.Join(fakesDir, "fake.bash"), filepath.Join(bin, "fake.bash"), 0o644))
	for _, name := range args {
		if !slices.Contains(fakeNames, name) {
			ts.Fatalf("no fake %q (of %v)", name, fakeNames)
		}
		ts.Check(copyFake(filepath.Join(fakesDir, name), filepath.Join(bin, name), 0o755))
	}
}

// copyFake copies a fake to dst with the given mode.
func copyFake(src, dst string, mode os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, b, mode); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

// TestFakesTakeCairnsArgv runs each fake with the command cairn builds for
// it (argv, variables and files), at every effort and access level, and
// with a flag its real CLI does not know: the fakes must take the one and
// refuse the other, or they have drifted from cairn (or cairn from the real
// CLIs, whose flags the fakes list).
func TestFakesTakeCairnsArgv(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	models := map[string]string{"claude": "opus", "codex": "gpt-5-codex", "gemini": "gemini-2.5-pro", "opencode": "anthropic/claude-sonnet-4-5"}
	reg := harness.NewRegistry(nil)
	for _, name := range fakeNames {
		h, _ := reg.Lookup(name)
		for _, effort := range append([]string{""}, ir.Efforts...) {
			for _, access := range ir.Accesses {
				inv := harness.Invocation{
					Prompt: "Say hello.", Model: models[name], Effort: effort, Access: access, MaxTurns: 20,
					Worktree: repo, OutputFile: filepath.Join(t.TempDir(), "last.md"), FilesDir: t.TempDir(),
				}
				cmd := fakeCommand(t, h, inv)
				if code, stderr := runFake(t, h, cmd, inv.Prompt, repo); code != 0 {
					t.Errorf("%s refused cairn's command %q (env %q): exit %d: %s", name, cmd.Argv, cmd.Env, code, stderr)
				}
				bad := cmd
				bad.Argv = append(slices.Clone(cmd.Argv), "--no-such-flag")
				if code, _ := runFake(t, h, bad, inv.Prompt, repo); code != 2 {
					t.Errorf("%s took an unknown flag: exit %d; want 2", name, code)
				}
				if !h.CanResume() {
					continue
				}
				inv.Resume = fakeSessions[name]
				cmd = fakeCommand(t, h, inv)
				if code, stderr := runFake(t, h, cmd, inv.Prompt, repo); code != 0 {
					t.Errorf("%s refused cairn's argv resuming its session %q: exit %d: %s", name, cmd.Argv, code, stderr)
				}
			}
		}
	}
}

// TestFakesTakeOutputSchema: the fakes of the CLIs that take a session's
// output schema (claude --json-schema, codex exec --output-schema) take
// cairn's command with one, fresh and resumed, and refuse what the real
// CLIs refuse: a schema that is no JSON, codex's flag before exec; the
// others refuse both flags, which their real CLIs do not know.
func TestFakesTakeOutputSchema(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	const schema = `{"type":"object"}`
	reg := harness.NewRegistry(nil)
	for _, name := range fakeNames {
		h, _ := reg.Lookup(name)
		inv := harness.Invocation{Prompt: "Say hello.", Access: ir.AccessRead, Worktree: repo,
			OutputFile: filepath.Join(t.TempDir(), "last.md"), FilesDir: t.TempDir(), OutputSchema: schema}
		cmd := fakeCommand(t, h, inv)
		if !h.TakesOutputSchema() {
			for _, flag := range []string{"--json-schema", "--output-schema"} {
				bad := cmd
				bad.Argv = append(slices.Clone(cmd.Argv), flag, schema)
				if code, _ := runFake(t, h, bad, inv.Prompt, repo); code != 2 {
					t.Errorf("%s took %s: exit %d; want 2", name, flag, code)
				}
			}
			continue
		}
		if code, stderr := runFake(t, h, cmd, inv.Prompt, repo); code != 0 {
			t.Errorf("%s refused cairn's command with an output schema %q: exit %d: %s", name, cmd.Argv, code, stderr)
		}
		inv.Resume = fakeSessions[name]
		if code, stderr := runFake(t, h, fakeCommand(t, h, inv), inv.Prompt, repo); code != 0 {
			t.Errorf("%s refused cairn's resumed command with an output schema: exit %d: %s", name, code, stderr)
		}
		bad := cmd
		switch name {
		case "claude":
			bad.Argv = append(slices.Clone(cmd.Argv), "--json-schema", "notjson")
			if code, stderr := runFake(t, h, bad, inv.Prompt, repo); code != 1 || !strings.Contains(stderr, "--json-schema is not valid JSON") {
				t.Errorf("claude took a schema that is no JSON: exit %d: %s", code, stderr)
			}
		case "codex":
			bad.Argv = append([]string{"codex", "--output-schema", "x.json"}, cmd.Argv[1:]...)
			if code, _ := runFake(t, h, bad, inv.Prompt, repo); code != 2 {
				t.Errorf("codex took --output-schema before exec: exit %d; want 2", code)
			}
			bad.Argv = append(slices.Clone(cmd.Argv[:len(cmd.Argv)-1]), "--output-schema", filepath.Join(repo, "missing.json"), "-")
			if code, stderr := runFake(t, h, bad, inv.Prompt, repo); code != 1 || !strings.Contains(stderr, "Failed to read output schema file") {
				t.Errorf("codex took a missing schema file: exit %d: %s", code, stderr)
			}
		}
	}
}

// TestFakeClaudeAsRoot: as root, fake claude refuses bypassPermissions
// without IS_SANDBOX=1, as the real one does, and takes it with.
func TestFakeClaudeAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: Claude Code refuses bypassPermissions as root only")
	}
	repo := t.TempDir()
	h, _ := harness.NewRegistry(nil).Lookup("claude")
	cmd := fakeCommand(t, h, harness.Invocation{Prompt: "Say hello.", Access: ir.AccessFull, Worktree: repo})
	if code, stderr := runFake(t, h, cmd, "Say hello.", repo); code != 0 {
		t.Errorf("fake claude refused full access with %q: exit %d: %s", cmd.Env, code, stderr)
	}
	cmd.Env = slices.DeleteFunc(slices.Clone(cmd.Env), func(e string) bool { return strings.HasPrefix(e, "IS_SANDBOX=") })
	code, stderr := runFake(t, h, cmd, "Say hello.", repo)
	if want := "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("fake claude as root without IS_SANDBOX=1: exit %d: %s; want exit 1: %s", code, stderr, want)
	}
}

// fakeCommand is h's command for inv, with the files it names written.
func fakeCommand(t *testing.T, h *harness.Harness, inv harness.Invocation) harness.Command {
	t.Helper()
	cmd, err := h.Command(inv)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cmd.Files {
		if err := os.WriteFile(filepath.Join(inv.FilesDir, f.Name), []byte(f.Text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cmd
}

// fakeSessions are the session ids the fakes print, which a resumed
// session must name.
var fakeSessions = map[string]string{
	"claude":   "5ce51378-5456-4068-a083-5c62d20aebc2",
	"codex":    "01a22aa1-6da0-7af1-a00d-343d69711c63",
	"gemini":   "611e63cb-13f1-4783-846d-5abb9eb9d130",
	"opencode": "ses_dd55fbcc3ffeKBcZXhQxX5eBIg",
}

// runFake runs the fake of the command's argv[0] with the rest of its argv
// and its variables, as a session.
func runFake(t *testing.T, h *harness.Harness, c harness.Command, prompt, dir string) (int, string) {
	t.Helper()
	argv := c.Argv
	fake, err := filepath.Abs(filepath.Join(fakesDir, argv[0]))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{fake}, argv[1:]...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "FAKE_LOG=", "FAKE_ANSWERS=", "FAKE_FAIL=", "FAKE_LOGGED_OUT=", "FAKE_SLEEP=", "IS_SANDBOX="), c.Env...)
	cmd.Stdin = strings.NewReader(prompt)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stderr.String()
	}
	t.Fatalf("run fake %s: %v", argv[0], err)
	return -1, ""
}
