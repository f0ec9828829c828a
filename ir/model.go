package ir

import "slices"

// Efforts are the efforts a step may ask for, weakest first (docs/design.md §4.1). Each
// harness maps them onto its own CLI's values, or takes none.
var Efforts = []string{"low", "medium", "high", "xhigh", "max"}

// Tiers are the portable model tiers, weakest first (docs/design.md §6.2).
var Tiers = []string{"efficient", "balanced", "strong", "strongest"}

// TierAliases are the legacy names of the tiers: Claude's own model aliases.
var TierAliases = map[string]string{
	"haiku":  "efficient",
	"sonnet": "balanced",
	"opus":   "strong",
	"fable":  "strongest",
}

// TierOf returns the tier a model value names: a tier itself, or one of its
// aliases (haiku, sonnet, opus, fable). Any other value is a concrete model
// name, and TierOf reports false.
func TierOf(model string) (string, bool) {
	if slices.Contains(Tiers, model) {
		return model, true
	}
	t, ok := TierAliases[model]
	return t, ok
}
