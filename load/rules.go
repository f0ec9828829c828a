package load

import (
	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/templates"
)

// Rules is every rule of check.Rules as the views show it.
func Rules() []templates.Rule {
	rules := check.Rules()
	out := make([]templates.Rule, 0, len(rules))
	for _, r := range rules {
		out = append(out, templates.Rule{ID: r.ID, Severity: r.Severity, Lint: r.Lint, Doc: r.Doc})
	}
	return out
}
