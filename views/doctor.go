package views

import (
	"fmt"
	"io"
	"strings"
)

// Health is the outcome of one of `cairn doctor`'s checks.
type Health string

// A check is ok; missing (what it looks for is not there or does not work);
// or a warning (there, but not as cairn was verified with, or needed only by
// what no process uses yet).
const (
	HealthOK      Health = "ok"
	HealthMissing Health = "missing"
	HealthWarning Health = "warning"
)

// DoctorCheck is one thing a run needs, checked: what (Name), its outcome,
// what was found or why not (Detail), what needs it (For: "every run",
// "compiled scripts", the processes that use it), and whether a process
// found needs it (Needed), which makes a missing one fail the doctor.
type DoctorCheck struct {
	Name   string   `json:"name"`
	Health Health   `json:"health"`
	Detail string   `json:"detail"`
	For    []string `json:"for"`
	Needed bool     `json:"needed"`
	// Install is, for a built-in harness's CLI, the npm package at the
	// version cairn's argv was verified with ("@openai/codex@0.171.0"),
	// which the container image and CI install.
	Install string `json:"install,omitempty"`
}

// Doctor is what `cairn doctor` found: its checks, in the order they are
// shown, and the processes it looked at (Processes), whose needs say which
// checks are needed.
type Doctor struct {
	Checks    []DoctorCheck
	Processes int
}

// Failed reports whether something a process needs is missing.
func (d *Doctor) Failed() bool {
	for _, c := range d.Checks {
		if c.Needed && c.Health == HealthMissing {
			return true
		}
	}
	return false
}

// WriteText writes the checks as a table, a check per line: its name, its
// outcome, what it found, and what needs it; then one line that sums up.
func (d *Doctor) WriteText(w io.Writer) error {
	rows := [][]string{{"CHECK", "HEALTH", "DETAIL", "FOR"}}
	for _, c := range d.Checks {
		needs := strings.Join(c.For, ", ")
		if needs == "" {
			needs = "no process found"
		}
		rows = append(rows, []string{c.Name, string(c.Health), c.Detail, needs})
	}
	var missing []string
	for _, c := range d.Checks {
		if c.Needed && c.Health == HealthMissing {
			missing = append(missing, c.Name)
		}
	}
	found := fmt.Sprintf("%d processes", d.Processes)
	if d.Processes == 1 {
		found = "1 process"
	}
	end := fmt.Sprintf("ready: nothing the %s found need is missing", found)
	if len(missing) > 0 {
		end = fmt.Sprintf("not ready: %s missing", strings.Join(missing, ", "))
	}
	_, err := io.WriteString(w, strings.Join(columns(rows), "\n")+"\n"+end+"\n")
	return err
}

// jsonDoctor is the JSON document of `cairn doctor --json`.
type jsonDoctor struct {
	Version   int           `json:"version"`
	Ready     bool          `json:"ready"`
	Processes int           `json:"processes"`
	Checks    []DoctorCheck `json:"checks"`
}

// WriteJSON writes the checks as one JSON document: whether nothing needed
// is missing (ready), how many processes were looked at, and every check.
func (d *Doctor) WriteJSON(w io.Writer, indent bool) error {
	doc := jsonDoctor{Version: ReportVersion, Ready: !d.Failed(), Processes: d.Processes, Checks: d.Checks}
	for i := range doc.Checks {
		if doc.Checks[i].For == nil {
			doc.Checks[i].For = []string{}
		}
	}
	return writeJSON(w, doc, indent)
}
