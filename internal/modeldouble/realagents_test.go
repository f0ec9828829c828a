package modeldouble

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/proc"
)

// The real-agent test drives each real CLI against the double, with the
// argv and environment that give it each access level (read, write,
// full), and logs what the CLI sent back: the evidence for the access
// mapping of the harnesses (issue 14), checked again with each pinned CLI.

// realAgentsBin is the folder of the real agent CLIs that .ci/agents.sh
// installed under $CAIRN_REAL_AGENTS; the test skips when it is not set.
func realAgentsBin(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CAIRN_REAL_AGENTS")
	if dir == "" {
		t.Skip("CAIRN_REAL_AGENTS is not set: `.ci/agents.sh DIR` installs the real agent CLIs, then `CAIRN_REAL_AGENTS=DIR go test ./internal/modeldouble -run RealAgents` runs this test")
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	if fi, err := os.Stat(bin); err != nil || !fi.IsDir() {
		t.Fatalf("CAIRN_REAL_AGENTS=%s holds no node_modules/.bin: run .ci/agents.sh %s", dir, dir)
	}
	return bin
}

// session is one run of a CLI against the double.
type session struct {
	access   string // read, write or full
	prompt   string
	dir      string // the worktree
	home     string // an empty HOME of the test's
	maxTurns int
	resume   string // a session id to resume
	output   string // a file for the final message (codex -o)
}

// agent is how to run one CLI against the double.
type agent struct {
	name string
	// env is what points the CLI at the double (and caps its retries);
	// it may write the CLI's settings into the session's home.
	env func(t *testing.T, d *Server, s session) []string
	// argv is the command line for the session.
	argv func(d *Server, s session) []string
	// stdin is whether the prompt goes on stdin (else it is in argv).
	stdin bool
	// result finds the final message and the session's id in what the
	// CLI printed (or in the -o file).
	result func(s session, stdout []byte) (message, id string)
	// confined is whether "write" confines commands' writes to the
	// worktree on this machine (a sandbox), so that a write outside fails.
	confined func() bool
	// noTurnLimit says why the CLI has no turn limit of its own, or is "".
	noTurnLimit string
}

// claudeSandbox is Claude Code's sandbox for Bash: bubblewrap confines the
// commands' writes to the working directory; autoAllowBashIfSandboxed
// runs sandboxed commands without asking.
const claudeSandbox = `{"sandbox":{"enabled":true,"autoAllowBashIfSandboxed":true}}`

// geminiWritePolicy lets Gemini CLI run any shell command without asking:
// in auto_edit mode the headless CLI otherwise withholds run_shell_command.
const geminiWritePolicy = "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"allow\"\npriority = 100\n"

// opencodePermission is opencode's permission config per access level.
var opencodePermission = map[string]string{
	"read":  `{"edit":"deny","bash":"deny","external_directory":"deny"}`,
	"write": `{"edit":"allow","bash":"allow","external_directory":"deny"}`,
	"full":  `{"*":"allow"}`,
}

var agents = []agent{
	{
		name: "claude",
		env: func(t *testing.T, d *Server, s session) []string {
			env := []string{
				"ANTHROPIC_BASE_URL=" + d.URL,
				"ANTHROPIC_API_KEY=sk-modeldouble",
				// Without it a 429 is retried for minutes.
				"CLAUDE_CODE_MAX_RETRIES=1",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			}
			if s.access == "full" {
				// As root, bypassPermissions is refused without it.
				env = append(env, "IS_SANDBOX=1")
			}
			return env
		},
		argv: func(d *Server, s session) []string {
			a := []string{"claude", "-p", "--output-format", "json"}
			switch s.access {
			case "read":
				a = append(a, "--permission-mode", "dontAsk")
			case "write":
				a = append(a, "--permission-mode", "acceptEdits", "--allowedTools=Bash", "--settings", claudeSandbox)
			case "full":
				a = append(a, "--permission-mode", "bypassPermissions")
			}
			if s.resume != "" {
				a = append(a, "--resume", s.resume)
			}
			if s.maxTurns > 0 {
				a = append(a, "--max-turns", fmt.Sprint(s.maxTurns))
			}
			return a
		},
		stdin: true,
		result: func(_ session, stdout []byte) (string, string) {
			var r struct {
				Result    string `json:"result"`
				SessionID string `json:"session_id"`
			}
			json.Unmarshal(lastJSON(stdout), &r)
			return r.Result, r.SessionID
		},
		confined: func() bool { return onPath("bwrap") && onPath("socat") },
	},
	{
		name: "codex",
		env: func(*testing.T, *Server, session) []string {
			return []string{"MODELDOUBLE_API_KEY=sk-modeldouble"}
		},
		argv: func(d *Server, s session) []string {
			sandbox := map[string]string{"read": "read-only", "write": "workspace-write", "full": "danger-full-access"}[s.access]
			a := []string{"codex", "exec", "--json", "-o", s.output,
				// A provider of its own: the built-in openai provider
				// tries WebSockets first, and its retries cannot be set.
				"-c", "model_provider=double",
				"-c", "model_providers.double.name=double",
				"-c", "model_providers.double.base_url=" + d.URL + "/v1",
				"-c", "model_providers.double.env_key=MODELDOUBLE_API_KEY",
				"-c", "model_providers.double.wire_api=responses",
				"-c", "model_providers.double.request_max_retries=1",
				"-c", "model_providers.double.stream_max_retries=1",
				// A login shell resets PATH from /etc/profile.
				"-c", "allow_login_shell=false",
				// gpt-5.5 gets plain function tools and apply_patch;
				// codex's default model gets its JavaScript code mode.
				"-m", "gpt-5.5",
				"--sandbox", sandbox, "-C", s.dir}
			if s.resume != "" {
				a = append(a, "resume", s.resume)
			}
			return append(a, "-")
		},
		stdin: true,
		result: func(s session, stdout []byte) (string, string) {
			message, _ := os.ReadFile(s.output)
			var id string
			for _, line := range bytes.Split(stdout, []byte("\n")) {
				var e struct {
					Type     string `json:"type"`
					ThreadID string `json:"thread_id"`
				}
				if json.Unmarshal(line, &e) == nil && e.Type == "thread.started" {
					id = e.ThreadID
				}
			}
			return strings.TrimSpace(string(message)), id
		},
		confined:    func() bool { return true },
		noTurnLimit: "codex exec has no turn limit (no flag, no config key): an endless session runs until it is killed",
	},
	{
		name: "gemini",
		env: func(t *testing.T, d *Server, s session) []string {
			settings := map[string]any{
				// GOOGLE_GEMINI_BASE_URL alone selects the "gateway" auth
				// type, which this CLI's headless check refuses.
				"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
				"general":  map[string]any{"maxAttempts": 2},
			}
			if s.maxTurns > 0 {
				settings["model"] = map[string]any{"maxSessionTurns": s.maxTurns}
			}
			writeJSONFile(t, filepath.Join(s.home, ".gemini", "settings.json"), settings)
			if err := os.WriteFile(filepath.Join(s.home, "write-policy.toml"), []byte(geminiWritePolicy), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"GOOGLE_GEMINI_BASE_URL=" + d.URL, "GEMINI_API_KEY=sk-modeldouble"}
		},
		argv: func(d *Server, s session) []string {
			a := []string{"gemini", "-p", "", "-m", "gemini-2.5-pro", "--output-format", "stream-json", "--skip-trust"}
			switch s.access {
			case "read":
				a = append(a, "--approval-mode", "default")
			case "write":
				a = append(a, "--approval-mode", "auto_edit", "--policy", filepath.Join(s.home, "write-policy.toml"))
			case "full":
				a = append(a, "--approval-mode", "yolo")
			}
			if s.resume != "" {
				a = append(a, "--resume", s.resume)
			}
			return a
		},
		stdin: true,
		result: func(_ session, stdout []byte) (string, string) {
			// The model's text after its last tool call, as cairn reads it.
			var message, id string
			for _, line := range bytes.Split(stdout, []byte("\n")) {
				var e struct {
					Type      string `json:"type"`
					Role      string `json:"role"`
					Content   string `json:"content"`
					SessionID string `json:"session_id"`
				}
				if json.Unmarshal(line, &e) != nil {
					continue
				}
				switch {
				case e.Type == "init":
					id = e.SessionID
				case e.Type == "tool_use":
					message = ""
				case e.Type == "message" && e.Role == "assistant":
					message += e.Content
				}
			}
			return message, id
		},
		// Its sandbox is a container (docker or podman) with an image
		// pulled from the network.
		confined: func() bool { return false },
	},
	{
		name: "opencode",
		env: func(t *testing.T, d *Server, s session) []string {
			config := map[string]any{"provider": map[string]any{"double": map[string]any{
				"npm":     "@ai-sdk/openai-compatible",
				"name":    "double",
				"options": map[string]any{"baseURL": d.URL + "/v1", "apiKey": "sk-modeldouble"},
				// A price per million tokens, from which opencode
				// computes what a session cost.
				"models": map[string]any{"double-model": map[string]any{"name": "double-model", "tool_call": true,
					"cost": map[string]any{"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}}},
			}}}
			b, _ := json.Marshal(config)
			return []string{
				"OPENCODE_CONFIG_CONTENT=" + string(b),
				"OPENCODE_PERMISSION=" + opencodePermission[s.access],
				"OPENCODE_DISABLE_MODELS_FETCH=1",
			}
		},
		argv: func(d *Server, s session) []string {
			// The message on stdin: given in the argv, each word
			// with a space reaches the model in "…" with every " as
			// \" (opencode run joins its message words so).
			a := []string{"opencode", "run", "-m", "double/double-model", "--format", "json", "--dir", s.dir}
			if s.resume != "" {
				a = append(a, "--session", s.resume)
			}
			if s.access == "full" {
				a = append(a, "--auto")
			}
			return a
		},
		stdin: true,
		result: func(_ session, stdout []byte) (string, string) {
			var message, id string
			for _, line := range bytes.Split(stdout, []byte("\n")) {
				var e struct {
					Type      string `json:"type"`
					SessionID string `json:"sessionID"`
					Part      struct {
						Text string `json:"text"`
					} `json:"part"`
				}
				if json.Unmarshal(line, &e) != nil {
					continue
				}
				if id == "" {
					id = e.SessionID
				}
				if e.Type == "text" {
					message = e.Part.Text
				}
			}
			return message, id
		},
		// external_directory "deny" refuses commands that name a path
		// outside the worktree; nothing confines what they do.
		confined:    func() bool { return false },
		noTurnLimit: `opencode's agent "steps" only asks the model for a text answer once reached; a model that keeps calling tools runs on`,
	},
}

// ran is what one session left.
type ran struct {
	exit    int
	stdout  string
	stderr  string
	message string
	id      string
	elapsed time.Duration
}

// run runs the session's CLI against d with an environment of only what
// it needs, and logs what it printed.
func (a agent) run(t *testing.T, bin string, d *Server, s session) ran {
	t.Helper()
	path := []string{bin}
	for _, tool := range []string{"node", "git", "go", "make", "python3"} {
		if p, err := exec.LookPath(tool); err == nil {
			path = append(path, filepath.Dir(p))
		}
	}
	path = append(path, "/usr/local/bin", "/usr/bin", "/bin")
	env := append([]string{
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"HOME=" + s.home,
		// Gemini CLI leaves an error report there for every failed request.
		"TMPDIR=" + t.TempDir(),
		"LANG=C.UTF-8",
		"NO_COLOR=1",
	}, a.env(t, d, s)...)
	argv := a.argv(d, s)
	argv[0] = filepath.Join(bin, argv[0])
	// Its stdout is a file, as cairn gives it (step.fileOut): Gemini CLI
	// loses what it queued for a pipe when it exits.
	var stdout, stderr bytes.Buffer
	out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	p := &proc.Proc{Argv: argv, Dir: s.dir, Env: env, Stdout: out, Stderr: &stderr, Timeout: 150 * time.Second, Grace: 2 * time.Second}
	if a.stdin {
		p.Stdin = strings.NewReader(s.prompt)
	}
	start := time.Now()
	res, err := p.Run(context.Background())
	if err != nil {
		t.Fatalf("start %q: %v", argv, err)
	}
	if b, err := os.ReadFile(out.Name()); err != nil {
		t.Fatal(err)
	} else {
		stdout.Write(b)
	}
	r := ran{exit: res.ExitCode, stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	r.message, r.id = a.result(s, stdout.Bytes())
	t.Logf("argv %q\nenv %q\nexit %d after %v, message %q, session %q\nstdout:\n%s\nstderr:\n%s",
		argv, env[5:], r.exit, r.elapsed.Round(100*time.Millisecond), r.message, r.id, clip(r.stdout), clip(r.stderr))
	if res.TimedOut {
		t.Fatalf("%s did not end within %v", a.name, p.Timeout)
	}
	return r
}

// newSession makes a git worktree and an empty home for a session.
func newSession(t *testing.T, access, prompt string) session {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return session{access: access, prompt: prompt, dir: dir, home: homeDir(t), output: filepath.Join(t.TempDir(), "last-message.md")}
}

// homeDir is an empty HOME outside the temporary folder: codex refuses to
// make its helper links (codex-linux-sandbox, which its bubblewrap
// sandbox runs) in a CODEX_HOME under it, and then no sandboxed command
// starts.
func homeDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "modeldouble-home-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestRealAgentsAccess runs, at each access level, a script that runs
// commands (go version, a write in the worktree, a write outside it) and
// writes a file, and checks what each level let through.
func TestRealAgentsAccess(t *testing.T) {
	bin := realAgentsBin(t)
	outsideDir, err := os.MkdirTemp("/var/tmp", "modeldouble-outside-")
	if err != nil {
		t.Skipf("no folder outside /tmp for the outside write: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outsideDir) })
	for _, a := range agents {
		for _, access := range []string{"read", "write", "full"} {
			t.Run(a.name+"/"+access, func(t *testing.T) {
				outside := filepath.Join(outsideDir, a.name+"-"+access)
				d := New(
					Shell("go version"),
					WriteFile("hello.txt", "hello from "+a.name+"\n"),
					Shell("echo via-shell > shell.txt && echo wrote"),
					Shell("touch "+outside+" && echo touched"),
					Text("all done"),
				)
				defer d.Close()
				s := newSession(t, access, "Run go version, then write hello.txt.")
				r := a.run(t, bin, d, s)
				for _, tr := range d.ToolResults() {
					t.Logf("tool result %s (error %v): %q", tr.Name, tr.IsError, short(tr.Output))
				}
				if u := d.Unknown(); len(u) > 0 {
					t.Errorf("requests the double does not serve: %s %s", u[0].Method, u[0].Path)
				}
				hello := exists(filepath.Join(s.dir, "hello.txt"))
				shell := exists(filepath.Join(s.dir, "shell.txt"))
				out := exists(outside)
				results := d.ToolResults()
				switch access {
				case "read":
					if hello || shell || out {
						t.Errorf("read: files written: hello.txt %v, shell.txt %v, outside %v", hello, shell, out)
					}
				case "write", "full":
					if len(results) == 0 || results[0].IsError || !strings.Contains(results[0].Output, "go version go") {
						t.Errorf("%s: go version did not run: %+v", access, results)
					}
					if !hello || !shell {
						t.Errorf("%s: hello.txt written %v, shell.txt written %v; want both", access, hello, shell)
					}
					if r.exit != 0 || r.message != "all done" {
						t.Errorf("%s: exit %d, message %q; want 0 and the script's last text", access, r.exit, r.message)
					}
				}
				switch {
				case access == "full" && !out:
					t.Errorf("full: the write outside the worktree failed")
				case access == "write" && a.confined() && out:
					t.Errorf("write: the write outside the worktree passed, though %s confines commands here", a.name)
				case access == "write":
					t.Logf("write: the write outside the worktree passed: %v (confined: %v)", out, a.confined())
				}
			})
		}
	}
}

// TestRealAgentsResume: a resumed session sends the earlier turns again.
func TestRealAgentsResume(t *testing.T) {
	bin := realAgentsBin(t)
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			d := New(Text("FIRST-ANSWER-7c1"), Text("second answer"))
			defer d.Close()
			s := newSession(t, "write", "first prompt")
			first := a.run(t, bin, d, s)
			if first.id == "" {
				t.Fatalf("no session id in the first run's output")
			}
			s.resume, s.prompt = first.id, "second prompt"
			second := a.run(t, bin, d, s)
			turns := d.Turns()
			last := turns[len(turns)-1]
			if !last.Contains("FIRST-ANSWER-7c1") || !last.Contains("first prompt") || !last.Contains("second prompt") {
				t.Errorf("the resumed turn does not carry the first turns: %s", clip(string(last.Raw)))
			}
			if second.message != "second answer" || second.id != first.id {
				t.Errorf("resumed: message %q, session %q; want %q in session %q", second.message, second.id, "second answer", first.id)
			}
		})
	}
}

// TestRealAgentsMaxTurns: an endless session ends at the CLI's turn limit.
func TestRealAgentsMaxTurns(t *testing.T) {
	bin := realAgentsBin(t)
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			if a.noTurnLimit != "" {
				t.Skip(a.noTurnLimit)
			}
			d := New(Forever(Shell("echo again")))
			defer d.Close()
			s := newSession(t, "write", "Loop.")
			s.maxTurns = 2
			r := a.run(t, bin, d, s)
			if r.exit == 0 || !regexp.MustCompile(`(?i)max(imum)?[ _]?(session )?turns`).MatchString(r.stdout+r.stderr) {
				t.Errorf("exit %d; want a failure naming the turn limit", r.exit)
			}
			if n := len(d.Turns()); n > 4 {
				t.Errorf("%d turns for a limit of 2", n)
			}
		})
	}
}

// TestRealAgentsRetries: a model that answers every request with 429 or
// 500 ends the session failed within 60s, with the retries capped.
func TestRealAgentsRetries(t *testing.T) {
	bin := realAgentsBin(t)
	for _, a := range agents {
		for _, status := range []int{http.StatusTooManyRequests, http.StatusInternalServerError} {
			t.Run(fmt.Sprintf("%s/%d", a.name, status), func(t *testing.T) {
				if a.name == "opencode" {
					t.Skip("opencode retries a 429 or 500 five times, 2s to 30s apart, with no setting to cap it: about 75s")
				}
				d := New(Forever(Status(status, "modeldouble says no")))
				defer d.Close()
				s := newSession(t, "write", "Say hello.")
				r := a.run(t, bin, d, s)
				if r.exit == 0 {
					t.Errorf("exit 0 for a model that answers %d", status)
				}
				if r.elapsed > 60*time.Second {
					t.Errorf("the session took %v to fail; want under 60s", r.elapsed)
				}
				t.Logf("%d requests", len(d.Turns()))
			})
		}
	}
}

// judgeJSON is the verdict a judge's prompt asks for, as cairn's judge
// prompt writes it: quotes and spaces that must reach the model as they
// are.
const judgeJSON = `{"verdict": "pass", "reasoning": "Which criteria hold and which do not, with file:line."}`

// TestRealAgentsPrompt: the prompt reaches the model whole and as written:
// a judge's JSON with its quotes (opencode's argv turned each " into \"),
// and a prompt over Linux's 128 KiB limit on one argument, which no CLI
// could be given in its argv.
func TestRealAgentsPrompt(t *testing.T) {
	bin := realAgentsBin(t)
	var large strings.Builder
	large.WriteString("Judge the diff below.\n\n```diff\n")
	for i := 0; large.Len() < 200<<10; i++ {
		fmt.Fprintf(&large, "+line %d: \"quoted\", a back\\slash, $HOME, `ticks` and é\n", i)
	}
	large.WriteString("```\n\nEnd with\n\n" + judgeJSON + "\n\nEND-OF-PROMPT-6d1")
	for _, a := range agents {
		for _, tc := range []struct{ name, prompt string }{
			{"judge", "Judge the step. End with\n\n" + judgeJSON},
			{"large", large.String()},
		} {
			t.Run(a.name+"/"+tc.name, func(t *testing.T) {
				d := New(Text("judged"))
				defer d.Close()
				s := newSession(t, "read", tc.prompt)
				r := a.run(t, bin, d, s)
				turns := d.Turns()
				if len(turns) == 0 {
					t.Fatalf("exit %d: the model got no turn", r.exit)
				}
				if r.exit != 0 || r.message != "judged" {
					t.Errorf("exit %d, message %q; want 0 and the model's answer", r.exit, r.message)
				}
				texts := turns[0].UserTexts()
				for _, text := range texts {
					if strings.Contains(text, tc.prompt) {
						return
					}
				}
				t.Errorf("the model did not get the prompt (%d bytes) as written; it got %d texts:", len(tc.prompt), len(texts))
				for _, text := range texts {
					t.Logf("%d bytes: %s", len(text), short(text))
					if i := strings.Index(text, "verdict"); i >= 0 {
						t.Logf("around its verdict: %q", text[max(i-5, 0):min(i+40, len(text))])
					}
				}
			})
		}
	}
}

// lastJSON is the last line of out that is a JSON object, or all of out
// when it is one object (pretty-printed).
func lastJSON(out []byte) []byte {
	if i := bytes.IndexByte(out, '{'); i >= 0 && json.Valid(bytes.TrimSpace(out[i:])) {
		return bytes.TrimSpace(out[i:])
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if json.Valid(lines[i]) {
			return lines[i]
		}
	}
	return nil
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func onPath(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// short is the first 200 bytes of s.
func short(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// clip keeps a test log readable: the first and last 15 lines of s.
func clip(s string) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 30 {
		return strings.Join(lines[:15], "") + "…\n" + strings.Join(lines[len(lines)-15:], "")
	}
	return s
}
