package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// githubCommand maps a severity onto a GitHub Actions workflow command.
func githubCommand(s ir.Severity) string {
	switch s {
	case ir.Error:
		return "error"
	case ir.Warning:
		return "warning"
	}
	return "notice"
}

// WriteGitHub writes each diagnostic as a GitHub Actions workflow command,
// one line each: "::error file=F,line=L,col=C,endLine=…,endColumn=…,
// title=RULE::message", with related places as further lines of the message.
func (r *Report) WriteGitHub(w io.Writer) error {
	var b strings.Builder
	for _, d := range r.Diagnostics {
		var props []string
		if d.Range.File != "" {
			props = append(props, "file="+githubProperty(d.Range.File))
		}
		if d.Range.IsValid() {
			line, col, endLine, endCol := positions(d.Range)
			props = append(props,
				fmt.Sprintf("line=%d", line), fmt.Sprintf("col=%d", col),
				fmt.Sprintf("endLine=%d", endLine), fmt.Sprintf("endColumn=%d", endCol))
		}
		props = append(props, "title="+githubProperty(d.Rule))
		msg := d.Message
		for _, rel := range d.Related {
			msg += fmt.Sprintf("\n%s: note: %s", Location(rel.Range), rel.Message)
		}
		fmt.Fprintf(&b, "::%s %s::%s\n", githubCommand(d.Severity), strings.Join(props, ","), githubData(msg))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// githubData escapes a workflow command's message as the runner unescapes it.
func githubData(s string) string {
	return githubDataEscaper.Replace(s)
}

// githubProperty escapes a workflow command's property value, where ':' and
// ',' also separate.
func githubProperty(s string) string {
	return githubPropertyEscaper.Replace(s)
}

// githubDataEscaper and githubPropertyEscaper are made once: a Replacer
// builds its tables on first use.
var (
	githubDataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	githubPropertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)
