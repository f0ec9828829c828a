package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// Fixed is what `cairn check --fix` did: the fixes it applied, each with
// the diagnostic it resolves (its position is in the file as it was), the
// files it could not write, how many files it changed, and how many
// diagnostics of the files it could write still carry a fix once checked
// again (a fix that overlapped one applied, a finding the fixed file
// shows now).
type Fixed struct {
	Applied  []Applied
	NotFixed []NotFixed
	Files    int
	Left     int
}

// Applied is one fix written to its file.
type Applied struct {
	Diagnostic ir.Diagnostic
	Fix        ir.Fix
}

// NotFixed is a file whose fixes were not written, and why.
type NotFixed struct {
	File   string
	Reason string
}

// WriteText writes a line per fix applied ("file:line:col: fixed: change
// "commnd" to "command" [unknown-key]"), a line per file not written, and
// a last line that counts them and what is left.
func (f *Fixed) WriteText(w io.Writer, st Style) error {
	var b strings.Builder
	for _, a := range f.Applied {
		fmt.Fprintf(&b, "%s %s %s %s\n", st.paint(ansiBold, Location(a.Diagnostic.Range)+":"), st.paint(ansiGreen, "fixed:"),
			a.Fix.Message, st.paint(ansiDim, "["+a.Diagnostic.Rule+"]"))
	}
	for _, n := range f.NotFixed {
		fmt.Fprintf(&b, "%s %s %s\n", st.paint(ansiBold, n.File+":"), st.paint(ansiRed, "not fixed:"), n.Reason)
	}
	b.WriteString(f.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Summary is the last line of WriteText: "fixed 2 problems in 1 file",
// and what is left.
func (f *Fixed) Summary() string {
	var s string
	switch {
	case len(f.Applied) > 0:
		s = fmt.Sprintf("fixed %s in %s", plural(len(f.Applied), "problem"), plural(f.Files, "file"))
	case len(f.NotFixed) > 0:
		s = "fixed nothing"
	default:
		s = "nothing to fix"
	}
	if n := len(f.NotFixed); n > 0 {
		s += fmt.Sprintf("; %s not written", plural(n, "file"))
	}
	if f.Left > 0 {
		s += fmt.Sprintf("; %d more can be fixed: run cairn check --fix again", f.Left)
	}
	return s
}
