package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// opencode is opencode: `opencode run --format json`, the prompt in its
// argv.
type opencode struct{}

func (opencode) Spec() Spec {
	return Spec{
		Name: "opencode",
		// medium is opencode's default variant: no --variant is passed.
		Efforts: map[string]string{"low": "minimal", "medium": "", "high": "high", "xhigh": "max", "max": "max"},
		Resume:  true,
		Cost:    true,
		Version: []string{"opencode", "--version"},
	}
}

func (opencode) Argv(inv Invocation, effort string) ([]string, error) {
	a := []string{"opencode", "run", inv.Prompt}
	if inv.Resume != "" {
		a = append(a, "--session", inv.Resume)
	}
	if inv.Model != "" {
		a = append(a, "-m", inv.Model)
	}
	if effort != "" {
		a = append(a, "--variant", effort)
	}
	return append(a, "--format", "json", "--dir", inv.Worktree, "--auto"), nil
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
// part.cost, which opencode computes from the model's prices.
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
			end.Usage = end.Usage.Plus(u)
		}
	}
	return end
}

// UsageJQ is SessionEnd's usage in jq.
func (opencode) UsageJQ() (string, string) { return "usage_opencode", opencodeUsageJQ }

const opencodeUsageJQ = `def usage_opencode:
  usage_sum($out | events[] | select(.type == "step_finish") | (.part // {}) as $p | ($p.tokens // {}) as $t
    | {turns: 1, input_tokens: $t.input, output_tokens: usage_add($t.output; $t.reasoning),
       cache_read_tokens: $t.cache.read?, cache_write_tokens: $t.cache.write?, cost_usd: $p.cost}
    | usage_clean);`

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
