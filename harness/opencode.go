package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// opencode is opencode: `opencode run --format json`, the prompt on stdin,
// which it reads when it is not a terminal and no message is given: a
// message in its argv reaches the model with each word that holds a space
// in "…" and each " in it as \".
type opencode struct{}

func (opencode) Spec() Spec {
	return Spec{
		Name: "opencode",
		// medium is opencode's default variant: no --variant is passed.
		Efforts: map[string]string{"low": "minimal", "medium": "", "high": "high", "xhigh": "max", "max": "max"},
		// opencode names a model PROVIDER/MODEL: Anthropic's, as
		// opencode 1.18.33's catalogue names them; [models.opencode]
		// maps the tiers onto another provider's.
		Tiers: map[string]string{
			"efficient": "anthropic/claude-haiku-4-5",
			"balanced":  "anthropic/claude-sonnet-5",
			"strong":    "anthropic/claude-opus-5",
			"strongest": "anthropic/claude-fable-5",
		},
		Resume:    true,
		Cost:      true,
		TurnEvent: &opencodeTurn,
		Version:   []string{"opencode", "--version"},
	}
}

// opencodePermission is opencode's permission config (OPENCODE_PERMISSION,
// which replaces the config files' permission) for each access level.
// read: no edits and no commands. write: edits and every command, but none
// that names a path outside the worktree; "deny" refuses the one call and
// the session goes on, where "ask" would end it (opencode run rejects what
// asks). A rule on the paths it can read in a command, not a sandbox. full:
// everything, with --auto.
//
// read runs no command at all, not even git log: opencode matches its bash
// patterns against each simple command's text alone (with its own
// redirections), so "(ls) > FILE" and "{ git log; } > FILE" pass as "ls"
// and "git log", and no pattern can see the redirection that writes FILE.
// Its read, grep and glob tools still read the worktree.
var opencodePermission = map[string]string{
	ir.AccessRead:  `{"edit":"deny","bash":"deny","external_directory":"deny"}`,
	ir.AccessWrite: `{"edit":"allow","bash":"allow","external_directory":"deny"}`,
	ir.AccessFull:  `{"*":"allow"}`,
}

// Command maps the access onto opencode's permission config, in its
// environment, and --auto for full.
//
// opencode's retries cannot be capped: it retries a 429 or 500 five times,
// 2 s to 30 s apart, for about 75 s, printing nothing meanwhile; the step's
// timeout bounds it.
func (opencode) Command(inv Invocation, effort string) (Command, error) {
	a := []string{"opencode", "run"}
	if inv.Resume != "" {
		a = append(a, "--session", inv.Resume)
	}
	if inv.Model != "" {
		a = append(a, "-m", inv.Model)
	}
	if effort != "" {
		a = append(a, "--variant", effort)
	}
	a = append(a, "--format", "json", "--dir", inv.Worktree)
	if inv.Access == ir.AccessFull {
		a = append(a, "--auto")
	}
	return Command{Argv: a, Env: []string{"OPENCODE_PERMISSION=" + opencodePermission[inv.Access]}}, nil
}

// opencodeTurn is a turn of opencode run: a step, one model request, as
// its step_start event begins it. opencode's own cap (an agent's "steps")
// only asks the model for a text answer once reached.
var opencodeTurn = TurnEvent{
	What: "a step, one model request (a step_start event)",
	Starts: func(line []byte) bool {
		var e struct {
			Type string `json:"type"`
		}
		return isEvent(line, &e) && e.Type == "step_start"
	},
	JQ: `.type == "step_start"`,
}

// opencodeEvent is one line of `opencode run --format json`.
type opencodeEvent struct {
	Type string `json:"type"`
	Part *struct {
		Text string `json:"text"`
	} `json:"part"`
	Error *struct {
		Name    string `json:"name"`
		Message string `json:"message"`
		Data    *struct {
			Message string `json:"message"`
		} `json:"data"`
	} `json:"error"`
}

// Final is the last text event's text; an error event or a non-zero exit
// fails, with the error's message as the cause.
func (opencode) Final(o Output) (string, string, bool) {
	var (
		events   int
		msg      string
		errCause string
		errored  bool
	)
	for line := range strings.Lines(string(o.Stdout)) {
		var e opencodeEvent
		if !strings.HasPrefix(strings.TrimSpace(line), "{") || json.Unmarshal([]byte(line), &e) != nil || e.Type == "" {
			continue
		}
		events++
		switch e.Type {
		case "text":
			if e.Part != nil {
				msg = e.Part.Text
			}
		case "error":
			errored = true
			if e.Error != nil {
				switch {
				case e.Error.Data != nil && strings.TrimSpace(e.Error.Data.Message) != "":
					errCause = e.Error.Data.Message
				case strings.TrimSpace(e.Error.Message) != "":
					errCause = e.Error.Message
				default:
					errCause = e.Error.Name
				}
			}
		}
	}
	msg = trimEnd(msg)
	if events == 0 && len(bytes.TrimSpace(o.Stdout)) > 0 {
		return msg, unreadable("opencode", "its JSON events", o), true
	}
	switch {
	case errored && strings.TrimSpace(errCause) != "":
		return msg, oneLine(errCause), true
	case errored || o.ExitCode != 0:
		return msg, exitCause(o), true
	}
	return msg, "", false
}

// FinalJQ is Final in jq.
func (opencode) FinalJQ() (string, string) { return "opencode", opencodeJQ }

const opencodeJQ = `def opencode:
  ($out | events) as $ev
  | ([$ev[] | select(.type == "text" and .part != null) | .part.text // ""] | last // "" | trimend) as $msg
  | ([$ev[] | select(.type == "error")] | length > 0) as $errored
  | ([$ev[] | select(.type == "error" and .error != null) | .error
      | if ((.data.message? // "") | blank | not) then .data.message
        elif ((.message // "") | blank | not) then .message
        else .name // "" end] | last // "") as $cause
  | if ($ev | length) == 0 and ($out | blank | not) then {m: $msg, c: unreadable("opencode"; "its JSON events"), f: true}
    elif $errored and ($cause | blank | not) then {m: $msg, c: ($cause | oneline), f: true}
    elif $errored or $rc != 0 then {m: $msg, c: exitcause, f: true}
    else {m: $msg, c: "", f: false} end;`

// opencodeStep is the part of opencode's step_finish event: one model
// request's tokens and cost.
type opencodeStep struct {
	Tokens *struct {
		Input     *int64 `json:"input"`
		Output    *int64 `json:"output"`
		Reasoning *int64 `json:"reasoning"`
		Cache     *struct {
			Read  *int64 `json:"read"`
			Write *int64 `json:"write"`
		} `json:"cache"`
	} `json:"tokens"`
	Cost *float64 `json:"cost"`
}

// SessionEnd is the events' sessionID; it worked when a text, tool or step
// finished. Its usage, summed over the step_finish events, one a model
// request: the events as turns; part.tokens.input (without the cache's),
// output and reasoning as the output, cache.read and cache.write; and
// part.cost, which opencode computes from the model's prices. A request
// that spent tokens at a cost of 0 (or none) is one whose model opencode
// has no prices for, a free one among them: it reports 0 for both, so the
// session's cost is unknown, and absent (Unpriced).
func (opencode) SessionEnd(o Output) SessionEnd {
	var end SessionEnd
	for line := range strings.Lines(string(o.Stdout)) {
		var e struct {
			Type      string        `json:"type"`
			SessionID string        `json:"sessionID"`
			Part      *opencodeStep `json:"part"`
		}
		if !strings.HasPrefix(strings.TrimSpace(line), "{") || json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		if e.SessionID != "" {
			end.ID = e.SessionID
		}
		switch e.Type {
		case "text", "tool_use":
			end.Worked = true
		case "step_finish":
			end.Worked = true
			u := ir.Usage{Turns: ir.Count(1)}
			if p := e.Part; p != nil {
				u.CostUSD = p.Cost
				if t := p.Tokens; t != nil {
					u.InputTokens = t.Input
					u.OutputTokens = plus(t.Output, t.Reasoning)
					if t.Cache != nil {
						u.CacheReadTokens, u.CacheWriteTokens = t.Cache.Read, t.Cache.Write
					}
				}
			}
			if unpriced(u) {
				end.Unpriced = true
			}
			end.Usage = end.Usage.Plus(u)
		}
	}
	if end.Unpriced {
		end.Usage.CostUSD = nil
	}
	return end
}

// unpriced reports whether u, one model request's usage, spent tokens at a
// cost of 0 or none.
func unpriced(u ir.Usage) bool {
	var tokens int64
	for _, n := range []*int64{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens} {
		if n != nil {
			tokens += *n
		}
	}
	return tokens > 0 && u.Cost() == 0
}

// UsageJQ is SessionEnd's usage in jq.
func (opencode) UsageJQ() (string, string) { return "usage_opencode", opencodeUsageJQ }

const opencodeUsageJQ = `def usage_opencode:
  [$out | events[] | select(.type == "step_finish") | (.part // {}) as $p | ($p.tokens // {}) as $t
    | {turns: 1, input_tokens: $t.input, output_tokens: usage_add($t.output; $t.reasoning),
       cache_read_tokens: $t.cache.read?, cache_write_tokens: $t.cache.write?, cost_usd: $p.cost}
    | usage_clean] as $requests
  | usage_sum($requests[])
  | if any($requests[]; ([.input_tokens, .output_tokens, .cache_read_tokens, .cache_write_tokens] | map(numbers) | add // 0) > 0
        and (.cost_usd // 0) == 0)
    then del(.cost_usd) else . end;`

// ansi matches the colour codes opencode writes even to a pipe.
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// Login asks `opencode auth list`, which lists the stored credentials and
// the providers' key variables set in the environment, one "●" line each:
// none means no provider can authenticate.
func (opencode) Login(ctx context.Context, bin string, env []string) (Login, bool) {
	stdout, stderr, code := probe(ctx, bin, env, "auth", "list")
	if code != 0 {
		return loginUnknown(probeFailed("opencode auth list", code, stdout, stderr)), true
	}
	var found []string
	for line := range strings.Lines(ansi.ReplaceAllString(stdout, "")) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "●"); ok {
			found = append(found, strings.Join(strings.Fields(rest), " "))
		}
	}
	if len(found) == 0 {
		return loggedOut("opencode auth list: no credentials and no provider key variable"), true
	}
	return loggedIn("opencode auth list: " + strings.Join(found, ", ")), true
}
