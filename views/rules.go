package views

import (
	"fmt"
	"io"
	"strings"
)

// lintWord says whether `--lint` keeps a rule.
func lintWord(lint bool) string {
	if lint {
		return "lint"
	}
	return "-"
}

// WriteRules writes every rule on one line each, in aligned columns: its ID,
// its severity, "lint" when `--lint` keeps it, and what it refuses.
func WriteRules(w io.Writer, rules []Rule) error {
	rows := [][]string{{"RULE", "SEVERITY", "LINT", "REFUSES"}}
	for _, r := range rules {
		rows = append(rows, []string{r.ID, string(r.Severity), lintWord(r.Lint), r.Doc})
	}
	_, err := io.WriteString(w, strings.Join(columns(rows), "\n")+"\n")
	return err
}

// RulesMarkdown is docs/rules.md: every rule in a table, generated from the
// rule registry so that the page cannot drift from the code.
func RulesMarkdown(rules []Rule) string {
	var b strings.Builder
	b.WriteString("# cairn's rules\n\n")
	b.WriteString("<!-- Generated from check.Rules() by TestRulesDoc; `UPDATE_GOLDEN=1 go test ./cmd/cairn` rewrites it. -->\n\n")
	b.WriteString("Every refusal of `cairn check` names one of these rules and the place it points at\n")
	b.WriteString("(`file:line:col: error: message [rule]`). `cairn check --rules` prints the same list. A rule marked\n")
	b.WriteString("*lint* depends on the file alone: `cairn check --lint` keeps only those.\n\n")
	b.WriteString("| rule | severity | lint | refuses |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, r := range rules {
		lint := "no"
		if r.Lint {
			lint = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.ID, r.Severity, lint, markdownCell(r.Doc))
	}
	return b.String()
}

// markdownCell escapes what would break a table cell.
func markdownCell(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "\n", " ").Replace(s)
}
