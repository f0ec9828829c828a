package harness

import (
	"encoding/json"
	"math"
	"math/big"

	"github.com/cairn-dev/cairn/ir"
)

// SessionEnd is how a session ended beyond its final message, read from its
// CLI's output: the CLI's id of the session (what Invocation.Resume
// continues), whether it stopped at its turn cap or at the budget it was
// given (Invocation.BudgetUSD), whether the agent worked at all, and what it
// used. A session that failed without working never reached the model: the
// CLI could not start one (no credentials, a model it refused).
//
// Usage holds the figures the CLI reports for this run of it alone; Total
// those it reports for the CLI's whole session, from its first start, which
// a resumed session counts again (claude's cost and per-model tokens,
// codex's tokens). Used is what this run of the CLI used.
//
// Unpriced says that a CLI which reports cost did not know this session's:
// it spent tokens on a model the CLI has no prices for (opencode reports a
// cost of 0 then), and Usage holds no cost.
type SessionEnd struct {
	ID       string
	MaxTurns bool
	Budget   bool
	Worked   bool
	Unpriced bool
	Usage    ir.Usage
	Total    ir.Usage
}

// Used is what the session used: Usage, plus Total less the Total of prior,
// the end of the run of the CLI this one resumed (nil, or another
// session's, when it resumed none).
func (e SessionEnd) Used(prior *SessionEnd) ir.Usage {
	total := e.Total
	if prior != nil && prior.ID != "" && prior.ID == e.ID {
		total = total.Minus(prior.Total)
	}
	return e.Usage.Plus(total)
}

// SessionEnd reads how a session ended from its output (see the type), as
// h's jq (JQ's End, jq/NAME.jq) says for its CLI; for a CLI that keeps a
// session file (codex), from that file too when the output left a turn
// unreported. Output it cannot read ended with nothing known. A session
// whose CLI reported tokens and no cost is given one from the price table,
// at the rates of o's Model, marked estimated (SessionEnd.Estimated).
func (h *Harness) SessionEnd(o Output) SessionEnd {
	vars := jqInputs(o)
	v, err := runJQ(h.jq.End, nil, vars)
	if err != nil {
		return SessionEnd{}
	}
	end, _ := v.(map[string]any)
	if f, ok := h.adapter.(sessionFiler); ok && h.jq.File != "" && end["open"] == true {
		id, _ := end["id"].(string)
		if text, ok := f.sessionFile(o.Env, id); ok {
			vars[len(vars)-1] = text
			if w, err := runJQ(h.jq.File+"($session_file)", end, vars); err == nil {
				end, _ = w.(map[string]any)
			}
		}
	}
	e := SessionEnd{Usage: jqUsage(end["usage"]), Total: jqUsage(end["total"])}
	e.ID, _ = end["id"].(string)
	e.MaxTurns, _ = end["max_turns"].(bool)
	e.Budget, _ = end["budget"].(bool)
	e.Worked, _ = end["worked"].(bool)
	e.Unpriced, _ = end["unpriced"].(bool)
	return e.Estimated(h.prices.table(), h.Name, o.Model)
}

// jqUsage is the usage v, an object of figures (usage_clean's), as cairn
// keeps it.
func jqUsage(v any) ir.Usage {
	u, _ := v.(map[string]any)
	count := func(key string) *int64 {
		n, ok := jqNumber(u[key])
		if !ok || n != math.Trunc(n) || math.Abs(n) > 1<<62 {
			return nil
		}
		if i, ok := u[key].(json.Number); ok {
			// Exact where a float64 is not, past 2^53.
			if c, err := i.Int64(); err == nil {
				return ir.Count(c)
			}
		}
		return ir.Count(int64(n))
	}
	var cost *float64
	if n, ok := jqNumber(u["cost_usd"]); ok {
		cost = ir.Dollars(n)
	}
	return ir.Usage{
		Turns:            count("turns"),
		InputTokens:      count("input_tokens"),
		OutputTokens:     count("output_tokens"),
		CacheReadTokens:  count("cache_read_tokens"),
		CacheWriteTokens: count("cache_write_tokens"),
		CostUSD:          cost,
	}
}

// jqNumber is v, a value gojq yields, as a number; false when it is none.
// gojq keeps the numbers of the JSON it reads as they were written
// (json.Number), and those it computes as an int, a float64 or, past an
// int's range, a *big.Int.
func jqNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case *big.Int:
		f, _ := new(big.Float).SetInt(n).Float64()
		return f, true
	}
	return 0, false
}
