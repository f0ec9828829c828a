package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/parse"
)

// TestCheckDeepNesting: a file of a million nested brackets, in HCL or in a
// card's front matter, is refused at the bracket that goes too deep, in
// JSON, with exit 1, where hclsyntax overflowed its stack (exit 2, no JSON)
// and the YAML parser took seconds and gigabytes.
func TestCheckDeepNesting(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"deep.hcl":            "a = " + strings.Repeat("[", 1_000_000) + "\n",
		"deep.procedure.card": "---\na: " + strings.Repeat("[", 1_000_000) + "\n---\n",
	})
	gitRepo(t, dir)
	for _, tc := range []struct {
		file         string
		line, column int
	}{
		{"deep.hcl", 1, 5 + parse.MaxNesting},
		{"deep.procedure.card", 2, 1 + parse.MaxNesting},
	} {
		stdout, stderr, code := cairnIn(t, dir, "check", "--no-preflight", "--format", "json", tc.file)
		if code != exitFailed {
			t.Errorf("%s: exit %d; want %d; stderr:\n%s", tc.file, code, exitFailed, stderr)
		}
		var report struct {
			Diagnostics []struct {
				File         string
				Line, Column int
				Rule         string
				Message      string
			}
		}
		if err := json.Unmarshal(stdout, &report); err != nil {
			t.Fatalf("%s: stdout is not JSON: %v\n%.300s", tc.file, err, stdout)
		}
		ds := report.Diagnostics
		if len(ds) != 1 || ds[0].File != tc.file || ds[0].Line != tc.line || ds[0].Column != tc.column ||
			ds[0].Rule != "syntax" || !strings.Contains(ds[0].Message, "nested more than 100 levels deep") {
			t.Errorf("%s: diagnostics %+v; want one syntax error at %d:%d", tc.file, ds, tc.line, tc.column)
		}
	}
}
