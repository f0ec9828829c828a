package load

import (
	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/views"
)

// Rules is every rule of check.Rules as the views show it.
func Rules() []views.Rule {
	rules := check.Rules()
	out := make([]views.Rule, 0, len(rules))
	for _, r := range rules {
		out = append(out, views.Rule{ID: r.ID, Severity: r.Severity, Lint: r.Lint, Doc: r.Doc})
	}
	return out
}
