package load

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/views"
)

// repoSetup is setup in a git repository.
func repoSetup(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := setup(t, files)
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	return dir
}

// change is a fix of one edit replacing the text from offset start to end
// of the one-line file text, named file.
func change(file string, start, end int32, text string) ir.Diagnostic {
	r := ir.Range{File: file, Start: ir.Pos{Line: 1, Column: start + 1, Offset: start}, End: ir.Pos{Line: 1, Column: end + 1, Offset: end}}
	return ir.Diagnostic{Rule: "r", Severity: ir.Error, Message: "m", Range: r,
		Fixes: []ir.Fix{{Message: "change to " + text, Edits: []ir.Edit{{Range: r, NewText: text}}}}}
}

// TestFixChoice holds which fixes one pass applies: each in the report's
// order whose edits overlap none applied (or start where one does), and
// one whose edits are all applied already, by another finding's fix.
func TestFixChoice(t *testing.T) {
	const text = "abcdefgh"
	dir := repoSetup(t, map[string]string{"f": text})
	ws := Open(t.Context(), dir, Options{NoPreflight: true, Lint: true, Env: os.Environ()})
	r := &views.Report{
		Sources: map[string][]byte{"f": []byte(text)},
		Diagnostics: []ir.Diagnostic{
			change("f", 0, 2, "AB"),
			change("f", 1, 3, "x"), // overlaps the first
			change("f", 4, 4, "!"),
			change("f", 4, 5, "y"), // starts where the insertion is
			change("f", 0, 2, "AB"),
			change("f", 6, 8, "GH"),
		},
	}
	fixed := ws.Fix(r)
	if len(fixed.Applied) != 4 || fixed.Files != 1 || len(fixed.NotFixed) != 0 {
		t.Fatalf("fixed %+v; want 4 fixes applied in 1 file", fixed)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "f"))
	if string(b) != "ABcd!efGH" {
		t.Errorf("the file holds %q; want %q", b, "ABcd!efGH")
	}
}

// TestFixChanged holds that a file changed since it was checked is not
// written: its fixes are of the text that was checked.
func TestFixChanged(t *testing.T) {
	const bad = "version = 1\n\n[[steps]]\nname = \"t\"\ncommnd = \"true\"\n"
	dir := repoSetup(t, map[string]string{"p.toml": bad})
	file := filepath.Join(dir, "p.toml")
	ws := Open(t.Context(), dir, Options{NoPreflight: true, Lint: true, Env: os.Environ()})
	r := ws.Check(context.Background(), []string{file}, "")
	edited := bad + "# edited meanwhile\n"
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	_, fixed := ws.FixAndCheck(context.Background(), r, []string{file}, "")
	if len(fixed.Applied) != 0 || len(fixed.NotFixed) != 1 || fixed.NotFixed[0].Reason != "it changed since it was checked; check it again" {
		t.Errorf("fixed %+v; want the file not written, as it changed", fixed)
	}
	if b, _ := os.ReadFile(file); string(b) != edited {
		t.Errorf("the file holds %q; want it as edited", b)
	}
	if fixed.Left != 0 {
		t.Errorf("Left = %d; a file not written leaves nothing to fix by running again", fixed.Left)
	}
}
