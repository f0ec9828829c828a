package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

// codex is Codex CLI: `codex exec --json`, its final message in the -o
// file.
type codex struct{}

func (codex) Spec() Spec {
	return Spec{
		Name:    "codex",
		Efforts: map[string]string{"low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "xhigh"},
		// The models codex 0.171.0 lists (its built-in catalogue): Terra
		// "efficient", Sol "fast, go-to", Astra "most capable".
		Tiers: map[string]string{
			"efficient": "gpt-6.1-terra",
			"balanced":  "gpt-6.2-sol",
			"strong":    "gpt-6.2-astra",
			"strongest": "gpt-6.2-astra",
		},
		// codex exec refuses more than 1,048,576 characters ("Input
		// exceeds the maximum length"): never more than the bytes.
		MaxPrompt:   1 << 20,
		Resume:      true,
		MessageFile: true,
		TurnEvent:   &codexTurn,
		Sandboxes: map[string]Sandbox{
			ir.AccessRead:  {Name: "codex's read-only sandbox"},
			ir.AccessWrite: {Name: "codex's workspace-write sandbox"},
		},
		Version: []string{"codex", "--version"},
	}
}

// codexSandbox is codex's sandbox mode for each access level.
var codexSandbox = map[string]string{
	ir.AccessRead:  "read-only",
	ir.AccessWrite: "workspace-write",
	ir.AccessFull:  "danger-full-access",
}

// Command maps the access onto codex's own sandbox, which confines the
// commands' writes to the worktree (and /tmp) in workspace-write and all of
// them in read-only; codex exec refuses what the sandbox does not allow
// without asking. allow_login_shell=false runs commands in a plain bash: a
// login shell's /etc/profile resets PATH, and go version is not found.
//
// Its retries are left as they are: -c can cap them only for a provider
// named in the user's own config, and the built-in ones give up on a 429
// or 500 within about 25 s.
func (codex) Command(inv Invocation, effort string) (Command, error) {
	a := []string{"codex", "exec", "--json", "-o", inv.OutputFile, "--sandbox", codexSandbox[inv.Access], "-c", "allow_login_shell=false"}
	if inv.Model != "" {
		a = append(a, "-m", inv.Model)
	}
	if effort != "" {
		a = append(a, "-c", "model_reasoning_effort="+effort)
	}
	a = append(a, "-C", inv.Worktree)
	if inv.Resume != "" {
		// The options above are exec's; resume takes the
		// session's id, then the prompt ("-": stdin).
		a = append(a, "resume", inv.Resume)
	}
	return Command{Argv: append(a, "-")}, nil
}

// codexTurn is a turn of codex exec: its --json events have none per model
// request, so a turn is a tool call (a command, a patch, an MCP call, a web
// search), counted as its item starts. A session that makes max_turns tool
// calls and answers passes.
var codexTurn = TurnEvent{
	What: "a tool call (an item.started event of a command, a patch, an MCP call or a web search)",
	Starts: func(line []byte) bool {
		var e struct {
			Type string `json:"type"`
			Item *struct {
				Type string `json:"type"`
			} `json:"item"`
		}
		if !isEvent(line, &e) || e.Type != "item.started" || e.Item == nil {
			return false
		}
		switch e.Item.Type {
		case "agent_message", "reasoning", "error":
			return false
		}
		return true
	},
	JQ: `.type == "item.started" and (.item | type) == "object"
  and (.item.type as $t | $t != "agent_message" and $t != "reasoning" and $t != "error")`,
}

// codexEvent is one line of `codex exec --json`.
type codexEvent struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Error   *struct {
		Message string `json:"message"`
	} `json:"error"`
	Item *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"item"`
}

// Final is the text of the -o file (else the last agent message); a
// turn.failed event or a non-zero exit fails, with the turn.failed or last
// error event's message as the cause.
func (codex) Final(o Output) (string, string, bool) {
	var (
		events     int
		lastError  string
		turnFailed string
		failedTurn bool
		lastAgent  string
	)
	for line := range strings.Lines(string(o.Stdout)) {
		var e codexEvent
		if !strings.HasPrefix(strings.TrimSpace(line), "{") || json.Unmarshal([]byte(line), &e) != nil || e.Type == "" {
			continue
		}
		events++
		switch e.Type {
		case "error":
			lastError = e.Message
		case "turn.failed":
			failedTurn = true
			if e.Error != nil {
				turnFailed = e.Error.Message
			}
		case "item.completed":
			if e.Item != nil && e.Item.Type == "agent_message" {
				lastAgent = e.Item.Text
			}
		}
	}
	msg := lastAgent
	if o.OutputFile != "" {
		if b, err := os.ReadFile(o.OutputFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			msg = string(b)
		}
	}
	msg = trimEnd(msg)
	if events == 0 && len(bytes.TrimSpace(o.Stdout)) > 0 {
		return msg, unreadable("codex", "its JSONL events", o), true
	}
	if !failedTurn && o.ExitCode == 0 {
		return msg, "", false
	}
	switch {
	case strings.TrimSpace(turnFailed) != "":
		return msg, oneLine(turnFailed), true
	case strings.TrimSpace(lastError) != "":
		return msg, oneLine(lastError), true
	case failedTurn && o.ExitCode == 0:
		return msg, "codex: the turn failed", true
	}
	return msg, exitCause(o), true
}

// FinalJQ is Final in jq.
func (codex) FinalJQ() (string, string) { return "codex", codexJQ }

const codexJQ = `def codex:
  ($out | events) as $ev
  | ([$ev[] | select(.type == "error") | .message // ""] | last // "") as $lasterror
  | ([$ev[] | select(.type == "turn.failed")] | length > 0) as $failedturn
  | ([$ev[] | select(.type == "turn.failed" and .error != null) | .error.message // ""] | last // "") as $turnfailed
  | ([$ev[] | select(.type == "item.completed" and .item.type? == "agent_message") | .item.text // ""] | last // "") as $agent
  | (if ($last | blank) then $agent else $last end | trimend) as $msg
  | if ($ev | length) == 0 and ($out | blank | not) then {m: $msg, c: unreadable("codex"; "its JSONL events"), f: true}
    elif ($failedturn | not) and $rc == 0 then {m: $msg, c: "", f: false}
    elif ($turnfailed | blank | not) then {m: $msg, c: ($turnfailed | oneline), f: true}
    elif ($lasterror | blank | not) then {m: $msg, c: ($lasterror | oneline), f: true}
    elif $failedturn and $rc == 0 then {m: $msg, c: "codex: the turn failed", f: true}
    else {m: $msg, c: exitcause, f: true} end;`

// codexUsage is the usage of codex's turn.completed event.
type codexUsage struct {
	InputTokens  *int64 `json:"input_tokens"`
	CachedInput  *int64 `json:"cached_input_tokens"`
	CacheWrite   *int64 `json:"cache_write_input_tokens"`
	OutputTokens *int64 `json:"output_tokens"`
}

// SessionEnd is thread.started's thread_id; it worked when an item
// completed. Its usage: the turn.completed events, this run's turns; the
// last one's usage, which counts from the thread's first start (a resumed
// thread's include the earlier runs'). Codex counts the cached input in
// input_tokens: the input tokens here are those less cached_input_tokens,
// read from the cache. It reports no cost.
//
// A turn that never completed (cairn stopped it at its turn cap, or a
// signal ended codex) printed no usage: codex wrote it to its session file
// only, $CODEX_HOME/sessions/…/rollout-…-THREAD.jsonl, as the token_count
// events of the model's answers it had read, each with the thread's total
// so far. That turn counts, with the last total.
func (codex) SessionEnd(o Output) SessionEnd {
	var (
		end   SessionEnd
		turns int64
		open  bool
	)
	for line := range strings.Lines(string(o.Stdout)) {
		var e struct {
			Type     string      `json:"type"`
			ThreadID string      `json:"thread_id"`
			Usage    *codexUsage `json:"usage"`
		}
		if !strings.HasPrefix(strings.TrimSpace(line), "{") || json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		switch e.Type {
		case "thread.started":
			end.ID = e.ThreadID
		case "turn.started":
			open = true
		case "turn.failed":
			open = false
		case "item.completed":
			end.Worked = true
		case "turn.completed":
			open = false
			end.Worked = true
			turns++
			if u := e.Usage; u != nil {
				end.Total = u.total()
			}
		}
	}
	if open {
		if u := codexSessionUsage(o.Env, end.ID); u != nil {
			turns++
			end.Total = u.total()
		}
	}
	if turns > 0 {
		end.Usage.Turns = ir.Count(turns)
	}
	return end
}

// total is u in cairn's terms: the input less what was read from the cache.
func (u codexUsage) total() ir.Usage {
	t := ir.Usage{
		InputTokens:      u.InputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CachedInput,
		CacheWriteTokens: u.CacheWrite,
	}
	if u.InputTokens != nil && u.CachedInput != nil {
		t.InputTokens = ir.Count(max(*u.InputTokens-*u.CachedInput, 0))
	}
	return t
}

// codexThreadID is the shape of a thread's id, which names its session
// file.
var codexThreadID = regexp.MustCompile(`^[0-9A-Za-z-]+$`)

// codexSessionUsage is the thread's total usage in the last token_count
// event of its session file, under CODEX_HOME (else ~/.codex) in env; nil
// when there is none.
func codexSessionUsage(env []string, thread string) *codexUsage {
	home := environ(env).get("CODEX_HOME")
	if home == "" && environ(env).get("HOME") != "" {
		home = filepath.Join(environ(env).get("HOME"), ".codex")
	}
	if home == "" || !codexThreadID.MatchString(thread) {
		return nil
	}
	// A thread resumed on another day may have a file of each day: the
	// newest is this run's.
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "rollout-*-"+thread+".jsonl"))
	newest, newestTime := "", time.Time{}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && !fi.ModTime().Before(newestTime) {
			newest, newestTime = f, fi.ModTime()
		}
	}
	b, err := os.ReadFile(newest)
	if newest == "" || err != nil {
		return nil
	}
	var last *codexUsage
	for line := range strings.Lines(string(b)) {
		var e struct {
			Type    string `json:"type"`
			Payload struct {
				Type string `json:"type"`
				Info *struct {
					Total *codexUsage `json:"total_token_usage"`
				} `json:"info"`
			} `json:"payload"`
		}
		if json.Unmarshal([]byte(line), &e) != nil || e.Type != "event_msg" || e.Payload.Type != "token_count" || e.Payload.Info == nil {
			continue
		}
		if e.Payload.Info.Total != nil {
			last = e.Payload.Info.Total
		}
	}
	return last
}

// UsageJQ is SessionEnd's usage in jq.
func (codex) UsageJQ() (string, string) { return "usage_codex", codexUsageJQ }

const codexUsageJQ = `def usage_codex:
  [$out | events[] | select(.type == "turn.completed")] as $t
  | if ($t | length) == 0 then {}
    else ([$t[] | select(.usage != null) | .usage] | last // {}) as $u
      | {turns: ($t | length),
         input_tokens: (if ($u.input_tokens | type) == "number" and ($u.cached_input_tokens | type) == "number"
                        then [$u.input_tokens - $u.cached_input_tokens, 0] | max else $u.input_tokens end),
         output_tokens: $u.output_tokens, cache_read_tokens: $u.cached_input_tokens,
         cache_write_tokens: $u.cache_write_input_tokens}
      | usage_clean
    end;`

// Login takes CODEX_API_KEY, which codex exec reads, else asks `codex login
// status` (exit 0 when logged in, 1 and "Not logged in" when not).
func (codex) Login(ctx context.Context, bin string, env []string) (Login, bool) {
	if environ(env).get("CODEX_API_KEY") != "" {
		return loggedIn("CODEX_API_KEY"), true
	}
	stdout, stderr, code := probe(ctx, bin, env, "login", "status")
	switch code {
	case 0:
		return loggedIn("codex login status"), true
	case 1:
		return loggedOut("codex login status: " + firstWordsLine(stderr+"\n"+stdout, "not logged in")), true
	}
	return loginUnknown(probeFailed("codex login status", code, stdout, stderr)), true
}

// firstWordsLine is the last line of s that is not a warning, or def.
func firstWordsLine(s, def string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "WARNING") {
			return strings.ToLower(l)
		}
	}
	return def
}
