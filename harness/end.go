package harness

import "github.com/cairn-dev/cairn/ir"

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
// h's adapter reads it: claude.go, codex.go, gemini.go, opencode.go and
// custom.go say how for each CLI.
func (h *Harness) SessionEnd(o Output) SessionEnd { return h.adapter.SessionEnd(o) }

// plus is a + b for two counts a CLI may leave out: nil when it left out
// both.
func plus(a, b *int64) *int64 {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return ir.Count(*a + *b)
}
