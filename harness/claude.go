package harness

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
)

// claude is Claude Code: `claude -p --output-format json`.
type claude struct{}

func (claude) Spec() Spec {
	return Spec{
		Name:    "claude",
		Efforts: allEfforts(),
		Tiers: map[string]string{
			"efficient": "haiku",
			"balanced":  "sonnet",
			"strong":    "opus",
			"strongest": "fable",
		},
		Stdin:   true,
		Resume:  true,
		Turns:   true,
		Cost:    true,
		Version: []string{"claude", "--version"},
	}
}

func (claude) Argv(inv Invocation, effort string) ([]string, error) {
	a := []string{"claude", "-p", "--output-format", "json", "--permission-mode", "acceptEdits"}
	if inv.Resume != "" {
		a = append(a, "--resume", inv.Resume)
	}
	if inv.Model != "" {
		a = append(a, "--model", inv.Model)
	}
	if effort != "" {
		a = append(a, "--effort", effort)
	}
	if inv.MaxTurns > 0 {
		a = append(a, "--max-turns", strconv.Itoa(inv.MaxTurns))
	}
	return a, nil
}

// claudeResult is the JSON object `claude -p --output-format json` prints.
type claudeResult struct {
	Type    string   `json:"type"`
	Subtype string   `json:"subtype"`
	IsError bool     `json:"is_error"`
	Result  string   `json:"result"`
	Errors  []string `json:"errors"`
}

// Final is .result of claude's JSON; "is_error": true, an error subtype or
// a non-zero exit fails, with .result as the cause.
func (claude) Final(o Output) (string, string, bool) {
	var r claudeResult
	if !jsonObject(o.Stdout, &r) || r.Type != "result" {
		return "", unreadable("claude", "its JSON result", o), true
	}
	msg := trimEnd(r.Result)
	errSubtype := strings.HasPrefix(r.Subtype, "error")
	if !r.IsError && !errSubtype && o.ExitCode == 0 {
		return msg, "", false
	}
	switch {
	case strings.TrimSpace(r.Result) != "":
		// A failed session's .result is its error, not a final message.
		return "", oneLine(r.Result), true
	case len(r.Errors) > 0:
		return msg, oneLine(strings.Join(r.Errors, "; ")), true
	case r.Subtype == "error_max_turns":
		return msg, "reached its max turns (error_max_turns)", true
	case errSubtype:
		return msg, "claude ended with " + r.Subtype, true
	}
	return msg, exitCause(o), true
}

// FinalJQ is Final in jq.
func (claude) FinalJQ() (string, string) { return "claude", claudeJQ }

const claudeJQ = `def claude:
  ($out | object) as $r
  | if $r == null or $r.type != "result" then {m: "", c: unreadable("claude"; "its JSON result"), f: true}
    else ($r.result // "") as $res | ($res | trimend) as $msg
      | (($r.subtype // "") | startswith("error")) as $es
      | if ($r.is_error != true) and ($es | not) and $rc == 0 then {m: $msg, c: "", f: false}
        elif ($res | blank | not) then {m: "", c: ($res | oneline), f: true}
        elif (($r.errors // []) | length) > 0 then {m: $msg, c: ($r.errors | join("; ") | oneline), f: true}
        elif $r.subtype == "error_max_turns" then {m: $msg, c: "reached its max turns (error_max_turns)", f: true}
        elif $es then {m: $msg, c: "claude ended with \($r.subtype)", f: true}
        else {m: $msg, c: exitcause, f: true} end
    end;`

// SessionEnd is .session_id; the subtype error_max_turns; it worked unless
// it failed with a "success" subtype (an API or login error before any
// turn).
func (claude) SessionEnd(o Output) SessionEnd {
	var r struct {
		claudeResult
		SessionID string `json:"session_id"`
	}
	if !jsonObject(o.Stdout, &r) || r.Type != "result" {
		return SessionEnd{}
	}
	return SessionEnd{
		ID:       r.SessionID,
		MaxTurns: r.Subtype == "error_max_turns",
		Worked:   (!r.IsError && o.ExitCode == 0) || strings.HasPrefix(r.Subtype, "error"),
	}
}

// Login asks `claude auth status`, whose JSON says loggedIn (exit 1 when
// not): an API key in ANTHROPIC_API_KEY counts, as does a /login.
func (claude) Login(ctx context.Context, bin string, env []string) (Login, bool) {
	stdout, stderr, code := probe(ctx, bin, env, "auth", "status")
	var st struct {
		LoggedIn     *bool  `json:"loggedIn"`
		AuthMethod   string `json:"authMethod"`
		APIKeySource string `json:"apiKeySource"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil || st.LoggedIn == nil {
		return loginUnknown(probeFailed("claude auth status", code, stdout, stderr)), true
	}
	if !*st.LoggedIn {
		return loggedOut("claude auth status: not logged in"), true
	}
	how := "claude auth status"
	switch {
	case st.APIKeySource != "":
		how = st.APIKeySource
	case st.AuthMethod != "":
		how = "claude auth status: " + st.AuthMethod
	}
	return loggedIn(how), true
}
