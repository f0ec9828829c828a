package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/views"
)

// rulesDoc is the rules page generated from check.Rules().
var rulesDoc = filepath.Join("..", "..", "docs", "rules.md")

// TestRulesDoc fails when docs/rules.md drifts from the rule registry;
// UPDATE_GOLDEN=1 rewrites it.
func TestRulesDoc(t *testing.T) {
	compareGolden(t, rulesDoc, []byte(views.RulesMarkdown(load.Rules())))
}

// TestRulesListed checks that `cairn check --rules` prints every rule, each
// on its own line.
func TestRulesListed(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := cairnIn(t, t.TempDir(), "check", "--rules")
	if code != exitOK || len(stderr) > 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(string(stdout), "\n"), "\n")
	rules := load.Rules()
	if len(lines) != len(rules)+1 {
		t.Fatalf("%d lines for %d rules:\n%s", len(lines), len(rules), stdout)
	}
	for i, r := range rules {
		if f := strings.Fields(lines[i+1]); len(f) < 4 || f[0] != r.ID || f[1] != string(r.Severity) {
			t.Errorf("line %d: %q; want rule %q (%s)", i+2, lines[i+1], r.ID, r.Severity)
		}
	}
}
