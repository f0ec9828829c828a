package parse_test

import (
	"testing"

	"github.com/cairn-dev/cairn/internal/textedit"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// TestFrontEndFixes holds each front-end's fixes to the file they make:
// each edit covers exactly the word at fault (a key as written, quotes
// kept), and the fixed file reads with no refusal of that rule left.
func TestFrontEndFixes(t *testing.T) {
	t.Parallel()
	read := map[ir.Format]func(string, []byte) (*ir.Process, []ir.Diagnostic){
		ir.TOML: parse.TOML,
		ir.HCL:  parse.HCL,
		ir.Card: parse.Card,
	}
	for _, tc := range []struct {
		name   string
		format ir.Format
		rule   string
		src    string
		want   string
	}{
		{"toml key", ir.TOML, ir.RuleUnknownKey,
			"version = 1\n\n[[steps]]\nname = \"t\"\ncommnd = \"go test\"\n",
			"version = 1\n\n[[steps]]\nname = \"t\"\ncommand = \"go test\"\n"},
		{"toml quoted key", ir.TOML, ir.RuleUnknownKey,
			"version = 1\n\n[[steps]]\nname = \"t\"\n\"commnd\" = \"go test\"\n",
			"version = 1\n\n[[steps]]\nname = \"t\"\n\"command\" = \"go test\"\n"},
		{"toml key in a header", ir.TOML, ir.RuleUnknownKey,
			"version = 1\n\n[limit]\nrepair_cap = 1\n",
			"version = 1\n\n[limits]\nrepair_cap = 1\n"},
		{"toml dotted key", ir.TOML, ir.RuleUnknownKey,
			"version = 1\nlimits.repair_cp = 1\n",
			"version = 1\nlimits.repair_cap = 1\n"},
		{"toml key in an inline table", ir.TOML, ir.RuleUnknownKey,
			"version = 1\nworktrees = { a = { knd = \"throwaway\" } }\n",
			"version = 1\nworktrees = { a = { kind = \"throwaway\" } }\n"},
		{"toml array of tables in each header", ir.TOML, ir.RuleUnknownKey,
			"version = 1\n\n[[step]]\nname = \"a\"\ncommand = \"true\"\n\n[[ step ]]\nname = \"b\"\ncommand = \"true\"\n\n[[step]] # é\nname = \"c\"\ncommand = \"true\"\n",
			"version = 1\n\n[[steps]]\nname = \"a\"\ncommand = \"true\"\n\n[[ steps ]]\nname = \"b\"\ncommand = \"true\"\n\n[[steps]] # é\nname = \"c\"\ncommand = \"true\"\n"},
		{"toml table made by one header on the way", ir.TOML, ir.RuleUnknownKey,
			"version = 1\n\n[worktree.a]\nkind = \"throwaway\"\n",
			"version = 1\n\n[worktrees.a]\nkind = \"throwaway\"\n"},
		{"toml step id", ir.TOML, ir.RuleUnknownKey,
			"version = 1\n\n[[steps]]\nid = \"t\"\ncommand = \"true\"\n",
			"version = 1\n\n[[steps]]\nname = \"t\"\ncommand = \"true\"\n"},
		{"toml duration", ir.TOML, ir.RuleType,
			"version = 1\n\n[[steps]]\nname = \"t\"\ncommand = \"true\"\ntimeout = 30\n",
			"version = 1\n\n[[steps]]\nname = \"t\"\ncommand = \"true\"\ntimeout = \"30s\"\n"},
		{"hcl attribute", ir.HCL, ir.RuleUnknownKey,
			"version = 1\n\nstep \"t\" {\n  commnd = \"go test\"\n}\n",
			"version = 1\n\nstep \"t\" {\n  command = \"go test\"\n}\n"},
		{"hcl block", ir.HCL, ir.RuleUnknownKey,
			"version = 1\n\nstep \"t\" {\n  command = \"true\"\n  validat {\n    shells = [\"true\"]\n  }\n}\n",
			"version = 1\n\nstep \"t\" {\n  command = \"true\"\n  validate {\n    shells = [\"true\"]\n  }\n}\n"},
		{"hcl top block", ir.HCL, ir.RuleUnknownKey,
			"version = 1\n\nstpe \"t\" {\n  command = \"true\"\n}\n",
			"version = 1\n\nstep \"t\" {\n  command = \"true\"\n}\n"},
		{"hcl variable", ir.HCL, ir.RuleHCLExpression,
			"version = 1\n\nworktree \"a\" {\n  kind = throwaway\n}\n",
			"version = 1\n\nworktree \"a\" {\n  kind = \"throwaway\"\n}\n"},
		{"hcl duration", ir.HCL, ir.RuleType,
			"version = 1\nrun_expiry = 30\n",
			"version = 1\nrun_expiry = \"30d\"\n"},
		{"card key", ir.Card, ir.RuleUnknownKey,
			"---\nsteps:\n  - id: t\n    run:\n      shells: [\"true\"]\n    descripton: x\n---\n",
			"---\nsteps:\n  - id: t\n    run:\n      shells: [\"true\"]\n    description: x\n---\n"},
		{"card quoted key", ir.Card, ir.RuleUnknownKey,
			"---\n\"descripton\": x\n---\n",
			"---\n\"description\": x\n---\n"},
		{"card agent key", ir.Card, ir.RuleUnknownKey,
			"---\nsteps:\n  - id: t\n    run:\n      agents:\n        - prompt: p\n          modle: balanced\n---\n",
			"---\nsteps:\n  - id: t\n    run:\n      agents:\n        - prompt: p\n          model: balanced\n---\n"},
		{"card step name", ir.Card, ir.RuleUnknownKey,
			"---\nsteps:\n  - name: t\n    run:\n      shells: [\"true\"]\n---\n",
			"---\nsteps:\n  - id: t\n    run:\n      shells: [\"true\"]\n---\n"},
		{"card version", ir.Card, ir.RuleUnknownKey,
			"---\nversion: 1\ndescription: x\n---\n",
			"---\ndescription: x\n---\n"},
		{"card duration", ir.Card, ir.RuleType,
			"---\nrun-expiry: 30\n---\n",
			"---\nrun-expiry: 30d\n---\n"},
		{"card number for a string", ir.Card, ir.RuleType,
			"---\ndescription: 1.5\n---\n",
			"---\ndescription: '1.5'\n---\n"},
		{"card number in a list", ir.Card, ir.RuleType,
			"---\nsteps:\n  - id: t\n    run:\n      shells: [true, \"x\"]\n---\n",
			"---\nsteps:\n  - id: t\n    run:\n      shells: ['true', \"x\"]\n---\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := read[tc.format]("p", []byte(tc.src))
			var edits []ir.Edit
			for _, d := range diags {
				if d.Rule != tc.rule {
					continue
				}
				if len(d.Fixes) != 1 {
					t.Fatalf("%s: %d fixes; want 1", d.Message, len(d.Fixes))
				}
				edits = append(edits, d.Fixes[0].Edits...)
			}
			if len(edits) == 0 {
				t.Fatalf("no fix of rule %s among %+v", tc.rule, diags)
			}
			got, err := textedit.Apply([]byte(tc.src), edits)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("fixed:\n%s\nwant:\n%s", got, tc.want)
			}
			_, diags = read[tc.format]("p", got)
			for _, d := range diags {
				if d.Rule == tc.rule {
					t.Errorf("after the fix: %s", d.Message)
				}
			}
		})
	}
}

// TestFrontEndNoFix holds that a suggestion that would define a key twice,
// or put a block where an attribute goes, is not offered as a fix.
func TestFrontEndNoFix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		read func(string, []byte) (*ir.Process, []ir.Diagnostic)
		src  string
	}{
		{"toml key present", parse.TOML, "version = 1\n\n[[steps]]\nname = \"t\"\ncommand = \"a\"\ncommnd = \"b\"\n"},
		{"toml array of tables with tables of its own", parse.TOML, "version = 1\n\n[[step]]\nname = \"a\"\ncommand = \"true\"\n\n[step.validate]\nshells = [\"true\"]\n"},
		{"toml table its subtables' headers name", parse.TOML, "version = 1\n\n[worktree.a]\nkind = \"throwaway\"\n\n[worktree.b]\nkind = \"throwaway\"\n"},
		{"toml dotted keys through one table", parse.TOML, "version = 1\nlmits.repair_cap = 1\nlmits.self_merge = false\n"},
		{"hcl attribute present", parse.HCL, "version = 1\n\nstep \"t\" {\n  command = \"a\"\n  commnd = \"b\"\n}\n"},
		{"hcl attribute for a block", parse.HCL, "version = 1\n\nstep \"t\" {\n  command = \"a\"\n  validat = 1\n}\n"},
		{"hcl block present", parse.HCL, "version = 1\n\nlimits {\n}\nlimit {\n}\n"},
		{"card key present", parse.Card, "---\ndescription: a\ndescripton: b\n---\n"},
		{"card step with an id", parse.Card, "---\nsteps:\n  - id: t\n    name: t\n    run:\n      shells: [\"true\"]\n---\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := tc.read("p", []byte(tc.src))
			found := false
			for _, d := range diags {
				if d.Rule != ir.RuleUnknownKey {
					continue
				}
				found = true
				if d.Fixes != nil {
					t.Errorf("%s: fixes %+v", d.Message, d.Fixes)
				}
			}
			if !found {
				t.Fatalf("no unknown-key among %+v", diags)
			}
		})
	}
}
