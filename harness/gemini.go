package harness

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/cairn-dev/cairn/ir"
)

// gemini is Gemini CLI: `gemini -p "" --output-format json`.
type gemini struct{}

func (gemini) Spec() Spec {
	return Spec{
		Name:    "gemini",
		Efforts: map[string]string{},
		// Gemini CLI 0.61.0's own aliases, which follow its current
		// models (flash-lite, flash and pro: gemini-3.5-flash-lite,
		// gemini-3-flash-preview and gemini-3-pro-preview), and its newest
		// pro model.
		Tiers: map[string]string{
			"efficient": "flash-lite",
			"balanced":  "flash",
			"strong":    "pro",
			"strongest": "gemini-3.1-pro-preview",
		},
		// Gemini CLI reads 8 MiB of stdin and cuts the rest, with only
		// a warning on stderr.
		MaxPrompt: 8 << 20,
		Resume:    true,
		Turns:     true,
		Version:   []string{"gemini", "--version"},
	}
}

// geminiPolicy is the policy file (Gemini CLI's policy engine, TOML) of
// each access level that needs one: read lets in a few read-only commands,
// which the default approval mode otherwise withholds, and write every
// shell command, which the headless CLI does not even offer in auto_edit
// mode without one.
//
// read allows git log, git diff, git status and ls only as one simple
// command of plain words (letters, digits, spaces and -_./:=@^~,+%), its
// rule's pattern matched against the whole command: a quote, an escape, an
// expansion, a redirection, a glob or a second command makes it ask, which
// the headless CLI refuses. A pattern can only read the command's text, and
// a text of plain words is what the shell runs. In those words two rules
// above it refuse git's --output (and its abbreviations), which writes a
// file, and --no-index, an absolute or home path, or a .. path component,
// which read outside the worktree. Gemini CLI drops, with only a warning,
// a rule whose pattern it deems unsafe (a quantified group holding a
// quantifier): TestGeminiReadPolicy checks none is.
var geminiPolicy = map[string]File{
	ir.AccessRead: {Name: "gemini-read-policy.toml", Text: `# cairn, access "read": read-only commands run without asking:
# git log, git diff, git status and ls, alone, in plain words.
[[rule]]
toolName = "run_shell_command"
commandRegex = '(git (log|diff|status)|ls)(|[ ][-\w ./:=@^~,+%]*)"'
decision = "allow"
priority = 100

# Not git's --output, which writes a file, nor --no-index.
[[rule]]
toolName = "run_shell_command"
commandRegex = '([^"\\]|\\.)*--(ou|no-index)'
decision = "deny"
priority = 200
denyMessage = "cairn, access read: git's --output writes a file, and --no-index reads outside the worktree"

# Nor a path outside the worktree.
[[rule]]
toolName = "run_shell_command"
commandRegex = '([^"\\]|\\.)*([ ][/~]|[ /]\.\.([ /]|"))'
decision = "deny"
priority = 200
denyMessage = "cairn, access read: no path outside the worktree; name it relative to the worktree"
`},
	ir.AccessWrite: {Name: "gemini-write-policy.toml", Text: `# cairn, access "write": every shell command runs without asking.
[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 100
`},
}

// Command maps the access onto Gemini CLI's approval mode and a policy
// file of cairn's, in inv.FilesDir: read is the default mode (only read
// tools, and the policy's read-only commands), write auto_edit with every
// shell command allowed, full yolo. Nothing confines the commands: Gemini
// CLI's sandbox is a container image it pulls.
//
// Its turn cap (model.maxSessionTurns) and retries (general.maxAttempts)
// are settings of its settings.json only, not flags: the session gets the
// user's settings folder with them merged over the user's settings
// (Settings, through GEMINI_CLI_HOME). A workspace's .gemini/settings.json
// is not read headless, and a system settings file must be root's.
func (gemini) Command(inv Invocation, _ string) (Command, error) {
	a := []string{"gemini", "-p", ""}
	if inv.Model != "" {
		a = append(a, "-m", inv.Model)
	}
	// stream-json, not json: its result event carries the session's
	// stats however the session ends, where json prints none for a
	// failed session (its turn cap, a rate limit).
	a = append(a, "--output-format", "stream-json")
	var files []File
	switch inv.Access {
	case ir.AccessRead:
		a = append(a, "--approval-mode", "default")
	case ir.AccessWrite:
		a = append(a, "--approval-mode", "auto_edit")
	case ir.AccessFull:
		a = append(a, "--approval-mode", "yolo")
	}
	if f, ok := geminiPolicy[inv.Access]; ok {
		if inv.FilesDir == "" {
			return Command{}, errors.New("harness \"gemini\": no folder for its policy file")
		}
		a = append(a, "--policy", filepath.Join(inv.FilesDir, f.Name))
		files = append(files, f)
	}
	a = append(a, "--skip-trust")
	if inv.Resume != "" {
		a = append(a, "--resume", inv.Resume)
	}
	set := fmt.Sprintf(`{"general":{"maxAttempts":%d}}`, geminiAttempts)
	if inv.MaxTurns > 0 {
		set = fmt.Sprintf(`{"general":{"maxAttempts":%d},"model":{"maxSessionTurns":%d}}`, geminiAttempts, inv.MaxTurns)
	}
	return Command{Argv: a, Files: files, Settings: &Settings{
		Var: "GEMINI_CLI_HOME", Dir: ".gemini", File: "settings.json", Set: set,
		// Its skills folder; its chats (which --resume reads) and shell
		// history.
		Links: []string{".agents"}, Keep: []string{"tmp", "history"},
	}}, nil
}

// geminiAttempts is how many times Gemini CLI asks the model before a 429
// or a 500 fails the session: once more, after 5 s or the wait a 429's
// RetryInfo asks for (up to 300 s). A 429 asking for 30 s every time fails
// the session after 40 s; with 3 attempts it took 72 s, with its default
// of 10 minutes (measured with Gemini CLI 0.61.0).
const geminiAttempts = 2

// JQ reads gemini's stream-json with jq/gemini.jq.
func (gemini) JQ() JQ {
	return JQ{Defs: geminiJQ, Final: "gemini", End: "end_gemini"}
}

// geminiJQ is jq/gemini.jq, the jq of JQ's Defs.
//
//go:embed jq/gemini.jq
var geminiJQ string

// Login reads what Gemini CLI itself reads to choose how it authenticates
// (it has no status command): GEMINI_API_KEY, Vertex AI's variables, Google
// login (GOOGLE_GENAI_USE_GCA), Compute ADC, then the auth type its
// settings.json selected, with the credentials that type needs. Without any
// of them it refuses every session.
func (gemini) Login(_ context.Context, _ string, env []string) (Login, bool) {
	return geminiLogin(environ(env)), true
}

func geminiLogin(env environ) Login {
	vertex := func(how string) Login {
		switch {
		case env.get("GOOGLE_API_KEY") != "":
			return loggedIn(how + " with GOOGLE_API_KEY")
		case env.get("GOOGLE_CLOUD_PROJECT") != "" && env.get("GOOGLE_CLOUD_LOCATION") != "":
			return loggedIn(how + " with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")
		}
		return loggedOut(how + " without GOOGLE_API_KEY or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")
	}
	dir := geminiDir(env)
	google := func(how string) Login {
		if env.get("GOOGLE_CLOUD_ACCESS_TOKEN") != "" {
			return loggedIn(how + " with GOOGLE_CLOUD_ACCESS_TOKEN")
		}
		if dir != "" {
			if _, err := os.Stat(filepath.Join(dir, "oauth_creds.json")); err == nil {
				return loggedIn(how + " with " + filepath.Join(dir, "oauth_creds.json"))
			}
		}
		return loggedOut(how + " but no Google login: run gemini once and log in")
	}
	switch {
	case env.get("GOOGLE_GENAI_USE_GCA") == "true":
		return google("GOOGLE_GENAI_USE_GCA")
	case env.get("GOOGLE_GENAI_USE_VERTEXAI") == "true":
		return vertex("GOOGLE_GENAI_USE_VERTEXAI")
	case env.get("GEMINI_API_KEY") != "":
		return loggedIn("GEMINI_API_KEY")
	case env.get("CLOUD_SHELL") == "true" || env.get("GEMINI_CLI_USE_COMPUTE_ADC") == "true":
		return loggedIn("compute default credentials")
	}
	selected, err := geminiSelectedAuth(dir)
	if err != nil {
		return loginUnknown("gemini settings: " + err.Error())
	}
	switch selected {
	case "":
		return loggedOut("no GEMINI_API_KEY and no auth type in gemini's settings.json")
	case "oauth-personal":
		return google("settings.json selects Google login")
	case "gemini-api-key":
		// The key may be in the system keychain, which only the CLI reads.
		return loginUnknown("settings.json selects an API key, and GEMINI_API_KEY is not set")
	case "vertex-ai":
		return vertex("settings.json selects Vertex AI")
	case "compute-default-credentials":
		return loggedIn("settings.json selects compute default credentials")
	}
	return loginUnknown("settings.json selects auth type " + selected)
}

// geminiDir is Gemini CLI's settings folder: $GEMINI_CLI_HOME/.gemini,
// else ~/.gemini; empty when there is no home.
func geminiDir(env environ) string {
	home := env.get("GEMINI_CLI_HOME")
	if home == "" {
		home = env.get("HOME")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".gemini")
}

// jsonComment matches the // and /* */ comments settings.json may hold,
// outside strings.
var jsonComment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`("(?:[^"\\]|\\.)*")|//[^\n]*|/\*(?s:.*?)\*/`) })

// geminiSelectedAuth is the auth type dir/settings.json selects
// (security.auth.selectedType, or the older selectedAuthType); empty when
// there is no file or it selects none.
func geminiSelectedAuth(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "settings.json"))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	b = jsonComment().ReplaceAllFunc(b, func(m []byte) []byte {
		if m[0] == '"' {
			return m
		}
		return nil
	})
	var s struct {
		Security struct {
			Auth struct {
				SelectedType string `json:"selectedType"`
			} `json:"auth"`
		} `json:"security"`
		SelectedAuthType string `json:"selectedAuthType"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return "", errors.New("settings.json is not JSON")
	}
	if t := s.Security.Auth.SelectedType; t != "" {
		return t, nil
	}
	return s.SelectedAuthType, nil
}
