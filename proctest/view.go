package proctest

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/views"
)

// Report is the cases of one `cairn test`, in the order they ran.
type Report struct {
	Cases []*Case
}

// Failed reports whether any case failed.
func (r *Report) Failed() bool {
	for _, c := range r.Cases {
		if c.Status == Failed {
			return true
		}
	}
	return false
}

// Summary is the report's last line: "2 passed, 1 failed".
func (r *Report) Summary() string {
	passed, failed := 0, 0
	for _, c := range r.Cases {
		if c.Status == Failed {
			failed++
		} else {
			passed++
		}
	}
	return fmt.Sprintf("%d passed, %d failed", passed, failed)
}

// WriteCase writes one case for a human: "ok   FILE  PROCESS  STATUS
// DURATION", or "FAIL …" and under it each failure as a diagnostic,
// "FILE:LINE:COL: error: MESSAGE [expect.steps]", with the line it points
// at.
func WriteCase(w io.Writer, c *Case, st views.Style) error {
	word := "ok  "
	if c.Status == Failed {
		word = "FAIL"
	}
	status := c.RunStatus
	if status == "" {
		status = "did not run"
	}
	if _, err := fmt.Fprintf(w, "%s %s  %s  %s  %s\n", word, c.File, orDash(c.Process), status, ir.FormatDuration(c.Duration)); err != nil {
		return err
	}
	for _, f := range c.Failures {
		if err := views.WriteDiagnostic(w, f.Diagnostic, c.Sources, st); err != nil {
			return err
		}
	}
	return nil
}

// jsonReport is the JSON of a report.
type jsonReport struct {
	Version int        `json:"version"`
	Cases   []jsonCase `json:"cases"`
	Passed  int        `json:"passed"`
	Failed  int        `json:"failed"`
}

type jsonCase struct {
	File       string        `json:"file"`
	Process    string        `json:"process"`
	Status     string        `json:"status"`
	RunStatus  string        `json:"run_status,omitempty"`
	Exit       *int          `json:"exit,omitempty"`
	Run        string        `json:"run,omitempty"`
	DurationMS int64         `json:"duration_ms"`
	Failures   []jsonFailure `json:"failures"`
}

type jsonFailure struct {
	Expectation string `json:"expectation"`
	Step        string `json:"step"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
	Message     string `json:"message"`
	Rule        string `json:"rule"`
}

// WriteJSON writes the report as one JSON document: {"version":1,
// "cases":[{"file","process","status":"passed"|"failed","run_status",
// "exit","run","duration_ms","failures":[{"expectation","step","file",
// "line","column","message","rule"}]}],"passed","failed"}; run only when
// the run folder is kept (keep). Indented for a person at a terminal.
func (r *Report) WriteJSON(w io.Writer, keep, indent bool) error {
	out := jsonReport{Version: 1, Cases: []jsonCase{}}
	for _, c := range r.Cases {
		jc := jsonCase{File: c.File, Process: c.Process, Status: c.Status, RunStatus: c.RunStatus, DurationMS: c.Duration.Milliseconds(), Failures: []jsonFailure{}}
		if c.RunStatus != "" {
			exit := c.Exit
			jc.Exit = &exit
		}
		if keep {
			jc.Run = c.Run
		}
		for _, f := range c.Failures {
			d := f.Diagnostic
			jc.Failures = append(jc.Failures, jsonFailure{
				Expectation: f.Expectation, Step: f.Step, File: d.Range.File,
				Line: int(d.Range.Start.Line), Column: int(d.Range.Start.Column), Message: d.Message, Rule: d.Rule,
			})
		}
		if c.Status == Failed {
			out.Failed++
		} else {
			out.Passed++
		}
		out.Cases = append(out.Cases, jc)
	}
	enc := json.NewEncoder(w)
	if indent {
		enc.SetIndent("", "  ")
	}
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// Diagnostics are every case's failures as diagnostics, for the GitHub
// annotations check writes.
func (r *Report) Diagnostics() []ir.Diagnostic {
	var out []ir.Diagnostic
	for _, c := range r.Cases {
		for _, f := range c.Failures {
			out = append(out, f.Diagnostic)
		}
	}
	return out
}

// orDash is s, or "-" when it is empty.
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
