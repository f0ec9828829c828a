package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// Listing is what `cairn list` found: every process file with its
// description, or, when it does not parse, its first refusal; and the
// diagnostics of finding them (two files of one name in one folder).
type Listing struct {
	Processes   []Listed
	Diagnostics []ir.Diagnostic
	// Searched are the folders processes were looked for in.
	Searched []string
}

// Listed is one process `cairn list` found. Error is the file's first
// refusal when it does not parse, else nil.
type Listed struct {
	Name        string
	File        string
	Format      ir.Format
	Description string
	Error       *ir.Diagnostic
}

// Failed reports whether finding the processes was refused. A listed file
// that does not parse does not fail the listing: `cairn check` refuses it.
func (l *Listing) Failed() bool { return ir.HasErrors(l.Diagnostics) }

// WriteText writes one process per line in aligned columns: its name, its
// file, and its description or its first refusal ("file:line:col: message
// [rule]"). The listing's own diagnostics, or that it found nothing and
// where a first process goes, are written to diags.
func (l *Listing) WriteText(w, diags io.Writer, st Style) error {
	rows := make([][]string, 0, len(l.Processes))
	for _, p := range l.Processes {
		about := p.Description
		if p.Error != nil {
			d := *p.Error
			about = fmt.Sprintf("%s: %s [%s]", Location(d.Range), d.Message, d.Rule)
		}
		rows = append(rows, []string{p.Name, p.File, about})
	}
	if len(rows) > 0 {
		if _, err := io.WriteString(w, strings.Join(columns(rows), "\n")+"\n"); err != nil {
			return err
		}
	} else if _, err := io.WriteString(diags, noProcesses(l.Searched)+"\n"+howToStart(l.Searched)+"\n"); err != nil {
		return err
	}
	for _, d := range l.Diagnostics {
		if err := WriteDiagnostic(diags, d, nil, st); err != nil {
			return err
		}
	}
	return nil
}

// firstProcessURL is the README's walk through a first process, which `cairn
// list` points at when it finds none.
const firstProcessURL = "https://github.com/cairn-dev/cairn#your-first-process"

// howToStart says where a first process file goes: the first folder
// processes are looked up in, the home's.
func howToStart(dirs []string) string {
	dir := "$CAIRN_HOME/processes"
	if len(dirs) > 0 {
		dir = dirs[0]
	}
	return fmt.Sprintf("to start, write a process file in %s: see \"Your first process\" in the README, %s", dir, firstProcessURL)
}

type jsonListing struct {
	Version     int              `json:"version"`
	Processes   []jsonListed     `json:"processes"`
	Diagnostics []JSONDiagnostic `json:"diagnostics"`
}

type jsonListed struct {
	Name        string          `json:"name"`
	File        string          `json:"file"`
	Format      ir.Format       `json:"format"`
	Description string          `json:"description"`
	Error       *JSONDiagnostic `json:"error"`
}

// WriteJSON writes the listing as one JSON document:
// {"version":1,"processes":[{"name","file","format","description","error"}],
// "diagnostics":[…]}, with "error" null for a file that parses; indented for
// a person at a terminal, compact for a program.
func (l *Listing) WriteJSON(w io.Writer, indent bool) error {
	doc := jsonListing{
		Version:     ReportVersion,
		Processes:   make([]jsonListed, 0, len(l.Processes)),
		Diagnostics: JSONDiagnostics(l.Diagnostics),
	}
	for _, p := range l.Processes {
		jl := jsonListed{Name: p.Name, File: p.File, Format: p.Format, Description: p.Description}
		if p.Error != nil {
			d := NewJSONDiagnostic(*p.Error)
			jl.Error = &d
		}
		doc.Processes = append(doc.Processes, jl)
	}
	return writeJSON(w, doc, indent)
}
