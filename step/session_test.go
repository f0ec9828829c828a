//go:build unix

package step

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/testwait"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/step/prompts"
)

// fakesDir holds the fake agent CLIs of cmd/cairn's end-to-end tests.
var fakesDir = filepath.Join("..", "cmd", "cairn", "testdata", "fakes")

// sessionFixture is a session step ready to run: a git worktree, a run
// folder, the fakes on the PATH of the step's environment, and their log
// and answers.
type sessionFixture struct {
	sc      *Context
	log     string
	answers string
}

func newSessionFixture(t *testing.T, step string) *sessionFixture {
	t.Helper()
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fake.bash", "claude", "codex", "gemini", "opencode"} {
		b, err := os.ReadFile(filepath.Join(fakesDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := &sessionFixture{log: filepath.Join(root, "fakelog"), answers: filepath.Join(root, "answers")}
	if err := os.MkdirAll(f.answers, 0o755); err != nil {
		t.Fatal(err)
	}
	base := proc.MergeEnv(os.Environ(), []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"FAKE_LOG=" + f.log,
		"FAKE_ANSWERS=" + f.answers,
		"FAKE_FAIL=",
		"FAKE_SLEEP=",
	}, nil)

	wt := filepath.Join(root, "worktree")
	if out, err := exec.Command("git", "init", "-q", wt).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	run := filepath.Join(root, "runs", "hunt_2026-01-01T000000Z")
	for _, d := range []string{"results", "traces"} {
		if err := os.MkdirAll(filepath.Join(run, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sc := &Context{
		RunDir:       run,
		ResultFile:   filepath.Join(run, "results", step+".md"),
		TraceFile:    filepath.Join(run, "traces", step+".jsonl"),
		Step:         &ir.PlanStep{Name: step},
		Worktree:     wt,
		WorktreeKind: "throwaway",
		Earlier:      []Earlier{{Step: "tests-pass", Path: filepath.Join(run, "results", "tests-pass.md")}},
		Directive:    "Only the parser.",
		Git:          git.New(base),
	}
	sc.Env = Env(base, sc, filepath.Join(run, "results"), nil)
	f.sc = sc
	return f
}

// setEnv sets one variable of the step's environment.
func (f *sessionFixture) setEnv(name, value string) {
	f.sc.Env = proc.MergeEnv(f.sc.Env, []string{name + "=" + value}, nil)
}

// read returns a file the fake recorded for its call n.
func (f *sessionFixture) read(t *testing.T, name string, n int, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.log, name+"."+strconv.Itoa(n), file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func session(harnessName, model, effort string, turns int) *ir.PlanAction {
	return &ir.PlanAction{
		Kind:     ir.Session,
		Prompt:   "Say hello.\n",
		Harness:  &ir.Setting{Value: harnessName, Source: ir.FromStep},
		Model:    &ir.Setting{Value: model, Source: ir.FromStep},
		Effort:   &ir.Setting{Value: effort, Source: ir.FromStep},
		MaxTurns: &ir.IntSetting{Value: turns, Source: ir.FromDefault},
	}
}

func TestRunSessionFakes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		harness, model, effort string
		// flags are argv items the fake must have been given.
		flags []string
		// failCause is the cause when FAKE_FAIL names the fake; failExit
		// its exit code.
		failCause string
		failExit  int
	}{
		{"claude", "opus", "high", []string{"--model\nopus\n", "--effort\nhigh\n", "--max-turns\n30\n"},
			"Not logged in · Please run /login", 1},
		{"codex", "gpt-5-codex", "max", []string{"-m\ngpt-5-codex\n", "-c\nmodel_reasoning_effort=xhigh\n", "--sandbox\nworkspace-write\n"},
			"unexpected status 401 Unauthorized: Missing bearer or basic authentication in header", 1},
		{"gemini", "gemini-2.5-pro", "", []string{"-m\ngemini-2.5-pro\n", "--approval-mode\nauto_edit\n"},
			"exit status 41: Please set an Auth method in your ", 41},
		{"opencode", "anthropic/claude-sonnet-4-5", "low", []string{"-m\nanthropic/claude-sonnet-4-5\n", "--variant\nminimal\n", "--format\njson\n"},
			"Unexpected server error. Check server logs for details.", 1},
	} {
		t.Run(tc.harness, func(t *testing.T) {
			t.Parallel()
			f := newSessionFixture(t, "hunt-"+tc.harness)
			h, _ := harness.NewRegistry(nil).Lookup(tc.harness)
			a := session(tc.harness, tc.model, tc.effort, 30)
			answer := "Found 2 bugs:\n1. parse/toml.go:88 \"off by one\"\n"
			if err := os.WriteFile(filepath.Join(f.answers, tc.harness+".hunt-"+tc.harness), []byte(answer), 0o644); err != nil {
				t.Fatal(err)
			}
			skill := filepath.Join(f.sc.Worktree, ".agents", "skills", "bug-hunt", "SKILL.md")

			r := RunSession(context.Background(), f.sc, a, h, skill)
			if r.Failed || r.ExitCode != 0 {
				t.Fatalf("RunSession failed: %+v", r)
			}
			if r.Result != strings.TrimSpace(answer) {
				t.Errorf("Result = %q; want %q", r.Result, answer)
			}
			want, err := prompts.SessionPrompt(sessionData(f.sc, a, skill))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"step `hunt-" + tc.harness + "` of the cairn process `hunt`", skill, "Only the parser.", "tests-pass.md", "Say hello."} {
				if !strings.Contains(want, s) {
					t.Errorf("prompt lacks %q:\n%s", s, want)
				}
			}
			argv := f.read(t, tc.harness, 1, "argv")
			for _, flag := range tc.flags {
				if !strings.Contains(argv, flag) {
					t.Errorf("argv lacks %q:\n%s", flag, argv)
				}
			}
			stdin := f.read(t, tc.harness, 1, "stdin")
			if stdin != want || strings.Contains(argv, want) {
				t.Errorf("the prompt is not on stdin alone:\nstdin %q\nargv %s", stdin, argv)
			}
			if cwd := strings.TrimSpace(f.read(t, tc.harness, 1, "cwd")); cwd != f.sc.Worktree {
				t.Errorf("cwd = %q; want %q", cwd, f.sc.Worktree)
			}
			if env := f.read(t, tc.harness, 1, "env"); !strings.Contains(env, "CAIRN_STEP=hunt-"+tc.harness+"\n") ||
				!strings.Contains(env, "CAIRN_WORKTREE="+f.sc.Worktree+"\n") {
				t.Errorf("env lacks the step's CAIRN_* variables:\n%s", env)
			}
			if r.Trace != f.sc.TraceFile {
				t.Errorf("Trace = %q; want %q", r.Trace, f.sc.TraceFile)
			}
			trace, err := os.ReadFile(f.sc.TraceFile)
			if err != nil || !strings.Contains(string(trace), "parse/toml.go:88") {
				t.Errorf("trace %v:\n%s", err, trace)
			}

			f.setEnv("FAKE_FAIL", tc.harness)
			r = RunSession(context.Background(), f.sc, a, h, skill)
			if !r.Failed || !strings.HasPrefix(r.Cause, tc.failCause) || r.ExitCode != tc.failExit {
				t.Errorf("with FAKE_FAIL: %+v; want cause %q, exit %d", r, tc.failCause, tc.failExit)
			}
			again, err := os.ReadFile(f.sc.TraceFile)
			if err != nil || len(again) <= len(trace) || !strings.HasPrefix(string(again), string(trace)) {
				t.Errorf("the second session's output is not appended to the trace:\n%s", again)
			}
		})
	}
}

func TestRunSessionTraceMarksStderr(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, "ask")
	f.setEnv("FAKE_FAIL", "gemini")
	h, _ := harness.NewRegistry(nil).Lookup("gemini")
	r := RunSession(context.Background(), f.sc, session("gemini", "", "", 20), h, "")
	if !r.Failed || r.ExitCode != 41 {
		t.Fatalf("RunSession: %+v", r)
	}
	trace, err := os.ReadFile(f.sc.TraceFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(trace), `{"stderr":"Please set an Auth method in your `) {
		t.Errorf("stderr is not marked in the trace:\n%s", trace)
	}
}

func TestRunSessionTimeout(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, "slow")
	// An hour: only the timeout can end the session while the test waits.
	f.setEnv("FAKE_SLEEP", "3600")
	f.sc.Timeout = 100 * time.Millisecond
	h, _ := harness.NewRegistry(nil).Lookup("claude")
	done := make(chan Result, 1)
	go func() { done <- RunSession(context.Background(), f.sc, session("claude", "", "", 20), h, "") }()
	select {
	case r := <-done:
		if !r.Failed || r.Cause != "timed out after 100ms" {
			t.Errorf("RunSession: %+v; want a timeout", r)
		}
	case <-testwait.After():
		t.Fatalf("the session with a 100ms timeout still ran after %s", testwait.Patience)
	}
}

func TestRunSessionCannotStart(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, "ask")
	f.setEnv("PATH", t.TempDir())
	h, _ := harness.NewRegistry(nil).Lookup("claude")
	r := RunSession(context.Background(), f.sc, session("claude", "", "", 20), h, "")
	if want := `harness "claude" cannot start: "claude" not found on PATH`; !r.Failed || r.Cause != want {
		t.Errorf("RunSession: %+v; want cause %q", r, want)
	}
}

// TestRunSessionRepositoryUnread: a claude session at write whose worktree
// git cannot read as a repository fails before its CLI starts, with a
// cause naming what it could not read, rather than run with a sandbox that
// keeps nothing of the repository.
func TestRunSessionRepositoryUnread(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, "ask")
	if err := os.RemoveAll(filepath.Join(f.sc.Worktree, ".git")); err != nil {
		t.Fatal(err)
	}
	f.sc.Git = f.sc.Git.With("GIT_CEILING_DIRECTORIES=" + filepath.Dir(f.sc.Worktree))
	h, _ := harness.NewRegistry(nil).Lookup("claude")
	a := session("claude", "", "", 20)
	a.Access = &ir.Setting{Value: ir.AccessWrite, Source: ir.FromStep}
	r := RunSession(context.Background(), f.sc, a, h, "")
	const want = `harness "claude": read the worktree's repository for its sandbox: git rev-parse`
	if !r.Failed || !strings.HasPrefix(r.Cause, want) || !strings.Contains(r.Cause, "not a git repository") {
		t.Errorf("RunSession: %+v; want a cause starting %q", r, want)
	}
	if _, err := os.Stat(filepath.Join(f.log, "claude.1")); err == nil {
		t.Errorf("claude started")
	}
}

// TestRunSessionRestoresCommondir: a commondir file a claude session at
// write made in its checkout's .git (which the sandbox cannot keep there)
// is removed as the session ends, and the session fails saying so.
func TestRunSessionRestoresCommondir(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, "ask")
	if err := os.WriteFile(filepath.Join(f.answers, "claude.ask.do"), []byte("echo /elsewhere > .git/commondir\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, _ := harness.NewRegistry(nil).Lookup("claude")
	a := session("claude", "", "", 20)
	a.Access = &ir.Setting{Value: ir.AccessWrite, Source: ir.FromStep}
	r := RunSession(context.Background(), f.sc, a, h, "")
	path := filepath.Join(f.sc.Worktree, ".git", "commondir")
	if want := "the session made " + path + ", which sends git to another repository; cairn removed it"; !r.Failed || r.Cause != want {
		t.Errorf("RunSession: %+v; want cause %q", r, want)
	}
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s is still there", path)
	}
}

// TestRunPromptLong: a prompt over Linux's 128 KiB limit on one argument
// reaches opencode whole, its quotes as written, on stdin; one over what a
// CLI takes whole on stdin (Gemini CLI cuts at 8 MiB) fails the session
// before its CLI starts.
func TestRunPromptLong(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, "judge")
	reg := harness.NewRegistry(nil)
	opencode, _ := reg.Lookup("opencode")
	prompt := strings.Repeat("+a line of the diff, with \"quotes\" and spaces\n", 4000) + `{"verdict": "pass", "reasoning": "why"}`
	if r := RunPrompt(context.Background(), f.sc, opencode, harness.Invocation{Prompt: prompt}); r.Failed {
		t.Fatalf("RunPrompt of %d bytes on opencode: %+v", len(prompt), r)
	}
	if stdin := f.read(t, "opencode", 1, "stdin"); stdin != prompt {
		t.Errorf("opencode read %d bytes on stdin; want the prompt's %d", len(stdin), len(prompt))
	}
	if argv := f.read(t, "opencode", 1, "argv"); strings.Contains(argv, "verdict") {
		t.Errorf("the prompt is in opencode's argv:\n%.200s", argv)
	}

	gemini, _ := reg.Lookup("gemini")
	max, _ := gemini.PromptLimit()
	r := RunPrompt(context.Background(), f.sc, gemini, harness.Invocation{Prompt: strings.Repeat("x", max+1)})
	want := `the prompt is 8388609 bytes, over the 8388608 harness "gemini" takes whole on stdin: put long content in a file and name it in the prompt`
	if !r.Failed || r.Cause != want || r.ExitCode != -1 {
		t.Errorf("RunPrompt over gemini's limit: failed %v, exit %d, cause %q; want cause %q", r.Failed, r.ExitCode, r.Cause, want)
	}
	if _, err := os.Stat(filepath.Join(f.log, "gemini.1")); err == nil {
		t.Errorf("gemini started for a prompt over its limit")
	}
}

func TestRunSessionCustom(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, "ask")
	cmd := []string{"bash", "-c", `cat; echo "model {{.Model}}"; [ -z "$BOT_FAIL" ] || { echo "bot: $BOT_FAIL" >&2; exit 3; }`}
	reg := harness.NewRegistry([]ir.CustomHarness{{Name: "bot", Command: cmd}})
	h, _ := reg.Lookup("bot")
	a := session("bot", "m1", "", 20)
	a.Prompt = ""
	r := RunSession(context.Background(), f.sc, a, h, "/skills/x/SKILL.md")
	if r.Failed || !strings.Contains(r.Result, "Read the skill file `/skills/x/SKILL.md`") || !strings.HasSuffix(r.Result, "model m1") {
		t.Errorf("RunSession: %+v", r)
	}
	f.setEnv("BOT_FAIL", "no model m1")
	r = RunSession(context.Background(), f.sc, a, h, "/skills/x/SKILL.md")
	if !r.Failed || r.Cause != "bot: no model m1" || r.ExitCode != 3 {
		t.Errorf("RunSession: %+v", r)
	}
}

// TestInvocation holds what a session's invocation takes from its plan
// action: the resolved model, effort, access and turn cap.
func TestInvocation(t *testing.T) {
	a := session("claude", "m1", "high", 7)
	a.Access = &ir.Setting{Value: ir.AccessRead, Source: ir.FromProcess}
	inv := Invocation(a, "p")
	if inv.Prompt != "p" || inv.Model != "m1" || inv.Effort != "high" || inv.Access != ir.AccessRead || inv.MaxTurns != 7 {
		t.Errorf("Invocation = %+v", inv)
	}
	if inv := Invocation(&ir.PlanAction{Kind: ir.Session}, "p"); inv.Access != "" {
		t.Errorf("an action with no access: Invocation = %+v", inv)
	}
}

// TestRunSessionAccess holds what each CLI is given at each access level:
// the argv and variables cairn sets over the step's environment, and the
// policy file gemini reads, written beside the trace and gone once the
// session ends.
func TestRunSessionAccess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		harness, access string
		// flags are argv items the fake must have been given, env lines
		// of its recorded environment, lacks what neither may hold.
		flags, env, lacks []string
		policy            string
	}{
		{"claude", "read", []string{"--permission-mode\ndontAsk\n"}, []string{"CLAUDE_CODE_MAX_RETRIES=4\n"}, []string{"IS_SANDBOX", "--allowedTools"}, ""},
		// The sandbox keeps the worktree's repository (here its own .git).
		{"claude", "write", []string{"--permission-mode\nacceptEdits\n--allowedTools=Bash\n--settings\n{\"sandbox\":{\"enabled\":true,\"autoAllowBashIfSandboxed\":true,\"filesystem\":{\"denyWrite\":[\"", "/worktree/.git/refs\",", "/worktree/.git/hooks\","}, []string{"CLAUDE_CODE_MAX_RETRIES=4\n"}, []string{"IS_SANDBOX"}, ""},
		{"claude", "full", []string{"--permission-mode\nbypassPermissions\n"}, []string{"CLAUDE_CODE_MAX_RETRIES=4\n", "IS_SANDBOX=1\n"}, nil, ""},
		{"codex", "read", []string{"--sandbox\nread-only\n-c\nallow_login_shell=false\n"}, nil, []string{"IS_SANDBOX"}, ""},
		{"codex", "full", []string{"--sandbox\ndanger-full-access\n"}, nil, nil, ""},
		{"gemini", "read", []string{"--approval-mode\ndefault\n--policy\n"}, nil, nil, `commandRegex = '(git (log|diff|status)|ls)(|[ ][-\w ./:=@^~,+%]*)"'`},
		{"gemini", "write", []string{"--approval-mode\nauto_edit\n--policy\n"}, nil, nil, `toolName = "run_shell_command"`},
		{"gemini", "full", []string{"--approval-mode\nyolo\n"}, nil, []string{"--policy"}, ""},
		{"opencode", "read", nil, []string{`OPENCODE_PERMISSION={"edit":"deny","bash":"deny","external_directory":"deny"}` + "\n"}, []string{"--auto"}, ""},
		{"opencode", "write", nil, []string{`OPENCODE_PERMISSION={"edit":"allow","bash":"allow","external_directory":"deny"}` + "\n"}, []string{"--auto"}, ""},
		{"opencode", "full", []string{"--auto\n"}, []string{`OPENCODE_PERMISSION={"*":"allow"}` + "\n"}, nil, ""},
	} {
		t.Run(tc.harness+"/"+tc.access, func(t *testing.T) {
			t.Parallel()
			f := newSessionFixture(t, "edit")
			// The user's own value is overridden, the rest inherited.
			f.setEnv("CLAUDE_CODE_MAX_RETRIES", "99")
			f.setEnv("IS_SANDBOX", "")
			h, _ := harness.NewRegistry(nil).Lookup(tc.harness)
			a := session(tc.harness, "", "", 20)
			a.Access = &ir.Setting{Value: tc.access, Source: ir.FromStep}
			if r := RunSession(context.Background(), f.sc, a, h, ""); r.Failed {
				t.Fatalf("RunSession: %+v", r)
			}
			argv, env := f.read(t, tc.harness, 1, "argv"), f.read(t, tc.harness, 1, "env")
			for _, flag := range tc.flags {
				if !strings.Contains(argv, flag) {
					t.Errorf("argv lacks %q:\n%s", flag, argv)
				}
			}
			for _, e := range tc.env {
				if !strings.Contains(env, e) {
					t.Errorf("env lacks %q:\n%s", e, env)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(argv, s) || strings.Contains(env, s+"=1") {
					t.Errorf("the session was given %q:\nargv:\n%s\nenv:\n%s", s, argv, env)
				}
			}
			if tc.harness == "claude" && tc.access != "full" && strings.Contains(env, "IS_SANDBOX=1") {
				t.Errorf("IS_SANDBOX=1 set at access %s", tc.access)
			}
			if !strings.Contains(env, "CAIRN_STEP=edit\n") {
				t.Errorf("the session did not inherit the step's environment:\n%s", env)
			}
			policy, err := os.ReadFile(filepath.Join(f.log, tc.harness+".1", "policy"))
			switch {
			case tc.policy == "" && err == nil:
				t.Errorf("gemini read a policy at access %s:\n%s", tc.access, policy)
			case tc.policy != "" && !strings.Contains(string(policy), tc.policy):
				t.Errorf("policy %v:\n%s\nwant it to hold %s", err, policy, tc.policy)
			}
			if tc.policy != "" {
				dir := strings.TrimSuffix(f.sc.TraceFile, ".jsonl") + ".files"
				if !strings.Contains(argv, "--policy\n"+dir+"/gemini-") {
					t.Errorf("the policy is not beside the trace (%s):\n%s", dir, argv)
				}
				if _, err := os.Stat(dir); err == nil {
					t.Errorf("%s is left after the session", dir)
				}
			}
		})
	}
}

// TestRunSessionTurnCap: codex and opencode have no turn cap of their own;
// cairn counts their turns as their events arrive and stops an endless
// session, its whole process group, once it starts a turn past max_turns.
func TestRunSessionTurnCap(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"codex", "opencode"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newSessionFixture(t, "loop")
			if err := os.WriteFile(filepath.Join(f.answers, name+".loop"), []byte("@max-turns\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// Long enough that only the cap can end the session in time.
			f.sc.Timeout = 5 * time.Minute
			h, _ := harness.NewRegistry(nil).Lookup(name)
			start := time.Now()
			r := RunSession(context.Background(), f.sc, session(name, "", "", 3), h, "")
			if !r.Failed || r.Cause != "stopped after 3 turns: max_turns is 3" || !r.Session.MaxTurns || r.TimedOut {
				t.Errorf("RunSession: %+v; want it stopped at its turn cap", r)
			}
			if d := time.Since(start); d > time.Minute {
				t.Errorf("the endless session took %s to stop", d)
			}
			trace, err := os.ReadFile(f.sc.TraceFile)
			if err != nil {
				t.Fatal(err)
			}
			turns := 0
			for line := range strings.Lines(string(trace)) {
				if strings.Contains(line, `"type":"item.started"`) || strings.Contains(line, `"type":"step_start"`) {
					turns++
				}
			}
			if turns < 4 {
				t.Errorf("the trace holds %d turns; want the 4th, which passed the cap, among them:\n%s", turns, trace)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(f.read(t, name, 1, "pid")))
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(pid, 0); err == nil {
				t.Errorf("the fake %s (pid %d) still runs after its session ended", name, pid)
			}
		})
	}
}

// TestRunSessionTurnCapNotReached: a session that answers within its cap
// is not stopped, and a CLI that enforces its own cap (claude) is not
// watched.
func TestRunSessionTurnCapNotReached(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"codex", "opencode", "claude"} {
		f := newSessionFixture(t, "ask")
		h, _ := harness.NewRegistry(nil).Lookup(name)
		if r := RunSession(context.Background(), f.sc, session(name, "", "", 1), h, ""); r.Failed || r.Session.MaxTurns {
			t.Errorf("%s: RunSession: %+v; want it to succeed", name, r)
		}
	}
}
