package ir

import (
	"math"
	"strconv"
)

// Usage is what agent sessions used, as their CLIs reported it: model turns
// (each CLI's own count), input tokens read at the full rate (without the
// cache's), output tokens, input tokens read from and written to the prompt
// cache, and the cost in US dollars. A figure no session reported is nil,
// never a zero by default; a sum holds the figures of the sessions that
// reported them. CostEstimated marks a cost that cairn estimated, for at
// least one of the sessions it sums, from its price table (its CLI
// reported tokens and no cost).
type Usage struct {
	Turns            *int64   `json:"turns,omitempty"`
	InputTokens      *int64   `json:"input_tokens,omitempty"`
	OutputTokens     *int64   `json:"output_tokens,omitempty"`
	CacheReadTokens  *int64   `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens *int64   `json:"cache_write_tokens,omitempty"`
	CostUSD          *float64 `json:"cost_usd,omitempty"`
	CostEstimated    bool     `json:"cost_estimated,omitempty"`
}

// IsZero reports whether u holds no figure at all: omitzero leaves it out
// of a record.
func (u Usage) IsZero() bool {
	return u.Turns == nil && u.InputTokens == nil && u.OutputTokens == nil &&
		u.CacheReadTokens == nil && u.CacheWriteTokens == nil && u.CostUSD == nil
}

// Plus is u and o summed, figure by figure: a figure either holds is kept.
// The result shares no memory with u or o.
func (u Usage) Plus(o Usage) Usage {
	return Usage{
		Turns:            addCount(u.Turns, o.Turns, 1),
		InputTokens:      addCount(u.InputTokens, o.InputTokens, 1),
		OutputTokens:     addCount(u.OutputTokens, o.OutputTokens, 1),
		CacheReadTokens:  addCount(u.CacheReadTokens, o.CacheReadTokens, 1),
		CacheWriteTokens: addCount(u.CacheWriteTokens, o.CacheWriteTokens, 1),
		CostUSD:          addCost(u.CostUSD, o.CostUSD, 1),
		CostEstimated:    u.estimated() || o.estimated(),
	}
}

// Minus is u less o, figure by figure, for a CLI that reports a resumed
// session's figures from the session's first start: a figure o lacks is
// u's, and none falls below zero.
func (u Usage) Minus(o Usage) Usage {
	return Usage{
		Turns:            addCount(u.Turns, o.Turns, -1),
		InputTokens:      addCount(u.InputTokens, o.InputTokens, -1),
		OutputTokens:     addCount(u.OutputTokens, o.OutputTokens, -1),
		CacheReadTokens:  addCount(u.CacheReadTokens, o.CacheReadTokens, -1),
		CacheWriteTokens: addCount(u.CacheWriteTokens, o.CacheWriteTokens, -1),
		CostUSD:          addCost(u.CostUSD, o.CostUSD, -1),
		CostEstimated:    u.estimated() || u.CostUSD != nil && o.estimated(),
	}
}

// estimated reports whether u holds a cost that was estimated.
func (u Usage) estimated() bool { return u.CostEstimated && u.CostUSD != nil }

// Cost is u's cost in US dollars, 0 when no session reported one.
func (u Usage) Cost() float64 {
	if u.CostUSD == nil {
		return 0
	}
	return *u.CostUSD
}

// Count is a count for a Usage: a pointer to n.
func Count(n int64) *int64 { return &n }

// Dollars is a cost for a Usage: a pointer to usd.
func Dollars(usd float64) *float64 { return &usd }

// addCount is a + sign*b for two optional counts (b only for a minus: a
// nil a stays nil); nil when a sum has neither.
func addCount(a, b *int64, sign int64) *int64 {
	switch {
	case a == nil && (b == nil || sign < 0):
		return nil
	case b == nil:
		return Count(*a)
	case a == nil:
		return Count(*b)
	}
	return Count(max(*a+sign**b, 0))
}

// addCost is addCount for costs. Sums are kept to a trillionth of a
// dollar, finer than any CLI reports: adding binary fractions leaves no
// trail of digits (0.1004776 + 0.0501228 is 0.1506004).
func addCost(a, b *float64, sign float64) *float64 {
	switch {
	case a == nil && (b == nil || sign < 0):
		return nil
	case b == nil:
		return Dollars(*a)
	case a == nil:
		return Dollars(*b)
	}
	v := math.Round((*a+sign**b)*1e12) / 1e12
	return Dollars(max(v, 0))
}

// FormatCost words a cost for a log line or a table: "$0.0712", to a
// hundredth of a cent.
func FormatCost(usd float64) string {
	return "$" + strconv.FormatFloat(usd, 'f', 4, 64)
}

// CostText words u's cost as FormatCost does, "~$0.0712" when it was
// estimated (CostEstimated), and "-" when no session reported one.
func (u Usage) CostText() string {
	switch {
	case u.CostUSD == nil:
		return "-"
	case u.CostEstimated:
		return "~" + FormatCost(*u.CostUSD)
	}
	return FormatCost(*u.CostUSD)
}

// FormatSpent words spent, an amount that reached budget, beside the budget
// as FormatUSD words it: to the cent, or finer when the cents would not
// show it past the budget ("$4.02" of "$4.00", "$0.0013" of "$0.001",
// "$0.015" of "$0.01"). An amount within a billionth of a dollar of the
// budget, which counts as spent, may show as the budget itself.
func FormatSpent(spent, budget float64) string {
	over := spent-budget > 1e-9
	for d := 2; d < 12; d++ {
		s := strconv.FormatFloat(spent, 'f', d, 64)
		if v, _ := strconv.ParseFloat(s, 64); v > budget || !over && v >= budget {
			return "$" + s
		}
	}
	return FormatUSD(spent)
}

// Equal reports whether u and o hold the same figures.
func (u Usage) Equal(o Usage) bool {
	return sameCount(u.Turns, o.Turns) && sameCount(u.InputTokens, o.InputTokens) &&
		sameCount(u.OutputTokens, o.OutputTokens) && sameCount(u.CacheReadTokens, o.CacheReadTokens) &&
		sameCount(u.CacheWriteTokens, o.CacheWriteTokens) &&
		(u.CostUSD == nil) == (o.CostUSD == nil) && (u.CostUSD == nil || *u.CostUSD == *o.CostUSD) &&
		u.estimated() == o.estimated()
}

// sameCount reports whether a and b are both nil or equal.
func sameCount(a, b *int64) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// InputAll is every input token u counts, read from the cache or not;
// nil when it counts none.
func (u Usage) InputAll() *int64 {
	var n *int64
	for _, c := range []*int64{u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens} {
		if c != nil {
			n = Count(*c + valueOr(n))
		}
	}
	return n
}

// valueOr is *n, or 0 when n is nil.
func valueOr(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}

// Price is what a model costs, in US dollars per million tokens: input
// read at the full rate, output, and input read from and written to the
// prompt cache. Source says where the rates come from: a vendor's page, or
// the config.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
	Source     string  `json:"source"`
}

// Cost is what u's tokens cost at p, kept to a trillionth of a dollar as
// sums of costs are; false when u counts no token at all.
func (p Price) Cost(u Usage) (float64, bool) {
	usd, any := 0.0, false
	for _, f := range []struct {
		n    *int64
		rate float64
	}{{u.InputTokens, p.Input}, {u.OutputTokens, p.Output}, {u.CacheReadTokens, p.CacheRead}, {u.CacheWriteTokens, p.CacheWrite}} {
		if f.n != nil {
			usd += float64(*f.n) * f.rate / 1e6
			any = true
		}
	}
	return math.Round(usd*1e12) / 1e12, any
}
