package check_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/source/sourcetest"
	"github.com/cairn-dev/cairn/internal/textedit"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// fuzzFormats are the front-ends FuzzCheck feeds, by its format argument.
var fuzzFormats = []struct {
	file  string
	parse func(string, []byte) (*ir.Process, []ir.Diagnostic)
}{
	{"fuzz.toml", parse.TOML},
	{"fuzz.hcl", parse.HCL},
	{"fuzz.procedure.card", parse.Card},
}

// FuzzCheck runs every rule, the resolution and the plan on whatever a
// front-end makes of a file, with --lint and without: no file may make a
// rule panic (the IR leaves keys a file does not write unset, out of line,
// and each rule must read them as such), and every diagnostic about the
// file points inside it, but for ir.FileStart. The seeds are the process files of golden/check
// and examples.
func FuzzCheck(f *testing.F) {
	for _, pattern := range []string{"../golden/check/*", "../examples/*"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			for i, ff := range fuzzFormats {
				if ext := strings.TrimPrefix(ff.file, "fuzz"); strings.HasSuffix(file, ext) && !strings.HasSuffix(file, ".test.toml") &&
					!strings.HasSuffix(file, ".stubs.toml") && !strings.HasSuffix(file, ".config.toml") {
					src, err := os.ReadFile(file)
					if err != nil {
						f.Fatal(err)
					}
					f.Add(uint8(i), src)
				}
			}
		}
	}
	home := f.TempDir()
	f.Fuzz(func(t *testing.T, format uint8, src []byte) {
		ff := fuzzFormats[int(format)%len(fuzzFormats)]
		p, fe := ff.parse(ff.file, src)
		text := source.Text(src)
		for _, env := range []*check.Env{lintEnv(home), checkEnv(home)} {
			plan, diags := check.Check(context.Background(), p, fe, env)
			if !env.Lint && !ir.HasErrors(diags) && plan == nil {
				t.Errorf("no errors and no plan")
			}
			for _, d := range diags {
				if d.Message == "" || d.Rule == "" {
					t.Errorf("incomplete diagnostic %+v", d)
				}
				for _, r := range append([]ir.Range{d.Range}, related(d)...) {
					// ir.FileStart, where rules about the file as a whole
					// point, is 1:1 to 1:2 whatever the file holds.
					if r.File == ff.file && r.IsValid() && r != ir.FileStart(ff.file) {
						sourcetest.CheckRange(t, text, r, d.Message)
					}
				}
				// A fix edits the file it is in, where its edits fit.
				for _, fix := range d.Fixes {
					for _, e := range fix.Edits {
						if e.Range.File != ff.file {
							t.Errorf("%s: an edit of %q", d.Message, e.Range.File)
						}
						sourcetest.CheckRange(t, text, e.Range, d.Message+" (fix)")
					}
					if _, err := textedit.Apply(text, fix.Edits); err != nil || fix.Message == "" {
						t.Errorf("%s: fix %+v: %v", d.Message, fix, err)
					}
				}
			}
		}
	})
}

// related returns the ranges of d's related notes.
func related(d ir.Diagnostic) []ir.Range {
	var rs []ir.Range
	for _, rel := range d.Related {
		rs = append(rs, rel.Range)
	}
	return rs
}
