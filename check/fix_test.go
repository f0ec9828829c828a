package check

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/textedit"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// TestRuleFixes holds each rule that knows a fix to the file its fixes
// make, and checks the fixed file again: no finding of the rule is left.
// Each case is one line of a file changed ("old" → "new"), or lines
// added or removed.
func TestRuleFixes(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeTestFile(t, filepath.Join(home, "skills", "bug-hunt", "SKILL.md"), "Hunt for bugs.\n")
	writeTestFile(t, filepath.Join(home, "processes", "child.toml"), "version = 1\n\n[[steps]]\nname = \"work\"\nprompt = \"Work.\"\n")
	cfg := &config.Config{}
	for _, tc := range []struct {
		name, rule, file, src, want string
	}{
		{"worktree kind", RuleInvalidValue, "p.toml",
			"version = 1\n\n[worktrees.a]\nkind = \"thrwaway\"\n\n[[steps]]\nname = \"s\"\ncommand = \"true\"\nworktree = \"a\"\n",
			"version = 1\n\n[worktrees.a]\nkind = \"throwaway\"\n\n[[steps]]\nname = \"s\"\ncommand = \"true\"\nworktree = \"a\"\n"},
		{"effort", RuleInvalidValue, "p.toml",
			"version = 1\n\n[[steps]]\nname = \"s\"\nprompt = \"p\"\neffort = 'hgh'\n",
			"version = 1\n\n[[steps]]\nname = \"s\"\nprompt = \"p\"\neffort = 'high'\n"},
		{"severity in HCL", RuleInvalidValue, "p.hcl",
			"version = 1\n\nstep \"s\" {\n  command = \"true\"\n  validate {\n    shells   = [\"true\"]\n    severity = \"abrot\"\n  }\n}\n",
			"version = 1\n\nstep \"s\" {\n  command = \"true\"\n  validate {\n    shells   = [\"true\"]\n    severity = \"abort\"\n  }\n}\n"},
		{"access in a card", RuleInvalidValue, "p.procedure.card",
			"---\naccess: raed\nsteps:\n  - id: s\n    run:\n      shells: [\"true\"]\n---\n",
			"---\naccess: read\nsteps:\n  - id: s\n    run:\n      shells: [\"true\"]\n---\n"},
		{"catalogue", RuleUnknownCatalogue, "p.toml",
			"version = 1\n\n[[steps]]\nname = \"s\"\ncatalogue = \"delivry\"\n",
			"version = 1\n\n[[steps]]\nname = \"s\"\ncatalogue = \"delivery\"\n"},
		{"harness", RuleUnknownHarness, "p.toml",
			"version = 1\n\n[[steps]]\nname = \"s\"\nprompt = \"p\"\nharness = \"claud\"\n",
			"version = 1\n\n[[steps]]\nname = \"s\"\nprompt = \"p\"\nharness = \"claude\"\n"},
		{"step worktree", RuleUnknownWorktree, "p.toml",
			"version = 1\n\n[worktrees.work]\nkind = \"throwaway\"\n\n[[steps]]\nname = \"s\"\ncommand = \"true\"\nworktree = \"wrok\"\n",
			"version = 1\n\n[worktrees.work]\nkind = \"throwaway\"\n\n[[steps]]\nname = \"s\"\ncommand = \"true\"\nworktree = \"work\"\n"},
		{"default worktree", RuleUnknownWorktree, "p.toml",
			"version = 1\ndefault_worktree = \"wrok\"\n\n[worktrees.work]\nkind = \"throwaway\"\n\n[[steps]]\nname = \"s\"\ncommand = \"true\"\n",
			"version = 1\ndefault_worktree = \"work\"\n\n[worktrees.work]\nkind = \"throwaway\"\n\n[[steps]]\nname = \"s\"\ncommand = \"true\"\n"},
		{"step name", RuleInvalidName, "p.toml",
			"version = 1\n\n[[steps]]\nname = \"Run_Tests\"\ncommand = \"true\"\n",
			"version = 1\n\n[[steps]]\nname = \"run-tests\"\ncommand = \"true\"\n"},
		{"worktree name and its uses", RuleInvalidName, "p.toml",
			"version = 1\ndefault_worktree = \"Work\"\n\n[worktrees.Work]\nkind = \"throwaway\"\n\n[[steps]]\nname = \"s\"\ncommand = \"true\"\nworktree = \"Work\"\n",
			"version = 1\ndefault_worktree = \"work\"\n\n[worktrees.work]\nkind = \"throwaway\"\n\n[[steps]]\nname = \"s\"\ncommand = \"true\"\nworktree = \"work\"\n"},
		{"worktree name in HCL", RuleInvalidName, "p.hcl",
			"version = 1\n\nworktree \"Work\" {\n  kind = \"throwaway\"\n}\n\nstep \"s\" {\n  command  = \"true\"\n  worktree = \"Work\"\n}\n",
			"version = 1\n\nworktree \"work\" {\n  kind = \"throwaway\"\n}\n\nstep \"s\" {\n  command  = \"true\"\n  worktree = \"work\"\n}\n"},
		{"parallel group in every step", RuleInvalidName, "p.toml",
			"version = 1\n\n[[steps]]\nname = \"a\"\ncommand = \"true\"\nparallel = \"Look\"\n\n[[steps]]\nname = \"b\"\ncommand = \"true\"\nparallel = \"Look\"\n",
			"version = 1\n\n[[steps]]\nname = \"a\"\ncommand = \"true\"\nparallel = \"look\"\n\n[[steps]]\nname = \"b\"\ncommand = \"true\"\nparallel = \"look\"\n"},
		{"skill", RuleSkillNotFound, "p.toml",
			"version = 1\n\n[[steps]]\nname = \"s\"\nskill = \"bug-hnt\"\n",
			"version = 1\n\n[[steps]]\nname = \"s\"\nskill = \"bug-hunt\"\n"},
		{"child process", RuleUnknownProcess, "p.toml",
			"version = 1\n\n[[steps]]\nname = \"s\"\ncatalogue = \"run-published-issue\"\nprocess = \"chld\"\n",
			"version = 1\n\n[[steps]]\nname = \"s\"\ncatalogue = \"run-published-issue\"\nprocess = \"child\"\n"},
		{"version", RuleVersion, "p.toml",
			"[[steps]]\nname = \"s\"\ncommand = \"true\"\n",
			"version = 1\n[[steps]]\nname = \"s\"\ncommand = \"true\"\n"},
		{"effort the harness takes none of", RuleUnknownEffort, "p.toml",
			"version = 1\n\n[[steps]]\nname = \"s\"\nprompt = \"p\"\nharness = \"gemini\"\neffort = \"high\" # think hard\nmodel = \"balanced\"\n",
			"version = 1\n\n[[steps]]\nname = \"s\"\nprompt = \"p\"\nharness = \"gemini\"\nmodel = \"balanced\"\n"},
		{"effort in HCL", RuleUnknownEffort, "p.hcl",
			"version = 1\n\nstep \"s\" {\n  prompt  = \"p\"\n  harness = \"gemini\"\n  effort  = \"high\"\n}\n",
			"version = 1\n\nstep \"s\" {\n  prompt  = \"p\"\n  harness = \"gemini\"\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(src string) []ir.Diagnostic {
				format, _ := parse.FormatOf(tc.file)
				var p *ir.Process
				var fe []ir.Diagnostic
				switch format {
				case ir.HCL:
					p, fe = parse.HCL(tc.file, []byte(src))
				case ir.Card:
					p, fe = parse.Card(tc.file, []byte(src))
				default:
					p, fe = parse.TOML(tc.file, []byte(src))
				}
				_, diags := Check(context.Background(), p, fe, &Env{Home: home, Config: cfg, Harnesses: harness.NewRegistry(nil)})
				var out []ir.Diagnostic
				for _, d := range diags {
					if d.Rule == tc.rule {
						out = append(out, d)
					}
				}
				return out
			}
			diags := check(tc.src)
			if len(diags) == 0 {
				t.Fatalf("no finding of %s", tc.rule)
			}
			var edits []ir.Edit
			for _, d := range diags {
				if len(d.Fixes) != 1 {
					t.Fatalf("%s: %d fixes; want 1", d.Message, len(d.Fixes))
				}
				edits = append(edits, d.Fixes[0].Edits...)
			}
			got, err := textedit.Apply([]byte(tc.src), edits)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("fixed:\n%s\nwant:\n%s", got, tc.want)
			}
			for _, d := range check(string(got)) {
				t.Errorf("after the fix: %s", d.Message)
			}
		})
	}
}

// TestRuleNoFix holds that a suggestion that would give two things one
// name is not offered as a fix.
func TestRuleNoFix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src string }{
		{"step name taken", "version = 1\n\n[[steps]]\nname = \"Ab\"\ncommand = \"true\"\n\n[[steps]]\nname = \"ab\"\ncommand = \"true\"\n"},
		{"worktree name taken", "version = 1\n\n[worktrees.Ab]\nkind = \"throwaway\"\n\n[worktrees.ab]\nkind = \"throwaway\"\n\n[[steps]]\nname = \"s\"\ncommand = \"true\"\nworktree = \"Ab\"\n\n[[steps]]\nname = \"t\"\ncommand = \"true\"\nworktree = \"ab\"\n"},
		{"group name taken", "version = 1\n\n[[steps]]\nname = \"a\"\ncommand = \"true\"\nparallel = \"G\"\n\n[[steps]]\nname = \"b\"\ncommand = \"true\"\nparallel = \"g\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustTOML(t, "p.toml", tc.src)
			_, diags := Check(context.Background(), p, nil, &Env{Lint: true, Config: &config.Config{}})
			found := false
			for _, d := range diags {
				if d.Rule != RuleInvalidName {
					continue
				}
				found = true
				if !strings.Contains(d.Message, "did you mean") || d.Fixes != nil {
					t.Errorf("%s: fixes %+v", d.Message, d.Fixes)
				}
			}
			if !found {
				t.Fatal("no invalid-name finding")
			}
		})
	}
}
