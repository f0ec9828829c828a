package check

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

func TestLintRulesRegistry(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range Rules() {
		if seen[r.ID] {
			t.Errorf("rule %q is registered twice", r.ID)
		}
		seen[r.ID] = true
	}
	for _, r := range lintRules {
		if !isKebab(r.ID) {
			t.Errorf("rule ID %q is not kebab-case", r.ID)
		}
		if !isDocLine(r.Doc) {
			t.Errorf("rule %q: doc %q is not one lowercase line without a final period", r.ID, r.Doc)
		}
		if r.Run == nil || r.FrontEnd {
			t.Errorf("rule %q: a lint rule has a Run and is not a front-end rule", r.ID)
		}
		if r.Severity != ir.Error && r.Severity != ir.Warning {
			t.Errorf("rule %q: severity %q", r.ID, r.Severity)
		}
	}
}

// isDocLine reports whether doc is one line, with no final period, that does
// not start like a sentence ("A step…"); an acronym ("TOML or HCL…") may lead.
func isDocLine(doc string) bool {
	if doc == "" || strings.Contains(doc, "\n") || strings.HasSuffix(doc, ".") {
		return false
	}
	return !(len(doc) > 1 && doc[0] >= 'A' && doc[0] <= 'Z' && doc[1] >= 'a' && doc[1] <= 'z')
}

func isKebab(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c == '-') {
			return false
		}
	}
	return true
}

// lintCase is a process file and what `cairn check --lint` says of it, one
// "line:col rule" per diagnostic (with " warning" for a warning), sorted.
type lintCase struct {
	name string
	file string // default "p.toml"
	src  string
	want []string
	// msgs, when set, are the messages of the diagnostics, in order.
	msgs []string
}

func runLintCases(t *testing.T, cases []lintCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file
			if file == "" {
				file = "p.toml"
			}
			p, fe := parse.TOML(file, []byte(tc.src))
			for _, d := range fe {
				t.Fatalf("front-end refused the test's process: %s: %s [%s]", d.Range, d.Message, d.Rule)
			}
			_, diags := Check(context.Background(), p, fe, &Env{Lint: true, Config: &config.Config{}})
			got, msgs := render(diags)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("diagnostics:\n%s\nwant:\n%s\nmessages:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), strings.Join(msgs, "\n"))
			}
			if tc.msgs != nil && strings.Join(msgs, "\n") != strings.Join(tc.msgs, "\n") {
				t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(tc.msgs, "\n"))
			}
		})
	}
}

// render turns diagnostics into "line:col rule" lines and their messages.
func render(diags []ir.Diagnostic) (got, msgs []string) {
	for _, d := range diags {
		s := fmt.Sprintf("%d:%d %s", d.Range.Start.Line, d.Range.Start.Column, d.Rule)
		if d.Severity != ir.Error {
			s += " " + string(d.Severity)
		}
		for _, r := range d.Related {
			s += fmt.Sprintf(" (%d:%d)", r.Range.Start.Line, r.Range.Start.Column)
		}
		got = append(got, s)
		msgs = append(msgs, d.Message)
	}
	return got, msgs
}
