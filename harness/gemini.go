package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

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
// mode without one. A compound command is checked part by part.
var geminiPolicy = map[string]File{
	ir.AccessRead: {Name: "gemini-read-policy.toml", Text: `# cairn, access "read": read-only commands run without asking.
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git log", "git diff", "git status", "ls"]
decision = "allow"
priority = 100
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
	a = append(a, "--output-format", "json")
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

// geminiTurnLimited is the type of the error Gemini CLI ends a session with
// at its maxSessionTurns (exit 53), whose message tells the user to change
// a setting cairn makes.
const geminiTurnLimited = "FatalTurnLimitedError"

// geminiError is the error object Gemini CLI prints, on stdout or stderr,
// when a session fails.
type geminiError struct {
	Type    string          `json:"type"`
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code"`
}

// geminiOutput is the JSON object `gemini --output-format json` prints.
type geminiOutput struct {
	Response *string      `json:"response"`
	Error    *geminiError `json:"error"`
}

// Final is .response of gemini's JSON; an error object on stdout or
// stderr fails, with its message as the cause, as does a non-zero exit.
func (gemini) Final(o Output) (string, string, bool) {
	var out, errOut geminiOutput
	parsed := jsonObject(o.Stdout, &out) && (out.Response != nil || out.Error != nil)
	if !parsed || out.Error == nil {
		if jsonObject(o.Stderr, &errOut) && errOut.Error != nil {
			out.Error = errOut.Error
		}
	}
	msg := ""
	if out.Response != nil {
		msg = trimEnd(*out.Response)
	}
	if e := out.Error; e != nil {
		switch {
		case e.Type == geminiTurnLimited:
			return msg, "reached its max turns (" + geminiTurnLimited + ")", true
		case strings.TrimSpace(e.Message) != "":
			return msg, oneLine(e.Message), true
		case e.Type != "":
			return msg, fmt.Sprintf("gemini: %s (code %s)", e.Type, e.Code), true
		}
		return msg, exitCause(o), true
	}
	if o.ExitCode != 0 {
		return msg, exitCause(o), true
	}
	if !parsed {
		return "", unreadable("gemini", "its JSON output", o), true
	}
	return msg, "", false
}

// FinalJQ is Final in jq.
func (gemini) FinalJQ() (string, string) { return "gemini", geminiJQ }

const geminiJQ = `def gemini:
  ($out | object) as $o
  | ($o != null and ($o.response != null or $o.error != null)) as $parsed
  | (if ($parsed | not) or $o.error == null
     then (($err | object) as $e | if $e != null and $e.error != null then $e.error else $o.error? end)
     else $o.error end) as $error
  | (if $o.response? != null then ($o.response | trimend) else "" end) as $msg
  | if $error != null then
      if $error.type? == "` + geminiTurnLimited + `" then {m: $msg, c: "reached its max turns (` + geminiTurnLimited + `)", f: true}
      elif (($error.message // "") | blank | not) then {m: $msg, c: ($error.message | oneline), f: true}
      elif ($error.type // "") != "" then {m: $msg, c: "gemini: \($error.type) (code \($error.code | tojson))", f: true}
      else {m: $msg, c: exitcause, f: true} end
    elif $rc != 0 then {m: $msg, c: exitcause, f: true}
    elif ($parsed | not) then {m: "", c: unreadable("gemini"; "its JSON output"), f: true}
    else {m: $msg, c: "", f: false} end;`

// geminiModelStats is one model's in gemini's .stats.models.
type geminiModelStats struct {
	API struct {
		TotalRequests *int64 `json:"totalRequests"`
	} `json:"api"`
	Tokens struct {
		Input      *int64 `json:"input"`
		Prompt     *int64 `json:"prompt"`
		Candidates *int64 `json:"candidates"`
		Cached     *int64 `json:"cached"`
		Thoughts   *int64 `json:"thoughts"`
	} `json:"tokens"`
}

// SessionEnd is .session_id; it worked when it gave a response. Its usage,
// summed over the models of .stats.models: the API requests as turns;
// tokens.input (the prompt less what was read from the cache, else
// tokens.prompt less tokens.cached), tokens.candidates and tokens.thoughts
// as the output, tokens.cached as read from the cache. Gemini CLI reports
// no cost, and no cache writes. Its error, on stdout or stderr, says
// whether it stopped at its turn cap.
func (gemini) SessionEnd(o Output) SessionEnd {
	var out struct {
		SessionID string       `json:"session_id"`
		Response  *string      `json:"response"`
		Error     *geminiError `json:"error"`
		Stats     *struct {
			Models map[string]geminiModelStats `json:"models"`
		} `json:"stats"`
	}
	var errOut geminiOutput
	turnLimited := jsonObject(o.Stderr, &errOut) && errOut.Error != nil && errOut.Error.Type == geminiTurnLimited
	if !jsonObject(o.Stdout, &out) {
		return SessionEnd{MaxTurns: turnLimited}
	}
	turnLimited = turnLimited || out.Error != nil && out.Error.Type == geminiTurnLimited
	end := SessionEnd{ID: out.SessionID, MaxTurns: turnLimited, Worked: out.Response != nil && strings.TrimSpace(*out.Response) != ""}
	if out.Stats == nil {
		return end
	}
	for _, m := range out.Stats.Models {
		t := m.Tokens
		input := t.Input
		if input == nil && t.Prompt != nil {
			input = ir.Count(*t.Prompt)
			if t.Cached != nil {
				input = ir.Count(max(*t.Prompt-*t.Cached, 0))
			}
		}
		end.Usage = end.Usage.Plus(ir.Usage{
			Turns:           m.API.TotalRequests,
			InputTokens:     input,
			OutputTokens:    plus(t.Candidates, t.Thoughts),
			CacheReadTokens: t.Cached,
		})
	}
	return end
}

// UsageJQ is SessionEnd's usage in jq.
func (gemini) UsageJQ() (string, string) { return "usage_gemini", geminiUsageJQ }

const geminiUsageJQ = `def usage_gemini:
  ($out | object) as $o
  | if ($o.stats.models? | type) != "object" then {}
    else usage_sum($o.stats.models[] | (.tokens // {}) as $t
      | {turns: .api.totalRequests?,
         input_tokens: (if $t.input != null then $t.input
                        elif ($t.prompt | type) == "number" and ($t.cached | type) == "number" then [$t.prompt - $t.cached, 0] | max
                        else $t.prompt end),
         output_tokens: usage_add($t.candidates; $t.thoughts), cache_read_tokens: $t.cached}
      | usage_clean)
    end;`

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
var jsonComment = regexp.MustCompile(`("(?:[^"\\]|\\.)*")|//[^\n]*|/\*(?s:.*?)\*/`)

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
	b = jsonComment.ReplaceAllFunc(b, func(m []byte) []byte {
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
