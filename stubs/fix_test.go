package stubs

import (
	"testing"

	"github.com/cairn-dev/cairn/internal/textedit"
	"github.com/cairn-dev/cairn/ir"
)

// TestFixes holds the fixes of stubs and test files to the text they make:
// a misspelt key, value or step written in place; and no fix that would
// give a step two stubs.
func TestFixes(t *testing.T) {
	for _, tc := range []struct {
		name, file, src, want string
	}{
		{"key", "x.stubs.toml", "[stubs.fix]\nreslt = \"a\"\n", "[stubs.fix]\nresult = \"a\"\n"},
		{"attempts, in each header", "x.stubs.toml", "[[stubs.fix.attempt]]\nresult = \"a\"\n[[stubs.fix.attempt]]\nresult = \"b\"\n", "[[stubs.fix.attempts]]\nresult = \"a\"\n[[stubs.fix.attempts]]\nresult = \"b\"\n"},
		{"verdict", "x.stubs.toml", "[stubs.fix]\nverdict = \"pas\"\n", "[stubs.fix]\nverdict = \"pass\"\n"},
		{"stub of a misspelt step", "x.stubs.toml", "[stubs.hunt-cluade]\nresult = \"a\"\n", "[stubs.hunt-claude]\nresult = \"a\"\n"},
		{"no second stub of a step", "x.stubs.toml", "[stubs.hunt-cluade]\n[stubs.hunt-claude]\n", ""},
		{"expected outcome", "x.test.toml", "process = \"fix\"\n[expect.steps]\nfix = \"succeded\"\n", "process = \"fix\"\n[expect.steps]\nfix = \"succeeded\"\n"},
		{"expected step", "x.test.toml", "process = \"fix\"\n[expect.steps]\n'hunt-cluade' = \"failed\"\n", "process = \"fix\"\n[expect.steps]\n'hunt-claude' = \"failed\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var diags []ir.Diagnostic
			if tc.file == "x.test.toml" {
				test, ds := ReadTest(tc.file, []byte(tc.src))
				diags = append(ds, CheckTest(test, plan())...)
			} else {
				s, ds := Read(tc.file, []byte(tc.src))
				diags = append(ds, Check(s, plan())...)
			}
			var edits []ir.Edit
			for _, d := range diags {
				for _, f := range d.Fixes {
					edits = append(edits, f.Edits...)
				}
			}
			if tc.want == "" {
				if edits != nil {
					t.Fatalf("edits %+v; want none", edits)
				}
				return
			}
			got, err := textedit.Apply([]byte(tc.src), edits)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("fixed:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
