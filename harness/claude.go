package harness

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/ir"
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
		// claude -p refuses more than 10 MiB on stdin ("piped stdin
		// input exceeds 10MB"), counted in UTF-16 code units: never more
		// than the bytes.
		MaxPrompt: 10 << 20,
		Resume:    true,
		Turns:     true,
		Cost:      true,
		// Stopped at its --max-budget-usd (SessionEnd).
		BudgetJQ: `$out | object | .type == "result" and .subtype == "error_max_budget_usd"`,
		// Without bubblewrap and socat, Claude Code warns "Sandbox
		// disabled" and runs the commands unconfined.
		Sandboxes: map[string]Sandbox{
			ir.AccessWrite: {Name: "claude's sandbox", Needs: []string{"bwrap", "socat"}, Repository: true},
		},
		Version: []string{"claude", "--version"},
	}
}

// claudeSandbox turns on Claude Code's sandbox for Bash: bubblewrap
// confines the commands' writes to the working directory (and cuts their
// network), and autoAllowBashIfSandboxed runs them without asking.
const claudeSandbox = `{"sandbox":{"enabled":true,"autoAllowBashIfSandboxed":true}}`

// claudeSettings is claudeSandbox keeping repo from the session. In a
// linked worktree Claude Code's sandbox lets the commands write the whole
// of the repository's git directory, so that git can commit there, and
// keeps only its config and hooks: a session could create and move
// branches, delete tags and plant the main worktree's state. denyWrite
// keeps every path of repo's Kept (a deny wins over Claude Code's own
// grant; a missing path is held by an empty device node while a command
// runs).
func claudeSettings(repo *Repository) (string, error) {
	if repo == nil {
		return claudeSandbox, nil
	}
	type filesystem struct {
		DenyWrite []string `json:"denyWrite"`
	}
	type sandbox struct {
		Enabled                  bool       `json:"enabled"`
		AutoAllowBashIfSandboxed bool       `json:"autoAllowBashIfSandboxed"`
		Filesystem               filesystem `json:"filesystem"`
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Sandbox sandbox `json:"sandbox"`
	}{sandbox{Enabled: true, AutoAllowBashIfSandboxed: true, Filesystem: filesystem{DenyWrite: repo.Kept()}}})
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// claudeRetries cap how long Claude Code retries a failed model request.
// It honours a 429's retry-after (up to 60 s, each retry; a longer one
// fails at once), so with CLAUDE_CODE_MAX_RETRIES alone a realistic 429
// (retry-after: 30) kept a session 2.5 minutes. Its retry watchdog, scoped
// to capacity errors (429, 529), caps the time it waits on them altogether:
// 30 s, one retry of such a 429, after which it fails (a session that met
// it every time: 33 s, measured with Claude Code 2.1.332 through cairn
// run). Other errors (a 500) keep the 4 retries, about 13 s.
var claudeRetries = []string{
	"CLAUDE_CODE_MAX_RETRIES=4",
	"CLAUDE_CODE_RETRY_WATCHDOG=1",
	"CLAUDE_CODE_RETRY_WATCHDOG_SCOPE=capacity",
	"CLAUDE_CODE_RETRY_WATCHDOG_MAX_WAIT_MS=30000",
}

// Command maps the access onto Claude Code's permissions. read: dontAsk
// denies every tool use not pre-approved (read-only commands such as git
// log still run). write: acceptEdits and every Bash command, in its
// sandbox where bubblewrap and socat are installed (acceptEdits alone asks
// for, and so refuses, go version); with the worktree's repository known,
// the sandbox keeps it from the commands (claudeSettings). full:
// bypassPermissions, which Claude Code refuses as root unless IS_SANDBOX=1
// says the machine is disposable.
func (claude) Command(inv Invocation, effort string) (Command, error) {
	a := []string{"claude", "-p", "--output-format", "json"}
	env := slices.Clone(claudeRetries)
	switch inv.Access {
	case ir.AccessRead:
		a = append(a, "--permission-mode", "dontAsk")
	case ir.AccessWrite:
		// --allowedTools is variadic: the = form keeps it from taking
		// the next argument.
		settings, err := claudeSettings(inv.Repository)
		if err != nil {
			return Command{}, err
		}
		a = append(a, "--permission-mode", "acceptEdits", "--allowedTools=Bash", "--settings", settings)
	case ir.AccessFull:
		a = append(a, "--permission-mode", "bypassPermissions")
		env = append(env, "IS_SANDBOX=1")
	}
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
	if inv.BudgetUSD > 0 {
		a = append(a, "--max-budget-usd", strconv.FormatFloat(inv.BudgetUSD, 'f', -1, 64))
	}
	return Command{Argv: a, Env: env}, nil
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

// claudeTokens are the token counts of claude's .usage.
type claudeTokens struct {
	InputTokens   *int64 `json:"input_tokens"`
	OutputTokens  *int64 `json:"output_tokens"`
	CacheRead     *int64 `json:"cache_read_input_tokens"`
	CacheCreation *int64 `json:"cache_creation_input_tokens"`
}

// claudeModelTokens are one model's token counts in claude's .modelUsage.
type claudeModelTokens struct {
	InputTokens   *int64 `json:"inputTokens"`
	OutputTokens  *int64 `json:"outputTokens"`
	CacheRead     *int64 `json:"cacheReadInputTokens"`
	CacheCreation *int64 `json:"cacheCreationInputTokens"`
}

// claudeUsage is what claude's JSON says a session used.
type claudeUsage struct {
	NumTurns     *int64                       `json:"num_turns"`
	TotalCostUSD *float64                     `json:"total_cost_usd"`
	Usage        *claudeTokens                `json:"usage"`
	ModelUsage   map[string]claudeModelTokens `json:"modelUsage"`
}

// SessionEnd is .session_id; the subtypes error_max_turns and
// error_max_budget_usd; it worked unless it failed with a "success" subtype
// (an API or login error before any turn). Its usage: .num_turns, this run's
// turns; .total_cost_usd, and the tokens of every model in .modelUsage,
// summed, both counted from the session's first start (a resumed session's
// include the earlier runs'). .usage counts this run's tokens, but claude
// stopped at its budget leaves it all zero: it is read only from a result
// without .modelUsage.
func (claude) SessionEnd(o Output) SessionEnd {
	var r struct {
		claudeResult
		claudeUsage
		SessionID string `json:"session_id"`
	}
	if !jsonObject(o.Stdout, &r) || r.Type != "result" {
		return SessionEnd{}
	}
	end := SessionEnd{
		ID:       r.SessionID,
		MaxTurns: r.Subtype == "error_max_turns",
		Budget:   r.Subtype == "error_max_budget_usd",
		Worked:   (!r.IsError && o.ExitCode == 0) || strings.HasPrefix(r.Subtype, "error"),
	}
	end.Usage.Turns = r.NumTurns
	end.Total.CostUSD = r.TotalCostUSD
	switch {
	case len(r.ModelUsage) > 0:
		for _, m := range r.ModelUsage {
			end.Total = end.Total.Plus(ir.Usage{
				InputTokens:      m.InputTokens,
				OutputTokens:     m.OutputTokens,
				CacheReadTokens:  m.CacheRead,
				CacheWriteTokens: m.CacheCreation,
			})
		}
	case r.Usage != nil:
		end.Usage.InputTokens, end.Usage.OutputTokens = r.Usage.InputTokens, r.Usage.OutputTokens
		end.Usage.CacheReadTokens, end.Usage.CacheWriteTokens = r.Usage.CacheRead, r.Usage.CacheCreation
	}
	return end
}

// UsageJQ is SessionEnd's usage in jq.
func (claude) UsageJQ() (string, string) { return "usage_claude", claudeUsageJQ }

const claudeUsageJQ = `def usage_claude:
  ($out | object) as $r
  | if $r == null or $r.type != "result" then {}
    else [($r.modelUsage // {})[]?] as $m
      | def sum(f): [$m[] | f | numbers] | if length > 0 then add else null end;
      {turns: $r.num_turns, cost_usd: $r.total_cost_usd}
      + (if ($m | length) > 0
         then {input_tokens: sum(.inputTokens), output_tokens: sum(.outputTokens),
               cache_read_tokens: sum(.cacheReadInputTokens), cache_write_tokens: sum(.cacheCreationInputTokens)}
         else ($r.usage // {}) | {input_tokens, output_tokens,
               cache_read_tokens: .cache_read_input_tokens, cache_write_tokens: .cache_creation_input_tokens} end)
      | usage_clean
    end;`

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
