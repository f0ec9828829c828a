package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/ir"
)

func FuzzConfig(f *testing.F) {
	if src, err := os.ReadFile(filepath.Join("testdata", "config.toml")); err == nil {
		f.Add(src)
	}
	for _, s := range []string{
		"harnesses = { bot = { command = [\"bot\", \"{{.Model}}\"] } }\nmodels.codex.default = \"m\"\n",
		"effort = \"extreme\"\nrepair_cap = -1\n[harnesses.My_Bot]\ncommand = []\n[resources]\nmax_load = 0\nmin_free_memory = \"2 gigs\"\n",
		"[models.claude]\nsonnet = \"x\"\n[models.claude]\n",
		"[notify]\non = [\"failure\", 'success', \"\"\"x\"\"\"]\ncommand = ['''\nnotify-send''']\n",
		"resources.max_load = inf\nresources.min_free_memory = \"99999999999999999999GiB\"\n",
		"[limits]\naccess = \"ful\"\n",
		"limits = { access = \"read\" }\n",
		"[limits]\nbudget_usd = 4.50\n",
		"limits.budget_usd = \"$4\"\nlimits.budget_usd = -0.0\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_, diags := Read("config.toml", src)
		// Positions are in the text the reader read: no byte order
		// mark, CRLF read as LF.
		src = source.Text(src)
		checkDiagnostics(t, "config.toml", src, diags)
	})
}

// checkDiagnostics asserts that every diagnostic names file and lies inside
// src.
func checkDiagnostics(t *testing.T, file string, src []byte, diags []ir.Diagnostic) {
	t.Helper()
	lines := bytes.Count(src, []byte("\n")) + 1
	for _, d := range diags {
		if d.Range.File != file {
			t.Errorf("%s: file %q; want %q", d.Message, d.Range.File, file)
		}
		for _, r := range append([]ir.Range{d.Range}, relatedRanges(d)...) {
			for _, p := range []ir.Pos{r.Start, r.End} {
				if p.Line < 1 || int(p.Line) > lines+1 || p.Column < 1 || p.Offset < 0 || int(p.Offset) > len(src) {
					t.Errorf("%s: position %+v outside the file (%d lines, %d bytes)", d.Message, p, lines, len(src))
				}
			}
			if r.End.Offset < r.Start.Offset {
				t.Errorf("%s: range %+v ends before it starts", d.Message, r)
			}
		}
		if d.Message == "" || d.Rule == "" || d.Severity != ir.Error {
			t.Errorf("incomplete diagnostic %+v", d)
		}
	}
}

func relatedRanges(d ir.Diagnostic) []ir.Range {
	var out []ir.Range
	for _, r := range d.Related {
		out = append(out, r.Range)
	}
	return out
}
