package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
)

// writeTestFile writes body to path, making its folders.
func writeTestFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// envCase is a process file checked against an Env, and the diagnostics of
// one rule it gets: "file:line:col severity: message", with " (related
// line:col)" for each related range.
type envCase struct {
	name  string
	src   string
	cfg   *config.Config
	flags Flags
	want  []string
}

func runEnvCases(t *testing.T, rule string, cases []envCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustTOML(t, "p.toml", tc.src)
			cfg := tc.cfg
			if cfg == nil {
				cfg = &config.Config{}
			}
			_, diags := Check(context.Background(), p, nil, &Env{Home: t.TempDir(), Config: cfg, Flags: tc.flags, Harnesses: harness.NewRegistry(cfg.CustomHarnesses()).WithPrices(cfg.PriceOverrides())})
			got := ruleDiags(diags, rule)
			if !slices.Equal(got, tc.want) {
				t.Errorf("[%s] got\n%s\nwant\n%s", rule, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// ruleDiags renders the diagnostics of rule.
func ruleDiags(diags []ir.Diagnostic, rule string) []string {
	var got []string
	for _, d := range diags {
		if d.Rule != rule {
			continue
		}
		s := fmt.Sprintf("%s:%d:%d %s: %s", d.Range.File, d.Range.Start.Line, d.Range.Start.Column, d.Severity, d.Message)
		for _, r := range d.Related {
			s += fmt.Sprintf(" (%s %s:%d:%d)", r.Message, r.Range.File, r.Range.Start.Line, r.Range.Start.Column)
		}
		got = append(got, s)
	}
	return got
}

func TestEnvRulesRegistry(t *testing.T) {
	t.Parallel()
	for _, r := range envRules {
		if r.Lint || r.FrontEnd || r.Run == nil || r.Severity == "" || !isKebab(r.ID) || r.Doc == "" {
			t.Errorf("env rule %+v: want a rule with a severity, a Run, a kebab-case ID and a doc, not lint", r)
		}
	}
}

func TestUnknownHarness(t *testing.T) {
	t.Parallel()
	two := `version = 1
[[steps]]
name = "a"
prompt = "p"
harness = "cluade"
[[steps]]
name = "b"
prompt = "p"
[[steps]]
name = "c"
prompt = "p"
harness = "zzz"
[[steps]]
name = "d"
prompt = "p"
`
	hint := "use claude, codex, gemini, mybot or opencode, or define it under [harnesses.%s] in config.toml"
	mybot := []config.Harness{{Name: "mybot", Command: cfgList(1, "mybot")}}
	runEnvCases(t, RuleUnknownHarness, []envCase{
		{
			name: "on the step",
			src:  two,
			cfg:  &config.Config{Harnesses: mybot},
			want: []string{
				`p.toml:5:11 error: unknown harness "cluade" (did you mean "claude"?); ` + fmt.Sprintf(hint, "cluade"),
				`p.toml:12:11 error: unknown harness "zzz"; ` + fmt.Sprintf(hint, "zzz"),
			},
		},
		{
			name: "from the config, once",
			src:  two,
			cfg:  &config.Config{File: cfgFile, Harness: cfgString("mybott", 4), Harnesses: mybot},
			want: []string{
				cfgFile + `:4:10 error: unknown harness "mybott" in config.toml (did you mean "mybot"?); ` + fmt.Sprintf(hint, "mybott"),
				`p.toml:5:11 error: unknown harness "cluade" (did you mean "claude"?); ` + fmt.Sprintf(hint, "cluade"),
				`p.toml:12:11 error: unknown harness "zzz"; ` + fmt.Sprintf(hint, "zzz"),
			},
		},
		{
			name:  "from the flag, with no position",
			src:   "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\n[[steps]]\nname = \"b\"\nprompt = \"p\"\n",
			cfg:   &config.Config{Harnesses: mybot},
			flags: Flags{Harness: "codx"},
			want:  []string{`:0:0 error: unknown harness "codx" given by --harness (did you mean "codex"?); ` + fmt.Sprintf(hint, "codx")},
		},
		{
			name: "custom and built-in harnesses are known",
			src:  "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"mybot\"\n[[steps]]\nname = \"b\"\nprompt = \"p\"\nharness = \"opencode\"\n",
			cfg:  &config.Config{Harnesses: mybot},
		},
		{
			name:  "an instruction judge on the flag's harness",
			src:   "version = 1\n[[steps]]\nname = \"a\"\ncommand = \"true\"\n[steps.validate]\ninstructions = [\"it works\"]\n",
			flags: Flags{Harness: "nobot"},
			want:  []string{`:0:0 error: unknown harness "nobot" given by --harness; use claude, codex, gemini or opencode, or define it under [harnesses.nobot] in config.toml`},
		},
	})
}

func TestUnknownEffort(t *testing.T) {
	t.Parallel()
	runEnvCases(t, RuleUnknownEffort, []envCase{
		{
			name: "on the step",
			src:  "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"gemini\"\neffort = \"high\"\n[[steps]]\nname = \"b\"\nprompt = \"p\"\nharness = \"codex\"\neffort = \"max\"\n",
			want: []string{`p.toml:6:10 error: harness "gemini" takes no effort; remove "effort"`},
		},
		{
			name: "an effort outside the enum is invalid-value's",
			src:  "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"codex\"\neffort = \"minimal\"\n",
		},
		{
			name: "from the config, dropped with a note once",
			src:  "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\n[[steps]]\nname = \"b\"\nprompt = \"p\"\n[[steps]]\nname = \"c\"\nprompt = \"p\"\nharness = \"claude\"\n",
			cfg:  &config.Config{File: cfgFile, Harness: cfgString("gemini", 1), Effort: cfgString("high", 3)},
			want: []string{cfgFile + `:3:10 note: effort "high" set in config.toml is not passed to harness "gemini", which takes no effort`},
		},
		{
			name:  "from the flag",
			src:   "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"gemini\"\n[[steps]]\nname = \"b\"\nprompt = \"p\"\n",
			flags: Flags{Effort: "low"},
			want:  []string{`:0:0 note: effort "low" given by --effort is not passed to harness "gemini", which takes no effort`},
		},
	})
}

func TestUnknownEffortDropsFromPlan(t *testing.T) {
	t.Parallel()
	p := mustTOML(t, "p.toml", "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"gemini\"\n")
	cfg := &config.Config{}
	plan, diags := Check(context.Background(), p, nil, &Env{Home: t.TempDir(), Config: cfg, Flags: Flags{Effort: "high"}})
	if plan == nil {
		t.Fatalf("no plan: %v", diags)
	}
	if e := plan.Stages[0][0].Actions[0].Effort; e.Value != "" || e.Source != ir.FromDefault {
		t.Errorf("effort %+v; want it dropped", e)
	}
}

func TestUnmappedTier(t *testing.T) {
	t.Parallel()
	hint := func(tier, h string) string {
		return fmt.Sprintf("add %s = \"MODEL\" under [models.%s] in config.toml", tier, h)
	}
	// Every built-in harness maps every tier; a custom one maps none of
	// its own.
	mybot := []config.Harness{{Name: "mybot", Command: cfgList(1, "mybot")}}
	runEnvCases(t, RuleUnmappedTier, []envCase{
		{
			name:  "built-in harnesses map every tier",
			src:   "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"codex\"\nmodel = \"balanced\"\n[[steps]]\nname = \"b\"\nprompt = \"p\"\nharness = \"gemini\"\nmodel = \"opus\"\n[[steps]]\nname = \"c\"\nprompt = \"p\"\nharness = \"opencode\"\nmodel = \"strongest\"\n[[steps]]\nname = \"d\"\ncommand = \"true\"\n[steps.validate]\ninstructions = [\"ok\"]\n",
			flags: Flags{Harness: "codex"},
		},
		{
			name: "on the step",
			src:  "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"mybot\"\nmodel = \"balanced\"\n[[steps]]\nname = \"b\"\nprompt = \"p\"\nharness = \"mybot\"\nmodel = \"opus\"\n[[steps]]\nname = \"c\"\nprompt = \"p\"\nmodel = \"opus\"\n",
			cfg:  &config.Config{Harnesses: mybot},
			want: []string{
				`p.toml:6:9 error: model tier "balanced" has no mapping for harness "mybot"; ` + hint("balanced", "mybot"),
				`p.toml:11:9 error: model "opus" (tier "strong") has no mapping for harness "mybot"; ` + hint("strong", "mybot"),
			},
		},
		{
			name: "mapped by the config",
			src:  "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"mybot\"\nmodel = \"balanced\"\n",
			cfg:  &config.Config{Harnesses: mybot, Models: []config.Models{cfgModels("mybot", 1, "balanced", "gpt-5")}},
		},
		{
			name: "from the config",
			src:  "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\n[[steps]]\nname = \"b\"\nprompt = \"p\"\nharness = \"opencode\"\n",
			cfg: &config.Config{File: cfgFile, Harnesses: mybot, Harness: cfgString("mybot", 1), Model: cfgString("strongest", 2),
				Models: []config.Models{cfgModels("opencode", 5, "default", "efficient")}},
			want: []string{
				cfgFile + `:2:10 error: model tier "strongest" in config.toml has no mapping for harness "mybot"; ` + hint("strongest", "mybot"),
			},
		},
		{
			name:  "from the flag",
			src:   "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"mybot\"\n[[steps]]\nname = \"b\"\nprompt = \"p\"\nharness = \"mybot\"\n",
			cfg:   &config.Config{Harnesses: mybot},
			flags: Flags{Model: "sonnet"},
			want:  []string{`:0:0 error: model "sonnet" (tier "balanced") given by --model has no mapping for harness "mybot"; ` + hint("balanced", "mybot")},
		},
		{
			name:  "a judge's model",
			src:   "version = 1\n[[steps]]\nname = \"a\"\ncommand = \"true\"\n[steps.validate]\ninstructions = [\"ok\"]\nmodel = \"strong\"\n[[steps]]\nname = \"b\"\ncommand = \"true\"\n[steps.validate]\ninstructions = [\"ok\"]\n[[steps]]\nname = \"c\"\ncommand = \"true\"\n[steps.validate]\nshells = [\"true\"]\n",
			cfg:   &config.Config{Harnesses: mybot},
			flags: Flags{Harness: "mybot"},
			want: []string{
				`p.toml:7:9 error: model tier "strong" has no mapping for harness "mybot"; ` + hint("strong", "mybot"),
				`p.toml:11:1 error: the instruction judge's default model tier "balanced" has no mapping for harness "mybot"; ` + hint("balanced", "mybot"),
			},
		},
	})
}

func TestLoosenedLimit(t *testing.T) {
	t.Parallel()
	steps := "[[steps]]\nname = \"a\"\ncommand = \"true\"\n"
	runEnvCases(t, RuleLoosenedLimit, []envCase{
		{
			name: "above the default",
			src:  "version = 1\n[limits]\nrepair_cap = 4\nself_merge = true\n" + steps,
			want: []string{
				`p.toml:3:14 error: repair_cap 4 is above the default repair cap 3; a process file may only lower it (raise repair_cap in config.toml instead)`,
				`p.toml:4:14 error: a process file may only forbid a self-merge: self_merge = false`,
			},
		},
		{
			name: "above the config",
			src:  "version = 1\n[limits]\nrepair_cap = 3\n" + steps,
			cfg:  &config.Config{File: cfgFile, RepairCap: ir.Field[int]{Value: 2, Set: true, Range: cfgAt(7)}},
			want: []string{`p.toml:3:14 error: repair_cap 3 is above the config's repair_cap 2; a process file may only lower it (the config's repair_cap ` + cfgFile + `:7:10)`},
		},
		{
			name: "tightening is fine",
			src:  "version = 1\n[limits]\nrepair_cap = 2\nself_merge = false\n" + steps,
			cfg:  &config.Config{RepairCap: ir.Field[int]{Value: 5, Set: true}},
		},
		{
			name:  "a flag does not excuse the file",
			src:   "version = 1\n[limits]\nrepair_cap = 5\n" + steps,
			flags: Flags{RepairCap: 1},
			want:  []string{`p.toml:3:14 error: repair_cap 5 is above the default repair cap 3; a process file may only lower it (raise repair_cap in config.toml instead)`},
		},
	})
}

// fakeHarnesses writes shell scripts as harness binaries in a folder, and
// returns it and an environment whose PATH is that folder alone. Each
// script appends its name and arguments to calls.log in the folder when
// run.
func fakeHarnesses(t *testing.T, scripts map[string]string) (dir string, environ []string) {
	t.Helper()
	dir = t.TempDir()
	for name, body := range scripts {
		writeTestFile(t, filepath.Join(dir, name), fmt.Sprintf("#!/bin/sh\necho %s \"$*\" >> %q\n%s\n", name, filepath.Join(dir, "calls.log"), body))
	}
	return dir, proc.MergeEnv(os.Environ(), []string{"PATH=" + dir}, nil)
}

func TestHarnessCannotStart(t *testing.T) {
	t.Parallel()
	dir, environ := fakeHarnesses(t, map[string]string{
		"claude": `echo "2.1.328 (Claude Code)"`,
		"codex":  `echo "error: config.toml is broken" >&2; exit 1`,
	})
	src := `version = 1
[[steps]]
name = "a"
prompt = "p"
[[steps]]
name = "b"
prompt = "p"
harness = "codex"
parallel = "g"
[[steps]]
name = "c"
prompt = "p"
harness = "gemini"
parallel = "g"
[[steps]]
name = "d"
prompt = "p"
harness = "codex"
`
	cfg := &config.Config{}
	env := &Env{Home: t.TempDir(), Config: cfg, Harnesses: harness.NewRegistry(cfg.CustomHarnesses()), Preflight: true, Environ: environ}
	for range 3 {
		_, diags := Check(context.Background(), mustTOML(t, "p.toml", src), nil, env)
		want := []string{
			`p.toml:8:11 error: harness "codex" cannot start: "codex --version" exited 1: error: config.toml is broken`,
			`p.toml:13:11 error: harness "gemini" cannot start: "gemini" not found on PATH`,
		}
		if got := ruleDiags(diags, RuleHarnessCannotStart); !slices.Equal(got, want) {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	calls, err := os.ReadFile(filepath.Join(dir, "calls.log"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	slices.Sort(lines)
	if want := []string{"claude --version", "claude auth status", "codex --version"}; !slices.Equal(lines, want) {
		t.Errorf("preflight commands run: %q; want %q, once each", lines, want)
	}

	// A default harness is reported at the first step that uses it; the
	// config's at the config.
	_, environ = fakeHarnesses(t, nil)
	for _, tc := range []struct {
		cfg  *config.Config
		want string
	}{
		{&config.Config{}, `p.toml:2:1 error: harness "claude" cannot start: "claude" not found on PATH`},
		{&config.Config{File: cfgFile, Harness: cfgString("claude", 1)}, cfgFile + `:1:10 error: harness "claude" cannot start: "claude" not found on PATH`},
	} {
		env := &Env{Home: t.TempDir(), Config: tc.cfg, Preflight: true, Environ: environ}
		_, diags := Check(context.Background(), mustTOML(t, "p.toml", "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\n"), nil, env)
		if got := ruleDiags(diags, RuleHarnessCannotStart); !slices.Equal(got, []string{tc.want}) {
			t.Errorf("got %q; want %q", got, tc.want)
		}
	}
}

// TestPreflightCancelled checks that Check's context reaches preflight: an
// interrupted check starts no harness, and says why.
func TestPreflightCancelled(t *testing.T) {
	t.Parallel()
	dir, environ := fakeHarnesses(t, map[string]string{"codex": `echo "codex-cli 0.40.0"`})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := &config.Config{}
	env := &Env{Home: t.TempDir(), Config: cfg, Harnesses: harness.NewRegistry(cfg.CustomHarnesses()), Preflight: true, Environ: environ}
	p := mustTOML(t, "p.toml", "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"codex\"\n")
	plan, diags := Check(ctx, p, nil, env)
	want := []string{`p.toml:5:11 error: harness "codex" cannot start: "codex --version": context canceled`}
	if got := ruleDiags(diags, RuleHarnessCannotStart); !slices.Equal(got, want) || plan != nil {
		t.Errorf("got %q (plan %v); want %q and no plan", got, plan != nil, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "calls.log")); !os.IsNotExist(err) {
		t.Errorf("a cancelled check ran the harness (calls.log: %v)", err)
	}
}

func TestNoPreflight(t *testing.T) {
	t.Parallel()
	_, environ := fakeHarnesses(t, nil)
	p := mustTOML(t, "p.toml", "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"codex\"\n")
	plan, diags := Check(context.Background(), p, nil, &Env{Home: t.TempDir(), Config: &config.Config{}, Environ: environ})
	if plan == nil {
		t.Fatalf("no plan: %v", diags)
	}
	want := []ir.HarnessStatus{{Name: "codex", Detail: "not checked (--no-preflight)"}}
	if !slices.Equal(plan.Harnesses, want) {
		t.Errorf("harnesses %+v; want %+v", plan.Harnesses, want)
	}
}

func TestEnvRulesPointIntoConfig(t *testing.T) {
	t.Parallel()
	const file = "/home/u/.cairn/config.toml"
	cfg, diags := config.Read(file, []byte(`harness = "gemini"
model = "balanced"
effort = "high"
repair_cap = 2

[models.mybot]
default = "strong"

[harnesses.mybot]
command = ["mybot"]
`))
	for _, d := range diags {
		t.Fatalf("config refused: %s: %s [%s]", d.Range, d.Message, d.Rule)
	}
	src := `version = 1
[limits]
repair_cap = 3
[[steps]]
name = "a"
prompt = "p"
[[steps]]
name = "b"
prompt = "p"
harness = "mybot"
`
	_, got := Check(context.Background(), mustTOML(t, "p.toml", src), nil, &Env{Home: t.TempDir(), Config: cfg, Harnesses: harness.NewRegistry(cfg.CustomHarnesses()).WithPrices(cfg.PriceOverrides())})
	var lines []string
	for _, rule := range []string{RuleLoosenedLimit, RuleUnknownEffort, RuleUnmappedTier} {
		lines = append(lines, ruleDiags(got, rule)...)
	}
	want := []string{
		`p.toml:3:14 error: repair_cap 3 is above the config's repair_cap 2; a process file may only lower it (the config's repair_cap ` + file + `:4:14)`,
		file + `:3:10 note: effort "high" set in config.toml is not passed to harness "gemini", which takes no effort`,
		file + `:7:11 error: model tier "strong" in config.toml has no mapping for harness "mybot"; add strong = "MODEL" under [models.mybot] in config.toml`,
	}
	if !slices.Equal(lines, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestHarnessNotLoggedIn(t *testing.T) {
	t.Parallel()
	_, environ := fakeHarnesses(t, map[string]string{
		"claude": `case "$1" in --version) echo "2.1.332 (Claude Code)";; auth) echo '{"loggedIn": false, "authMethod": "none"}'; exit 1;; esac`,
		"codex":  `case "$1" in --version) echo "codex-cli 0.171.0";; login) echo "Logged in using ChatGPT" >&2;; esac`,
		"mybot":  `echo 1.0`,
	})
	src := `version = 1
[[steps]]
name = "a"
prompt = "p"
[[steps]]
name = "b"
prompt = "p"
harness = "codex"
[[steps]]
name = "c"
prompt = "p"
harness = "mybot"
`
	cfg := &config.Config{Harnesses: []config.Harness{{Name: "mybot", Command: cfgList(1, "mybot")}}}
	for _, tc := range []struct {
		runtime bool
		want    string
	}{
		{false, `p.toml:2:1 warning: harness "claude" is not logged in: claude auth status: not logged in`},
		{true, `p.toml:2:1 error: harness "claude" is not logged in: claude auth status: not logged in`},
	} {
		env := &Env{Home: t.TempDir(), Config: cfg, Harnesses: harness.NewRegistry(cfg.CustomHarnesses()), Preflight: true, Runtime: tc.runtime, Environ: environ}
		plan, diags := Check(context.Background(), mustTOML(t, "p.toml", src), nil, env)
		if got := ruleDiags(diags, RuleHarnessNotLoggedIn); !slices.Equal(got, []string{tc.want}) {
			t.Errorf("runtime %v: got %q; want %q", tc.runtime, got, tc.want)
		}
		if (plan == nil) != tc.runtime {
			t.Errorf("runtime %v: plan %v; a warning keeps the plan, an error refuses it", tc.runtime, plan != nil)
		}
		if plan == nil {
			continue
		}
		var logged []string
		for _, h := range plan.Harnesses {
			v := "null"
			if h.LoggedIn != nil {
				v = fmt.Sprint(*h.LoggedIn)
			}
			logged = append(logged, h.Name+"="+v)
		}
		if want := []string{"claude=false", "codex=true", "mybot=null"}; !slices.Equal(logged, want) {
			t.Errorf("plan harnesses logged in %q; want %q", logged, want)
		}
	}
}
