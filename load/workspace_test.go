package load

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/ir"
)

const (
	validProcess   = "version = 1\ndescription = \"Test\"\n\n[[steps]]\nname = \"test\"\ncommand = \"go test ./...\"\n"
	refusedProcess = "[[steps]]\nname = \"test\"\ncommand = \"go test ./...\"\n"
)

// setup writes files under a fresh folder that is no git repository, with
// CAIRN_HOME in it, and returns the folder.
func setup(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("CAIRN_HOME", filepath.Join(dir, "home"))
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheck(t *testing.T) {
	dir := setup(t, map[string]string{"good.toml": validProcess, "bad.toml": refusedProcess})
	good, bad := filepath.Join(dir, "good.toml"), filepath.Join(dir, "bad.toml")
	ws := Open(context.Background(), dir, Options{NoPreflight: true, Env: os.Environ()})
	if !ws.NoRepo {
		t.Errorf("NoRepo is false outside a git repository")
	}
	r := ws.Check(context.Background(), []string{good, bad, good}, "")
	if r.Files != 2 {
		t.Errorf("Files = %d; want 2 (a file named twice is checked once)", r.Files)
	}
	if len(r.Plans) != 1 || r.Plans[0].Process != "good" {
		t.Errorf("plans: %+v; want the plan of good", r.Plans)
	}
	if len(r.Diagnostics) == 0 || r.Diagnostics[0].Range.File != bad || r.Diagnostics[0].Rule != check.RuleVersion {
		t.Errorf("diagnostics: %+v; want bad.toml's missing version", r.Diagnostics)
	}
	if r.Sources[good] == nil || r.Sources[bad] == nil {
		t.Errorf("sources of %v; want both files", r.Sources)
	}
	if !r.Failed() {
		t.Errorf("Failed() = false with an error")
	}
}

func TestCheckBadIssue(t *testing.T) {
	dir := setup(t, map[string]string{"good.toml": validProcess})
	r := Open(context.Background(), dir, Options{NoPreflight: true, Env: os.Environ()}).Check(context.Background(), []string{filepath.Join(dir, "good.toml")}, "forty-two")
	if len(r.Plans) != 0 {
		t.Errorf("a bad issue still planned %d files", len(r.Plans))
	}
	if len(r.Diagnostics) != 1 {
		t.Fatalf("diagnostics: %+v", r.Diagnostics)
	}
	if d := r.Diagnostics[0]; d.Range.File != "" || d.Rule != check.RuleInvalidValue || d.Severity != ir.Error {
		t.Errorf("diagnostic %+v; want an invalid-value error of no file", d)
	}
}

func TestCheckAll(t *testing.T) {
	dir := setup(t, map[string]string{
		"home/processes/good.toml":            validProcess,
		"home/processes/bad.toml":             refusedProcess,
		"home/processes/later.procedure.card": "no front matter\n",
		"home/processes/notes.yaml":           "a: 1\n",
	})
	r := Open(context.Background(), dir, Options{NoPreflight: true, Env: os.Environ()}).Check(context.Background(), nil, "")
	// notes.yaml is no process file: check-all does not read it.
	if r.Files != 3 || len(r.Plans) != 1 {
		t.Errorf("Files = %d, %d plans; want 3 files, 1 plan", r.Files, len(r.Plans))
	}
	if len(r.Searched) != 1 {
		t.Errorf("Searched = %v; want the home's processes folder", r.Searched)
	}
	var card bool
	for _, d := range r.Diagnostics {
		if d.Rule == ir.RuleSyntax && filepath.Base(d.Range.File) == "later.procedure.card" && d.Range.Start.Line == 1 {
			card = true
		}
		if filepath.Base(d.Range.File) == "notes.yaml" {
			t.Errorf("notes.yaml was read: %+v", d)
		}
	}
	if !card {
		t.Errorf("no syntax diagnostic at 1:1 of later.procedure.card in %+v", r.Diagnostics)
	}
}

func TestList(t *testing.T) {
	dir := setup(t, map[string]string{
		"home/processes/good.toml": validProcess,
		"home/processes/bad.toml":  "version = 1\nsteps = [\n",
	})
	l := Open(context.Background(), dir, Options{NoPreflight: true, Env: os.Environ()}).List()
	if len(l.Processes) != 2 {
		t.Fatalf("processes: %+v", l.Processes)
	}
	bad, good := l.Processes[0], l.Processes[1]
	if bad.Name != "bad" || bad.Error == nil || bad.Error.Rule != ir.RuleSyntax {
		t.Errorf("bad: %+v; want it listed with its refusal", bad)
	}
	if good.Name != "good" || good.Error != nil || good.Description != "Test" || good.Format != ir.TOML {
		t.Errorf("good: %+v", good)
	}
	if l.Failed() {
		t.Errorf("a broken file fails the listing")
	}
}
