package harness

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

func TestPricesLookup(t *testing.T) {
	t.Parallel()
	p := BuiltinPrices()
	for _, tc := range []struct {
		harness, model string
		want           string // the table's name, "" for none
	}{
		{"codex", "gpt-5-codex", "gpt-5-codex"},
		{"codex", "gpt-5.1-codex-mini", "gpt-5.1-codex-mini"},
		{"codex", "gpt-6.2-sol", "gpt-6.2-sol"},
		{"gemini", "pro", "gemini-2.5-pro"},
		{"gemini", "flash-lite", "gemini-2.5-flash-lite"},
		{"codex", "pro", ""},
		{"opencode", "anthropic/claude-sonnet-5", "claude-sonnet-5"},
		{"opencode", "openrouter/openai/gpt-5", "gpt-5"},
		{"mybot", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"mybot", "gpt-5-2025-08-07", "gpt-5"},
		{"mybot", "gpt-5-pro", ""},
		{"codex", "", ""},
		{"codex", "gpt-5/", ""},
	} {
		_, name, ok := p.Lookup(tc.harness, tc.model)
		if name != tc.want || ok != (tc.want != "") {
			t.Errorf("Lookup(%q, %q) = %q, %v; want %q", tc.harness, tc.model, name, ok, tc.want)
		}
	}
	if p.Date == "" {
		t.Error("the price table has no date")
	}
	for name, pr := range p.Models {
		if pr.Source == "" || pr.Input < 0 || pr.Output < pr.Input || pr.CacheRead > pr.Input {
			t.Errorf("model %q: implausible price %+v", name, pr)
		}
	}
	for h, aliases := range p.Aliases {
		for a, m := range aliases {
			if _, ok := p.Models[m]; !ok {
				t.Errorf("alias %q of harness %q names %q, which the table has no price for", a, h, m)
			}
		}
	}
}

func TestPricesWith(t *testing.T) {
	t.Parallel()
	base := BuiltinPrices()
	over := map[string]ir.Price{"gpt-5": {Input: 2, Output: 3, CacheRead: 1, CacheWrite: 2, Source: "mine"}, "my-model": {Input: 1, Output: 1}}
	p := base.With(over)
	if pr, _, _ := p.Lookup("codex", "gpt-5"); pr.Source != "mine" || pr.Input != 2 {
		t.Errorf("gpt-5 over the table: %+v; want the config's", pr)
	}
	if _, _, ok := p.Lookup("codex", "my-model"); !ok {
		t.Error("my-model: no price; want the config's")
	}
	if pr, _, _ := base.Lookup("codex", "gpt-5"); pr.Source == "mine" {
		t.Error("With changed the table it was laid over")
	}
	if _, _, ok := base.Lookup("codex", "my-model"); ok {
		t.Error("With added to the table it was laid over")
	}
	r := NewRegistry(nil).WithPrices(over)
	h, _ := r.Lookup("codex")
	if !h.Priced("my-model") || !h.Priced("gpt-5-codex") || h.Priced("") || h.Priced("nobody") {
		t.Error("codex: Priced does not follow the table and the config")
	}
	if h, _ := NewRegistry(nil).Lookup("codex"); h.Priced("my-model") {
		t.Error("WithPrices changed the registry it was called on")
	}
	if h, _ := r.Lookup("claude"); !h.Priced("") {
		t.Error("claude reports cost: every model of it is priced")
	}
}

func TestEstimated(t *testing.T) {
	t.Parallel()
	p := BuiltinPrices().With(map[string]ir.Price{"m": {Input: 1, Output: 10, CacheRead: 0.1, CacheWrite: 2}})
	// codex: turns in Usage, tokens in Total.
	e := SessionEnd{ID: "t", Usage: ir.Usage{Turns: ir.Count(2)}, Total: ir.Usage{InputTokens: ir.Count(1000), OutputTokens: ir.Count(200), CacheReadTokens: ir.Count(10000), CacheWriteTokens: ir.Count(500)}}
	got := e.Estimated(p, "codex", "m")
	want := 0.001 + 0.002 + 0.001 + 0.001
	if got.Usage.CostUSD != nil {
		t.Errorf("usage of turns only: cost %v; want none", *got.Usage.CostUSD)
	}
	if c := got.Total.CostUSD; c == nil || *c != want || !got.Total.CostEstimated {
		t.Errorf("total: %+v; want $%v estimated", got.Total, want)
	}
	if e.Total.CostUSD != nil {
		t.Error("Estimated changed the end it was called on")
	}
	if u := got.Used(nil); u.CostText() != "~$0.0050" {
		t.Errorf("used: %s; want ~$0.0050", u.CostText())
	}
	// A resumed session's share is the difference of its estimates.
	again := SessionEnd{ID: "t", Total: ir.Usage{InputTokens: ir.Count(3000), OutputTokens: ir.Count(200), CacheReadTokens: ir.Count(10000), CacheWriteTokens: ir.Count(500)}}.Estimated(p, "codex", "m")
	if u := again.Used(&got); u.CostUSD == nil || *u.CostUSD != 0.002 || !u.CostEstimated {
		t.Errorf("resumed: %+v; want $0.002 estimated", u)
	}
	// A cost the CLI reported stays as it is.
	reported := SessionEnd{Usage: ir.Usage{InputTokens: ir.Count(1000), CostUSD: ir.Dollars(0.5)}}.Estimated(p, "claude", "m")
	if *reported.Usage.CostUSD != 0.5 || reported.Usage.CostEstimated {
		t.Errorf("reported: %+v; want the CLI's $0.50", reported.Usage)
	}
	// opencode's unpriced session is priced by the table, when it can.
	unpriced := SessionEnd{Unpriced: true, Usage: ir.Usage{InputTokens: ir.Count(1000)}}
	if e := unpriced.Estimated(p, "opencode", "local/m"); e.Unpriced || e.Usage.CostUSD == nil || *e.Usage.CostUSD != 0.001 {
		t.Errorf("opencode on a priced model: %+v; want $0.001, priced", e)
	}
	if e := unpriced.Estimated(p, "opencode", "local/other"); !e.Unpriced || e.Usage.CostUSD != nil {
		t.Errorf("opencode on a model without a price: %+v; want it unpriced", e)
	}
	// No model, no estimate.
	if e := e.Estimated(p, "codex", ""); e.Total.CostUSD != nil {
		t.Errorf("the CLI's own model: %+v; want no cost", e.Total)
	}
}

// TestEndPricedJQ holds a compiled script's estimate (EndJQFor's
// end_priced, jq/usage.jq) to SessionEnd's: the same cost, to the last
// digit, marked estimated, and none where the CLI reported one or no token.
func TestEndPricedJQ(t *testing.T) {
	t.Parallel()
	codex, _ := NewRegistry(nil).Lookup("codex")
	q, ok := strings.CutPrefix(codex.EndJQFor("gpt-5-codex"), codex.EndJQ()+" | ")
	if !ok {
		t.Fatalf("EndJQFor(gpt-5-codex) = %q; want end_codex priced", codex.EndJQFor("gpt-5-codex"))
	}
	if got := codex.EndJQFor("nobody"); got != codex.EndJQ() {
		t.Errorf("EndJQFor a model without a price: %q; want %q", got, codex.EndJQ())
	}
	for _, u := range []map[string]any{
		{"input_tokens": 315, "output_tokens": 122, "cache_read_tokens": 24448, "cache_write_tokens": 0},
		{"input_tokens": 1234567, "output_tokens": 98765},
		{"cache_read_tokens": 7, "cache_write_tokens": 99999},
		{"turns": 2},
		{"input_tokens": 3, "cost_usd": 0.5},
	} {
		v, err := runJQ(q, map[string]any{"usage": u}, jqInputs(Output{}))
		if err != nil {
			t.Fatal(err)
		}
		got := v.(map[string]any)["usage"].(map[string]any)
		want := SessionEnd{Usage: jqUsage(u)}.Estimated(BuiltinPrices(), "codex", "gpt-5-codex").Usage
		if g := jqUsage(got); !g.Equal(ir.Usage{Turns: want.Turns, InputTokens: want.InputTokens, OutputTokens: want.OutputTokens,
			CacheReadTokens: want.CacheReadTokens, CacheWriteTokens: want.CacheWriteTokens, CostUSD: want.CostUSD}) {
			t.Errorf("%v: jq %v; want %+v", u, got, want)
		}
		if est, _ := got["cost_estimated"].(bool); est != want.CostEstimated {
			t.Errorf("%v: jq cost_estimated %v; want %v", u, got["cost_estimated"], want.CostEstimated)
		}
	}
}
