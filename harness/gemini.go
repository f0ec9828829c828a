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

// geminiTurnLimited is the type of the error Gemini CLI ends a session with
// at its maxSessionTurns (exit 53), whose message tells the user to change
// a setting cairn makes.
const geminiTurnLimited = "FatalTurnLimitedError"

// geminiError is the error Gemini CLI reports when a session fails: in
// its stream's result event, or, for an error before the stream starts
// (no credentials), as a JSON object on stdout or stderr.
type geminiError struct {
	Type    string          `json:"type"`
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code"`
}

// geminiStats is the stats of gemini's result event: the session's tokens
// over every model it asked, the prompt's (input_tokens) with what was read
// from the cache (cached) and without it (input).
type geminiStats struct {
	TotalTokens  *int64 `json:"total_tokens"`
	InputTokens  *int64 `json:"input_tokens"`
	OutputTokens *int64 `json:"output_tokens"`
	Cached       *int64 `json:"cached"`
	Input        *int64 `json:"input"`
}

// geminiEvent is one line of `gemini --output-format stream-json`: init
// (the session's id), message (the user's prompt, the model's text in
// deltas), tool_use, tool_result, error (a warning or an error that ends
// the stream) and result, last, with the session's status, its error and
// its stats.
type geminiEvent struct {
	Type      string       `json:"type"`
	SessionID string       `json:"session_id"`
	Role      string       `json:"role"`
	Content   string       `json:"content"`
	Severity  string       `json:"severity"`
	Message   string       `json:"message"`
	Status    string       `json:"status"`
	Error     *geminiError `json:"error"`
	Stats     *geminiStats `json:"stats"`
}

// geminiSession is what a session's stream says.
type geminiSession struct {
	events  int
	id      string
	message string // the model's text after its last tool call
	worked  bool   // the model answered: text or a tool call
	turns   int64  // model answers: text or tool calls after a tool result
	result  *geminiEvent
	failure string // the last error event's message
	errOut  *geminiError
}

// readGemini reads a session's stream, and the error object a failure
// before the stream printed on stdout or stderr.
func readGemini(o Output) geminiSession {
	var g geminiSession
	answering := false
	for line := range strings.Lines(string(o.Stdout)) {
		var e geminiEvent
		if !isEvent([]byte(line), &e) || e.Type == "" {
			continue
		}
		g.events++
		switch e.Type {
		case "init":
			g.id = e.SessionID
		case "message", "tool_use":
			if e.Type == "message" && e.Role != "assistant" {
				continue
			}
			g.worked = true
			if !answering {
				answering = true
				g.turns++
			}
			if e.Type == "tool_use" {
				g.message = ""
			} else {
				g.message += e.Content
			}
		case "tool_result":
			answering = false
		case "error":
			if e.Severity == "error" {
				g.failure = e.Message
			}
		case "result":
			r := e
			g.result = &r
		}
	}
	if g.events == 0 {
		var out struct {
			Error *geminiError `json:"error"`
		}
		if jsonObject(o.Stdout, &out) && out.Error != nil || jsonObject(o.Stderr, &out) && out.Error != nil {
			g.errOut = out.Error
		}
	}
	return g
}

// failedError is the error a failed session reports: when its stream ended
// in status "error", its result's error, else the last error event's
// message; the error object printed before any stream; nil when none.
func (g geminiSession) failedError() *geminiError {
	if g.result != nil && g.result.Status == "error" {
		if g.result.Error != nil {
			return g.result.Error
		}
		return &geminiError{Message: g.failure, Type: "error"}
	}
	return g.errOut
}

// Final is the model's text after its last tool call, as gemini's JSON
// output gives it; a result with status "error", an error object before
// the stream, or a non-zero exit fails, with the error's message as the
// cause.
func (gemini) Final(o Output) (string, string, bool) {
	g := readGemini(o)
	msg := trimEnd(g.message)
	if e := g.failedError(); e != nil {
		switch {
		case e.Type == geminiTurnLimited:
			return msg, "reached its max turns (" + geminiTurnLimited + ")", true
		case strings.TrimSpace(e.Message) != "":
			return msg, oneLine(e.Message), true
		case e.Type != "" && len(e.Code) > 0:
			return msg, fmt.Sprintf("gemini: %s (code %s)", e.Type, e.Code), true
		case e.Type != "":
			return msg, "gemini: " + e.Type, true
		}
		return msg, exitCause(o), true
	}
	if o.ExitCode != 0 {
		return msg, exitCause(o), true
	}
	if g.events == 0 || g.result == nil {
		return "", unreadable("gemini", "its JSON events", o), true
	}
	return msg, "", false
}

// FinalJQ is Final in jq.
func (gemini) FinalJQ() (string, string) { return "gemini", geminiJQ }

// geminiReadJQ is readGemini in jq: {events, id, msg, worked, turns, result,
// failure, errout}; defined inside the functions that use it, each of which
// must define itself first.
const geminiReadJQ = `
  def gemini_read:
  ($out | events) as $ev
  | (reduce $ev[] as $e ({id: "", msg: "", worked: false, turns: 0, answering: false, result: null, failure: ""};
      if $e.type == "init" then .id = ($e.session_id // "")
      elif ($e.type == "message" and $e.role == "assistant") or $e.type == "tool_use" then
        .worked = true
        | (if .answering then . else .answering = true | .turns += 1 end)
        | (if $e.type == "tool_use" then .msg = "" else .msg += ($e.content // "") end)
      elif $e.type == "tool_result" then .answering = false
      elif $e.type == "error" and $e.severity == "error" then .failure = ($e.message // "")
      elif $e.type == "result" then .result = $e
      else . end)) as $g
  | $g + {events: ($ev | length),
          errout: (if ($ev | length) > 0 then null
                   else [($out | object), ($err | object)] | map(select(. != null and .error != null) | .error) | first end)};`

const geminiJQ = `def gemini:` + geminiReadJQ + `
  gemini_read as $g
  | ($g.msg | trimend) as $msg
  | (if $g.result != null and $g.result.status == "error"
     then ($g.result.error // {type: "error", message: $g.failure})
     else $g.errout end) as $error
  | if $error != null then
      if $error.type? == "` + geminiTurnLimited + `" then {m: $msg, c: "reached its max turns (` + geminiTurnLimited + `)", f: true}
      elif (($error.message // "") | blank | not) then {m: $msg, c: ($error.message | oneline), f: true}
      elif ($error.type // "") != "" and $error.code != null then {m: $msg, c: "gemini: \($error.type) (code \($error.code | tojson))", f: true}
      elif ($error.type // "") != "" then {m: $msg, c: "gemini: \($error.type)", f: true}
      else {m: $msg, c: exitcause, f: true} end
    elif $rc != 0 then {m: $msg, c: exitcause, f: true}
    elif $g.events == 0 or $g.result == null then {m: "", c: unreadable("gemini"; "its JSON events"), f: true}
    else {m: $msg, c: "", f: false} end;`

// SessionEnd is the init event's session_id; it worked when the model
// answered (text or a tool call). Its usage, from the result event, which
// Gemini CLI prints however the session ends (at its turn cap too): the
// model's answers as turns, counted in the stream; stats.input (the prompt
// less what was read from the cache, else input_tokens less cached) as the
// input, total_tokens less input_tokens (the answers and the model's
// thinking, else output_tokens) as the output, cached as read from the
// cache. Gemini CLI reports no cost, and no cache writes. Its error says
// whether it stopped at its turn cap.
func (gemini) SessionEnd(o Output) SessionEnd {
	g := readGemini(o)
	e := g.failedError()
	end := SessionEnd{ID: g.id, MaxTurns: e != nil && e.Type == geminiTurnLimited, Worked: g.worked}
	if g.result == nil || g.result.Stats == nil {
		return end
	}
	st := g.result.Stats
	input := st.Input
	if input == nil && st.InputTokens != nil {
		input = ir.Count(*st.InputTokens)
		if st.Cached != nil {
			input = ir.Count(max(*st.InputTokens-*st.Cached, 0))
		}
	}
	output := st.OutputTokens
	if st.TotalTokens != nil && st.InputTokens != nil {
		output = ir.Count(max(*st.TotalTokens-*st.InputTokens, 0))
	}
	end.Usage = ir.Usage{InputTokens: input, OutputTokens: output, CacheReadTokens: st.Cached}
	if g.turns > 0 {
		end.Usage.Turns = ir.Count(g.turns)
	}
	return end
}

// UsageJQ is SessionEnd's usage in jq.
func (gemini) UsageJQ() (string, string) { return "usage_gemini", geminiUsageJQ }

const geminiUsageJQ = `def usage_gemini:` + geminiReadJQ + `
  gemini_read as $g
  | ($g.result.stats? // null) as $s
  | if ($s | type) != "object" then {}
    else {turns: (if $g.turns > 0 then $g.turns else null end),
          input_tokens: (if $s.input != null then $s.input
                         elif ($s.input_tokens | type) == "number" and ($s.cached | type) == "number" then [$s.input_tokens - $s.cached, 0] | max
                         else $s.input_tokens end),
          output_tokens: (if ($s.total_tokens | type) == "number" and ($s.input_tokens | type) == "number"
                          then [$s.total_tokens - $s.input_tokens, 0] | max else $s.output_tokens end),
          cache_read_tokens: $s.cached}
      | usage_clean
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
