package harness

import (
	_ "embed"
	"encoding/json"
	"maps"
	"regexp"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/ir"
)

// Prices is cairn's price table (prices.json): what each model costs, with
// the date the rates were read and each one's source, and the aliases a
// CLI takes for a model, by harness. A session whose CLI reports tokens
// and no cost gets its cost from it, marked estimated (Harness.SessionEnd);
// the config's [prices] override or add models (With).
type Prices struct {
	// Date is the day the built-in rates were read, YYYY-MM-DD.
	Date    string                       `json:"date"`
	About   string                       `json:"about"`
	Models  map[string]ir.Price          `json:"models"`
	Aliases map[string]map[string]string `json:"aliases"`
	// AliasSource says where the aliases come from.
	AliasSource string `json:"alias_source"`
}

//go:embed prices.json
var pricesJSON []byte

// builtinPrices is prices.json read, once, when a price is first asked
// for: a check of command steps never reads it.
var builtinPrices = sync.OnceValue(func() *Prices {
	var p Prices
	if err := json.Unmarshal(pricesJSON, &p); err != nil {
		panic("harness: prices.json: " + err.Error())
	}
	return &p
})

// BuiltinPrices is cairn's own price table, without the config's.
func BuiltinPrices() *Prices { return builtinPrices() }

// table is p, or cairn's own price table when p is nil.
func (p *Prices) table() *Prices {
	if p == nil {
		return builtinPrices()
	}
	return p
}

// With is p with over, the config's [prices] by model name, laid over its
// models: a model of over replaces p's of the same name, or adds one. p is
// left as it is.
func (p *Prices) With(over map[string]ir.Price) *Prices {
	if len(over) == 0 {
		return p
	}
	q := *p
	q.Models = maps.Clone(p.Models)
	maps.Copy(q.Models, over)
	return &q
}

// dateSuffix is a model name's trailing date, which a vendor's snapshot
// of a model carries: -20250929, -2025-08-07, @20250929.
var dateSuffix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[-@](\d{8}|\d{4}-\d{2}-\d{2})$`) })

// Lookup is the price of model on the harness called harness, and the
// name the table knows it by: the model's own name, else the harness's
// alias for it, else the name without a provider's prefix
// ("anthropic/claude-sonnet-5") or a snapshot's date
// ("claude-sonnet-4-5-20250929"). false when the table has none, and for
// an empty model (the CLI's own choice, which cairn does not know).
func (p *Prices) Lookup(harness, model string) (ir.Price, string, bool) {
	if p == nil || model == "" {
		return ir.Price{}, "", false
	}
	try := func(name string) (ir.Price, string, bool) {
		if pr, ok := p.Models[name]; ok {
			return pr, name, true
		}
		if a, ok := p.Aliases[harness][name]; ok {
			if pr, ok := p.Models[a]; ok {
				return pr, a, true
			}
		}
		return ir.Price{}, "", false
	}
	names := []string{model}
	if i := strings.LastIndex(model, "/"); i >= 0 && i < len(model)-1 {
		names = append(names, model[i+1:])
	}
	for _, n := range names {
		if pr, name, ok := try(n); ok {
			return pr, name, ok
		}
		if d := dateSuffix().FindStringIndex(n); d != nil && d[0] > 0 {
			if pr, name, ok := try(n[:d[0]]); ok {
				return pr, name, ok
			}
		}
	}
	return ir.Price{}, "", false
}

// Estimated is e with a cost estimated from prices for what a session on
// model used, for a CLI that reported tokens and no cost (or, Unpriced, a
// cost it did not know): each of e's Usage and Total that counts tokens
// and holds no cost gets one, marked CostEstimated, and e is no longer
// Unpriced. e is as it was when prices has no price for model.
func (e SessionEnd) Estimated(prices *Prices, harness, model string) SessionEnd {
	price, _, ok := prices.Lookup(harness, model)
	if !ok {
		return e
	}
	estimate := func(u *ir.Usage) bool {
		if u.CostUSD != nil {
			return false
		}
		usd, ok := price.Cost(*u)
		if ok {
			u.CostUSD, u.CostEstimated = ir.Dollars(usd), true
		}
		return ok
	}
	usage, total := estimate(&e.Usage), estimate(&e.Total)
	if usage || total {
		e.Unpriced = false
	}
	return e
}
