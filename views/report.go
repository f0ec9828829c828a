package views

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// Report is what one `cairn check` found: every diagnostic (of the config, of
// finding the files, of each file), the plan of each file with no error, and
// the bytes of each file a diagnostic may quote.
type Report struct {
	// Files is how many process files were checked.
	Files int
	// Diagnostics are sorted by file, line, column and rule.
	Diagnostics []ir.Diagnostic
	// Plans hold one plan per file with no error, in the order the files
	// were named.
	Plans []*ir.Plan
	// Sources maps a file's name, as diagnostics print it, to its bytes.
	Sources map[string][]byte
	// NoRepo is set when cairn ran outside a git repository: repository
	// skills were not looked up and worktrees have nothing to start from.
	NoRepo bool
	// Searched are the folders a bare `cairn check` looked for processes
	// in; nil when files were named.
	Searched []string
}

// Failed reports whether any diagnostic is an error: the check refused.
func (r *Report) Failed() bool { return ir.HasErrors(r.Diagnostics) }

// Summary is the report's last line, for a terminal's stderr:
// "2 errors, 1 warning in 3 files", or "no problems in 1 file".
func (r *Report) Summary() string {
	counts := map[ir.Severity]int{}
	for _, d := range r.Diagnostics {
		counts[d.Severity]++
	}
	var parts []string
	for _, s := range []struct {
		sev  ir.Severity
		name string
	}{{ir.Error, "error"}, {ir.Warning, "warning"}, {ir.Note, "note"}} {
		if n := counts[s.sev]; n > 0 {
			parts = append(parts, plural(n, s.name))
		}
	}
	what := "no problems"
	if len(parts) > 0 {
		what = strings.Join(parts, ", ")
	}
	if r.Files == 0 && r.Searched != nil {
		return fmt.Sprintf("%s; %s", what, noProcesses(r.Searched))
	}
	return fmt.Sprintf("%s in %s", what, plural(r.Files, "file"))
}

// noProcesses says that no process was found in dirs.
func noProcesses(dirs []string) string {
	if len(dirs) == 0 {
		return "no processes found: no folder to look in"
	}
	return "no processes found in " + strings.Join(dirs, ", ")
}

// plural is "1 file", "2 files".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Rule is what the views need to know of a rule of package check: its ID,
// the severity it reports at, whether `--lint` keeps it, and its one-line doc
// (what it refuses).
type Rule struct {
	ID       string
	Severity ir.Severity
	Lint     bool
	Doc      string
}

// Tool names the program in machine-readable reports (SARIF's driver).
type Tool struct {
	Version string
	Rules   []Rule
}

// InformationURI is where cairn's documentation lives.
const InformationURI = "https://github.com/cairn-dev/cairn"

// WriteText writes the report for a human: every diagnostic with the source
// it points at, then every plan. The summary line is not included: it goes to
// stderr (Summary). It writes through one buffer: a report of 10,000 steps
// is megabytes of short lines.
func (r *Report) WriteText(out io.Writer, st Style) error {
	w := bufio.NewWriterSize(out, 64<<10)
	if err := r.writeText(w, st); err != nil {
		return err
	}
	return w.Flush()
}

// writeText is WriteText, on its buffer.
func (r *Report) writeText(w *bufio.Writer, st Style) error {
	for _, d := range r.Diagnostics {
		if err := WriteDiagnostic(w, d, r.Sources, st); err != nil {
			return err
		}
	}
	return writeInOrder(w, len(r.Plans), func(i int, w io.Writer) error {
		if i > 0 || len(r.Diagnostics) > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		return WritePlan(w, r.Plans[i], r.NoRepo, st)
	})
}
