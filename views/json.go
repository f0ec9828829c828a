package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/cairn-dev/cairn/ir"
)

// ReportVersion is the version of the JSON documents `cairn check --format
// json` and `cairn list --json` print.
const ReportVersion = 1

// JSONDiagnostic is a diagnostic in cairn's JSON documents (docs/design.md §10): a
// diagnostic of no file has an empty File and zero positions.
type JSONDiagnostic struct {
	File      string        `json:"file"`
	Line      int           `json:"line"`
	Column    int           `json:"column"`
	EndLine   int           `json:"end_line"`
	EndColumn int           `json:"end_column"`
	Severity  ir.Severity   `json:"severity"`
	Rule      string        `json:"rule"`
	Message   string        `json:"message"`
	Related   []JSONRelated `json:"related"`
	Fixes     []JSONFix     `json:"fixes"`
}

// JSONFix is a fix of a JSONDiagnostic: what it does, and its edits.
type JSONFix struct {
	Message string     `json:"message"`
	Edits   []JSONEdit `json:"edits"`
}

// JSONEdit is an edit of a JSONFix: the range it replaces (empty: an
// insertion at its start), positioned as diagnostics are, and the text
// put there.
type JSONEdit struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	NewText   string `json:"new_text"`
}

// JSONRelated is a related place of a JSONDiagnostic.
type JSONRelated struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Message   string `json:"message"`
}

// jsonReport is the document of `cairn check --format json`.
type jsonReport struct {
	Version     int              `json:"version"`
	Diagnostics []JSONDiagnostic `json:"diagnostics"`
	Plans       []*ir.Plan       `json:"plans"`
}

// NewJSONDiagnostic converts d to its JSON form.
func NewJSONDiagnostic(d ir.Diagnostic) JSONDiagnostic {
	j := JSONDiagnostic{
		File:     d.Range.File,
		Severity: d.Severity,
		Rule:     d.Rule,
		Message:  d.Message,
		Related:  []JSONRelated{},
		Fixes:    []JSONFix{},
	}
	j.Line, j.Column, j.EndLine, j.EndColumn = positions(d.Range)
	for _, r := range d.Related {
		jr := JSONRelated{File: r.Range.File, Message: r.Message}
		jr.Line, jr.Column, jr.EndLine, jr.EndColumn = positions(r.Range)
		j.Related = append(j.Related, jr)
	}
	for _, f := range d.Fixes {
		jf := JSONFix{Message: f.Message, Edits: make([]JSONEdit, 0, len(f.Edits))}
		for _, e := range f.Edits {
			je := JSONEdit{File: e.Range.File, NewText: e.NewText}
			je.Line, je.Column, je.EndLine, je.EndColumn = positions(e.Range)
			jf.Edits = append(jf.Edits, je)
		}
		j.Fixes = append(j.Fixes, jf)
	}
	return j
}

// JSONDiagnostics converts ds, never returning nil.
func JSONDiagnostics(ds []ir.Diagnostic) []JSONDiagnostic {
	out := make([]JSONDiagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, NewJSONDiagnostic(d))
	}
	return out
}

// positions are r's start and end; a range without a position is all zeros,
// and one without an end ends where it starts.
func positions(r ir.Range) (line, col, endLine, endCol int) {
	if !r.IsValid() {
		return 0, 0, 0, 0
	}
	end := r.End
	if !end.IsValid() {
		end = r.Start
	}
	return int(r.Start.Line), int(r.Start.Column), int(end.Line), int(end.Column)
}

// WriteJSON writes the report as the JSON document of docs/design.md §10, with every array
// present; indented for a person at a terminal, compact for a program.
func (r *Report) WriteJSON(w io.Writer, indent bool) error {
	if !indent {
		return r.streamJSON(w)
	}
	doc := jsonReport{
		Version:     ReportVersion,
		Diagnostics: JSONDiagnostics(r.Diagnostics),
		Plans:       make([]*ir.Plan, 0, len(r.Plans)),
	}
	for _, p := range r.Plans {
		doc.Plans = append(doc.Plans, withArrays(p))
	}
	return writeJSON(w, doc, indent)
}

// streamJSON writes the compact document, its plans by the appenders of
// jsonplan.go, through a buffer written out whenever it holds a chunk: a
// program may ask for the plans of hundreds of files, or of one file of
// thousands of steps, and neither the document nor a plan's JSON need be
// held whole.
func (r *Report) streamJSON(w io.Writer) error {
	const chunk = 64 << 10
	var err error
	// After a failed write, what is appended is dropped: the plan being
	// appended ends, and no other is begun.
	spill := func(b []byte) []byte {
		if err == nil && len(b) < chunk {
			return b
		}
		if err == nil {
			_, err = w.Write(b)
		}
		return b[:0]
	}
	var diags bytes.Buffer
	if err := writeJSON(&diags, JSONDiagnostics(r.Diagnostics), false); err != nil {
		return err
	}
	b := make([]byte, 0, chunk+chunk/4)
	b = fmt.Appendf(b, `{"version":%d,"diagnostics":`, ReportVersion)
	b = append(b, bytes.TrimSuffix(diags.Bytes(), []byte("\n"))...)
	b = append(b, `,"plans":[`...)
	for i, p := range r.Plans {
		if i > 0 {
			b = append(b, ',')
		}
		var perr error
		if b, perr = appendPlan(b, p, spill); perr != nil {
			return fmt.Errorf("encode the plan of %q: %w", p.File, perr)
		}
		if b = spill(b); err != nil {
			return err
		}
	}
	b = append(b, "]}\n"...)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeJSON writes v as JSON, indented when asked, leaving <, > and & as
// they are.
func writeJSON(w io.Writer, v any, indent bool) error {
	enc := json.NewEncoder(w)
	if indent {
		enc.SetIndent("", "  ")
	}
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// withArrays returns a copy of p whose lists are empty rather than nil, so
// that its JSON has arrays where readers expect them, never null.
func withArrays(p *ir.Plan) *ir.Plan {
	c := *p
	c.Limits.ProtectedPaths = nonNil(c.Limits.ProtectedPaths)
	c.Worktrees = make([]ir.PlanWorktree, len(p.Worktrees))
	for i, w := range p.Worktrees {
		w.Copy = nonNil(w.Copy)
		c.Worktrees[i] = w
	}
	c.Harnesses = nonNil(c.Harnesses)
	c.Stages = make([][]ir.PlanStep, 0, len(p.Stages))
	for _, stage := range p.Stages {
		steps := make([]ir.PlanStep, 0, len(stage))
		for _, s := range stage {
			steps = append(steps, stepWithArrays(s))
		}
		c.Stages = append(c.Stages, steps)
	}
	return &c
}

// stepWithArrays is withArrays for a step.
func stepWithArrays(s ir.PlanStep) ir.PlanStep {
	s.Env = nonNil(s.Env)
	s.Needs = nonNil(s.Needs)
	s.Actions = nonNil(s.Actions)
	s.Precheck = phaseWithArrays(s.Precheck)
	s.Validate = phaseWithArrays(s.Validate)
	return s
}

// phaseWithArrays is withArrays for a phase; a missing phase stays nil.
func phaseWithArrays(ph *ir.PlanPhase) *ir.PlanPhase {
	if ph == nil {
		return nil
	}
	c := *ph
	c.Shells = nonNil(c.Shells)
	c.Instructions = nonNil(c.Instructions)
	c.Whys = nonNil(c.Whys)
	return &c
}

// nonNil returns s, or an empty slice for nil.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return slices.Clip(s)
}
