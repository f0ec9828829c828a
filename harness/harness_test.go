package harness

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

func testRegistry() *Registry {
	return NewRegistry([]ir.CustomHarness{
		{Name: "mybot", Command: []string{"mybot", "--model", "{{.Model}}", "{{if .Effort}}--effort={{.Effort}}{{end}}", "--turns={{.MaxTurns}}", "--dir", "{{.Worktree}}"}},
		{Name: "claude", Command: []string{"not-claude"}},
	})
}

// TestCommand holds each harness's command, at the default access: argv
// and the variables cairn sets, neither of which holds the prompt (it goes
// on stdin).
func TestCommand(t *testing.T) {
	r := testRegistry()
	full := Invocation{Prompt: "do it", Model: "M", Effort: "high", MaxTurns: 30, Worktree: "/w", OutputFile: "/r/out.md", FilesDir: "/f"}
	bare := Invocation{Prompt: "do it", MaxTurns: 20, Worktree: "/w", OutputFile: "/r/out.md", FilesDir: "/f"}
	const (
		claudeWrite = `claude|-p|--output-format|json|--permission-mode|acceptEdits|--allowedTools=Bash|--settings|{"sandbox":{"enabled":true,"autoAllowBashIfSandboxed":true}}`
		codexWrite  = `codex|exec|--json|-o|/r/out.md|--sandbox|workspace-write|-c|allow_login_shell=false`
		geminiWrite = `--output-format|stream-json|--approval-mode|auto_edit|--policy|/f/gemini-write-policy.toml|--skip-trust`
	)
	for _, tc := range []struct {
		harness string
		inv     Invocation
		want    string
	}{
		{"claude", full, claudeWrite + `|--model|M|--effort|high|--max-turns|30`},
		{"claude", bare, claudeWrite + `|--max-turns|20`},
		{"claude", Invocation{Effort: "max", MaxTurns: 5}, claudeWrite + `|--effort|max|--max-turns|5`},
		{"codex", full, codexWrite + `|-m|M|-c|model_reasoning_effort=high|-C|/w|-`},
		{"codex", bare, codexWrite + `|-C|/w|-`},
		{"codex", Invocation{Effort: "max", Worktree: "/w", OutputFile: "/r/out.md"}, codexWrite + `|-c|model_reasoning_effort=xhigh|-C|/w|-`},
		{"gemini", full, `gemini|-p||-m|M|` + geminiWrite},
		{"gemini", bare, `gemini|-p||` + geminiWrite},
		{"opencode", full, `opencode|run|-m|M|--variant|high|--format|json|--dir|/w`},
		{"opencode", bare, `opencode|run|--format|json|--dir|/w`},
		{"opencode", Invocation{Prompt: "do it", Effort: "low", Worktree: "/w"}, `opencode|run|--variant|minimal|--format|json|--dir|/w`},
		{"opencode", Invocation{Prompt: "do it", Effort: "medium", Worktree: "/w"}, `opencode|run|--format|json|--dir|/w`},
		{"opencode", Invocation{Prompt: "do it", Effort: "xhigh", Worktree: "/w"}, `opencode|run|--variant|max|--format|json|--dir|/w`},
		{"mybot", full, `mybot|--model|M|--effort=high|--turns=30|--dir|/w`},
		{"mybot", bare, `mybot|--model|--turns=20|--dir|/w`},
		{"claude", Invocation{Effort: "bogus"}, claudeWrite},
		{"claude", Invocation{Resume: "s-1", MaxTurns: 20}, claudeWrite + `|--resume|s-1|--max-turns|20`},
		{"codex", Invocation{Resume: "t-1", Worktree: "/w", OutputFile: "/r/out.md"}, codexWrite + `|-C|/w|resume|t-1|-`},
		{"gemini", Invocation{Resume: "611e63cb", FilesDir: "/f"}, `gemini|-p||` + geminiWrite + `|--resume|611e63cb`},
		{"opencode", Invocation{Prompt: "do it", Resume: "ses_1", Worktree: "/w"}, `opencode|run|--session|ses_1|--format|json|--dir|/w`},
	} {
		h, ok := r.Lookup(tc.harness)
		if !ok {
			t.Fatalf("Lookup(%q) found nothing", tc.harness)
		}
		c, err := h.Command(tc.inv)
		if err != nil {
			t.Errorf("%s: Command(%+v): %v", tc.harness, tc.inv, err)
			continue
		}
		if got := strings.Join(c.Argv, "|"); got != tc.want {
			t.Errorf("%s: Command(%+v)\n got %s\nwant %s", tc.harness, tc.inv, got, tc.want)
		}
		if tc.inv.Prompt != "" && slices.ContainsFunc(slices.Concat(c.Argv, c.Env), func(a string) bool { return strings.Contains(a, tc.inv.Prompt) }) {
			t.Errorf("%s: Command(%+v) puts the prompt in its argv or variables, not on stdin: %q %q", tc.harness, tc.inv, c.Argv, c.Env)
		}
	}
}

// TestCommandAccess holds each built-in harness's mapping of the access
// levels onto its CLI's own mechanism, as verified against the real CLIs
// (ACCESS-FINDINGS of issue 14): the argv after the CLI's fixed start, the
// variables set, and the files written.
func TestCommandAccess(t *testing.T) {
	r := NewRegistry(nil)
	const (
		sandbox   = `{"sandbox":{"enabled":true,"autoAllowBashIfSandboxed":true}}`
		claudeEnv = `CLAUDE_CODE_MAX_RETRIES=4|CLAUDE_CODE_RETRY_WATCHDOG=1|CLAUDE_CODE_RETRY_WATCHDOG_SCOPE=capacity|CLAUDE_CODE_RETRY_WATCHDOG_MAX_WAIT_MS=30000`
	)
	for _, tc := range []struct {
		harness, access string
		argv            string
		env             string
		files           string
	}{
		{"claude", "read", `claude|-p|--output-format|json|--permission-mode|dontAsk`, claudeEnv, ""},
		{"claude", "write", `claude|-p|--output-format|json|--permission-mode|acceptEdits|--allowedTools=Bash|--settings|` + sandbox, claudeEnv, ""},
		{"claude", "full", `claude|-p|--output-format|json|--permission-mode|bypassPermissions`, claudeEnv + `|IS_SANDBOX=1`, ""},
		{"codex", "read", `codex|exec|--json|-o|/o|--sandbox|read-only|-c|allow_login_shell=false|-C|/w|-`, "", ""},
		{"codex", "write", `codex|exec|--json|-o|/o|--sandbox|workspace-write|-c|allow_login_shell=false|-C|/w|-`, "", ""},
		{"codex", "full", `codex|exec|--json|-o|/o|--sandbox|danger-full-access|-c|allow_login_shell=false|-C|/w|-`, "", ""},
		{"gemini", "read", `gemini|-p||--output-format|stream-json|--approval-mode|default|--policy|/f/gemini-read-policy.toml|--skip-trust`, "",
			`gemini-read-policy.toml: commandRegex = '(git (log|diff|status)|ls)(|[ ][-\w ./:=@^~,+%]*)"'`},
		{"gemini", "write", `gemini|-p||--output-format|stream-json|--approval-mode|auto_edit|--policy|/f/gemini-write-policy.toml|--skip-trust`, "",
			`gemini-write-policy.toml: toolName = "run_shell_command"`},
		{"gemini", "full", `gemini|-p||--output-format|stream-json|--approval-mode|yolo|--skip-trust`, "", ""},
		{"opencode", "read", `opencode|run|--format|json|--dir|/w`,
			`OPENCODE_PERMISSION={"edit":"deny","bash":"deny","external_directory":"deny"}`, ""},
		{"opencode", "write", `opencode|run|--format|json|--dir|/w`, `OPENCODE_PERMISSION={"edit":"allow","bash":"allow","external_directory":"deny"}`, ""},
		{"opencode", "full", `opencode|run|--format|json|--dir|/w|--auto`, `OPENCODE_PERMISSION={"*":"allow"}`, ""},
	} {
		h, _ := r.Lookup(tc.harness)
		c, err := h.Command(Invocation{Prompt: "do it", Access: tc.access, Worktree: "/w", OutputFile: "/o", FilesDir: "/f"})
		if err != nil {
			t.Errorf("%s %s: %v", tc.harness, tc.access, err)
			continue
		}
		if got := strings.Join(c.Argv, "|"); got != tc.argv {
			t.Errorf("%s %s: argv\n got %s\nwant %s", tc.harness, tc.access, got, tc.argv)
		}
		if got := strings.Join(c.Env, "|"); got != tc.env {
			t.Errorf("%s %s: env\n got %s\nwant %s", tc.harness, tc.access, got, tc.env)
		}
		switch {
		case tc.files == "" && len(c.Files) > 0:
			t.Errorf("%s %s: files %v; want none", tc.harness, tc.access, c.Files)
		case tc.files != "":
			name, text, _ := strings.Cut(tc.files, ": ")
			if len(c.Files) != 1 || c.Files[0].Name != name || !strings.Contains(c.Files[0].Text, text) {
				t.Errorf("%s %s: files %v; want %s holding %q", tc.harness, tc.access, c.Files, name, text)
			}
		}
	}
}

// TestRetryCaps: every session carries the caps on its CLI's retries of a
// failed model request where the CLI has a setting for them: claude's
// retries and the time its retry watchdog waits on 429s and 529s in its
// environment, gemini's attempts in the settings cairn lays over the
// user's (with a turn cap and without). Codex's are a setting of a provider
// of one's own only, and opencode has none: neither gets any.
func TestRetryCaps(t *testing.T) {
	r := NewRegistry(nil)
	for _, inv := range []Invocation{
		{Prompt: "p", Worktree: "/w", OutputFile: "/o", FilesDir: "/f"},
		{Prompt: "p", Worktree: "/w", OutputFile: "/o", FilesDir: "/f", MaxTurns: 7, Access: ir.AccessFull},
	} {
		for name, want := range map[string][]string{
			"claude": {"CLAUDE_CODE_MAX_RETRIES=4", "CLAUDE_CODE_RETRY_WATCHDOG=1", "CLAUDE_CODE_RETRY_WATCHDOG_SCOPE=capacity", "CLAUDE_CODE_RETRY_WATCHDOG_MAX_WAIT_MS=30000"},
			"gemini": {`"general":{"maxAttempts":2}`},
		} {
			h, _ := r.Lookup(name)
			c, err := h.Command(inv)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(c.Env, "\n")
			if c.Settings != nil {
				got += "\n" + c.Settings.Set
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%s (max turns %d): %q lacks %s", name, inv.MaxTurns, got, w)
				}
			}
		}
		for _, name := range []string{"codex", "opencode"} {
			h, _ := r.Lookup(name)
			c, _ := h.Command(inv)
			if all := strings.Join(append(c.Argv, c.Env...), " "); strings.Contains(all, "retr") {
				t.Errorf("%s: %q sets retries", name, all)
			}
		}
	}
}

func TestCommandErrors(t *testing.T) {
	r := NewRegistry([]ir.CustomHarness{
		{Name: "broken", Command: []string{"bot", "{{.Model"}},
		{Name: "unknown-field", Command: []string{"bot", "{{.Prompt}}"}},
		{Name: "empty"},
	})
	for _, name := range []string{"broken", "unknown-field", "empty"} {
		h, _ := r.Lookup(name)
		if c, err := h.Command(Invocation{}); err == nil {
			t.Errorf("%s: Command = %q; want an error", name, c.Argv)
		}
	}
	claude, _ := r.Lookup("claude")
	if _, err := claude.Command(Invocation{Access: "root"}); err == nil || !strings.Contains(err.Error(), `unknown access "root"`) {
		t.Errorf("claude at access \"root\": %v; want an unknown access", err)
	}
	gemini, _ := r.Lookup("gemini")
	if _, err := gemini.Command(Invocation{Access: "write"}); err == nil {
		t.Error("gemini with no FilesDir for its policy: no error")
	}
}

func TestEfforts(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		harness string
		takes   string
		mapped  string // effort → value for each of ir.Efforts, "-" when not taken
	}{
		{"claude", "low medium high xhigh max", "low medium high xhigh max"},
		{"codex", "low medium high xhigh max", "low medium high xhigh xhigh"},
		{"gemini", "", "- - - - -"},
		{"opencode", "low medium high xhigh max", "minimal  high max max"},
		{"mybot", "low medium high xhigh max", "low medium high xhigh max"},
	} {
		h, _ := r.Lookup(tc.harness)
		if got := strings.Join(h.Efforts(), " "); got != tc.takes {
			t.Errorf("%s: Efforts() = %q; want %q", tc.harness, got, tc.takes)
		}
		var mapped []string
		for _, e := range ir.Efforts {
			v, ok := h.Effort(e)
			if !ok {
				v = "-"
			}
			mapped = append(mapped, v)
		}
		if got := strings.Join(mapped, " "); got != tc.mapped {
			t.Errorf("%s: mapped efforts %q; want %q", tc.harness, got, tc.mapped)
		}
		if _, ok := h.Effort("minimal"); ok {
			t.Errorf("%s takes effort \"minimal\"", tc.harness)
		}
	}
}

func TestTiers(t *testing.T) {
	r := testRegistry()
	for name, want := range map[string][4]string{
		"claude":   {"haiku", "sonnet", "opus", "fable"},
		"codex":    {"gpt-6.1-terra", "gpt-6.2-sol", "gpt-6.2-astra", "gpt-6.2-astra"},
		"gemini":   {"flash-lite", "flash", "pro", "gemini-3.1-pro-preview"},
		"opencode": {"anthropic/claude-haiku-4-5", "anthropic/claude-sonnet-5", "anthropic/claude-opus-5", "anthropic/claude-fable-5"},
	} {
		h, _ := r.Lookup(name)
		for i, tier := range ir.Tiers {
			if got, ok := h.TierModel(tier); !ok || got != want[i] {
				t.Errorf("%s.TierModel(%q) = %q, %v; want %q", name, tier, got, ok, want[i])
			}
		}
	}
	mybot, _ := r.Lookup("mybot")
	for _, tier := range ir.Tiers {
		if m, ok := mybot.TierModel(tier); ok {
			t.Errorf("mybot.TierModel(%q) = %q; want no built-in mapping", tier, m)
		}
	}
}

func TestRegistry(t *testing.T) {
	r := testRegistry()
	if got, want := r.Names(), []string{"claude", "codex", "gemini", "mybot", "opencode"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q; want %q", got, want)
	}
	claude, _ := r.Lookup("claude")
	if !claude.Builtin {
		t.Error("a custom [harnesses.claude] replaced the built-in claude")
	}
	if mybot, _ := r.Lookup("mybot"); mybot.Builtin {
		t.Error("mybot is marked built in")
	}
	if _, ok := r.Lookup("nope"); ok {
		t.Error("Lookup(\"nope\") found a harness")
	}
	if got := NewRegistry(nil).Names(); len(got) != 4 {
		t.Errorf("NewRegistry(nil).Names() = %q; want the four built-ins", got)
	}
}

// TestPromptLimit: the CLIs that cut or refuse a long prompt on stdin have
// a limit cairn keeps to, measured with the real CLIs (claude refuses over
// 10 MiB, codex over 1,048,576 characters, Gemini CLI cuts at 8 MiB);
// opencode and a custom harness take any.
func TestPromptLimit(t *testing.T) {
	r := testRegistry()
	for name, want := range map[string]int{"claude": 10 << 20, "codex": 1 << 20, "gemini": 8 << 20, "opencode": 0, "mybot": 0} {
		h, _ := r.Lookup(name)
		max, cause := h.PromptLimit()
		if max != want || (max == 0) != (cause == nil) {
			t.Errorf("%s: PromptLimit() = %d, cause %v; want %d", name, max, cause != nil, want)
			continue
		}
		if cause == nil {
			continue
		}
		wantCause := fmt.Sprintf("the prompt is 12345678 bytes, over the %d harness %q takes whole on stdin: put long content in a file and name it in the prompt", want, name)
		if got := cause("12345678"); got != wantCause {
			t.Errorf("%s: cause = %q; want %q", name, got, wantCause)
		}
	}
}
