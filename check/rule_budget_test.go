package check

import (
	"context"
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// cfgBudget is the config's [limits] budget_usd, usd, on line n.
func cfgBudget(usd float64, n int32) *config.Config {
	f := ir.Field[ir.Budget]{Value: ir.Budget{USD: usd}, Set: true, Key: ir.Range{File: cfgFile, Start: ir.Pos{Line: n, Column: 1}}, Range: cfgAt(n)}
	return &config.Config{File: cfgFile, Limits: config.Limits{BudgetUSD: f}}
}

func TestResolveBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		file  string // the file's budget_usd, when set
		cfg   *config.Config
		flags Flags
		want  string // value/source@line:column, or none
	}{
		{name: "none", cfg: &config.Config{}, want: "none"},
		{name: "the config's", cfg: cfgBudget(4, 9), want: "4/config@9:1"},
		{name: "the file's", file: "2.5", cfg: &config.Config{}, want: "2.5/file@3:1"},
		{name: "the flag's", cfg: &config.Config{}, flags: Flags{Budget: 1.5}, want: "1.5/flag@-"},
		{name: "the file lowers the config's", file: "2.5", cfg: cfgBudget(4, 9), want: "2.5/file@3:1"},
		{name: "the file above the config's loses", file: "10", cfg: cfgBudget(4, 9), want: "4/config@9:1"},
		{name: "the file equal to the config's names it", file: "4", cfg: cfgBudget(4, 9), want: "4/file@3:1"},
		{name: "a tighter flag wins", file: "2.5", cfg: cfgBudget(4, 9), flags: Flags{Budget: 1}, want: "1/flag@-"},
		{name: "a looser flag loses", file: "2.5", cfg: cfgBudget(4, 9), flags: Flags{Budget: 3}, want: "2.5/file@3:1"},
		{name: "a looser flag than the config's loses", cfg: cfgBudget(4, 9), flags: Flags{Budget: 5}, want: "4/config@9:1"},
		{name: "a file budget that is none is no budget", file: "-1", cfg: cfgBudget(4, 9), want: "4/config@9:1"},
		{name: "a quoted file budget is no budget", file: `"2"`, cfg: &config.Config{}, want: "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "version = 1\n[limits]\n"
			if tc.file != "" {
				src += "budget_usd = " + tc.file + "\n"
			}
			src += "[[steps]]\nname = \"s\"\nprompt = \"p\"\nbudget_usd = 0.5\n"
			p := mustTOML(t, "p.toml", src)
			res := Resolve(context.Background(), p, &Env{Config: tc.cfg, Flags: tc.flags})
			got := "none"
			if b := res.Limits.BudgetUSD; b != nil {
				at := "-"
				if r := res.Limits.BudgetAt; r.IsValid() {
					at = fmt.Sprintf("%d:%d", r.Start.Line, r.Start.Column)
				}
				got = fmt.Sprintf("%v/%s@%s", b.Value, b.Source, at)
			}
			if got != tc.want {
				t.Errorf("run budget %s; want %s", got, tc.want)
			}
			// A step's budget is its own, whatever the run's.
			if b := res.Steps[0].Actions[0].Budget; b == nil || *b != (ir.FloatSetting{Value: 0.5, Source: ir.FromStep}) {
				t.Errorf("step budget %+v; want 0.5/step", b)
			}
		})
	}
}

func TestLintBudgetValues(t *testing.T) {
	t.Parallel()
	runLintCases(t, []lintCase{
		{name: "budgets that are none", src: src(`
version = 1

[limits]
budget_usd = -1

[[steps]]
name = "a"
prompt = "p"
budget_usd = 0

[[steps]]
name = "b"
prompt = "p"
budget_usd = "abc"

[[steps]]
name = "c"
prompt = "p"
budget_usd = nan
`), want: []string{"4:14 invalid-value", "9:14 invalid-value", "14:14 invalid-value", "19:14 invalid-value"}, msgs: []string{
			`invalid budget_usd -1; a budget must be more than 0`,
			`invalid budget_usd 0; a budget must be more than 0`,
			`invalid budget_usd "abc"; write a number of US dollars, without quotes, such as 4.50`,
			`invalid budget_usd NaN; write a number of US dollars, such as 4.50`,
		}},
		{name: "a budget off a session step", src: src(`
version = 1

[[steps]]
name = "build"
command = "make"
budget_usd = 1

[[steps]]
name = "deliver"
catalogue = "delivery"
budget_usd = "abc"
`), want: []string{"6:1 misplaced-key", "11:1 misplaced-key"}, msgs: []string{
			`"budget_usd" does not apply to a command step (step "build"); only skill and prompt steps run an agent`,
			`"budget_usd" does not apply to a catalogue step (step "deliver"); only skill and prompt steps run an agent`,
		}},
		{name: "good budgets", src: src(`
version = 1

[limits]
budget_usd = 4

[[steps]]
name = "a"
prompt = "p"
budget_usd = 0.25
`)},
	})
}

// TestLintBudgetCard refuses a card's budgets in its own spelling.
func TestLintBudgetCard(t *testing.T) {
	t.Parallel()
	src := "---\nbudget-usd: -2\nsteps:\n  - id: a\n    run:\n      agents:\n        - prompt: x\n          budget-usd: $1\n---\n"
	p, fe := parse.Card("c.procedure.card", []byte(src))
	if len(fe) > 0 {
		t.Fatalf("front-end: %+v", fe)
	}
	_, diags := Check(context.Background(), p, fe, &Env{Lint: true, Config: &config.Config{}})
	got, msgs := render(diags)
	want := []string{
		`2:13 invalid-value: invalid budget-usd -2; a budget must be more than 0`,
		`8:23 invalid-value: invalid budget-usd "$1"; write a number of US dollars, without quotes, such as 4.50`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %q %q; want %q", got, msgs, want)
	}
	for i := range want {
		if got[i]+": "+msgs[i] != want[i] {
			t.Errorf("got %s: %s; want %s", got[i], msgs[i], want[i])
		}
	}
}

func TestLoosenedBudget(t *testing.T) {
	t.Parallel()
	src := src(`
version = 1

[limits]
budget_usd = 10

[[steps]]
name = "a"
prompt = "p"
budget_usd = 20
`)
	related := " (the config's [limits] budget_usd " + cfgFile + ":9:10)"
	runEnvCases(t, RuleLoosenedLimit, []envCase{
		{name: "no ceiling", src: src},
		{name: "a ceiling above", src: src, cfg: cfgBudget(12, 9)},
		{name: "a ceiling equal", src: src, cfg: cfgBudget(10, 9)},
		{
			name: "a ceiling below refuses the file's, not the step's",
			src:  src,
			cfg:  cfgBudget(4, 9),
			want: []string{`p.toml:4:14 error: budget_usd $10.00 is above the config's [limits] budget_usd $4.00; a process file may only lower it` + related},
		},
		{
			name:  "a flag does not excuse the file",
			src:   src,
			cfg:   cfgBudget(4, 9),
			flags: Flags{Budget: 1},
			want:  []string{`p.toml:4:14 error: budget_usd $10.00 is above the config's [limits] budget_usd $4.00; a process file may only lower it` + related},
		},
	})
}

func TestBudgetUnmeasured(t *testing.T) {
	t.Parallel()
	const tail = "; only claude and opencode report it; name a model cairn has a price for, or add its price to the config's [prices]"
	rate := func(usd float64) ir.Field[float64] { return ir.Field[float64]{Value: usd, Set: true} }
	priced := &config.Config{File: cfgFile, Prices: []config.Price{{Model: ir.Field[string]{Value: "my-model", Set: true}, Input: rate(1), Output: rate(2)}}}
	mybot := []config.Harness{{Name: "mybot", Command: cfgList(1, "mybot")}}
	sessions := src(`
version = 1

[[steps]]
name = "on-claude"
prompt = "p"
harness = "claude"

[[steps]]
name = "on-codex"
prompt = "p"
harness = "codex"
budget_usd = 1

[[steps]]
name = "on-opencode"
prompt = "p"
harness = "opencode"
budget_usd = 2
`)
	runEnvCases(t, RuleBudgetUnmeasured, []envCase{
		{
			name: "no run budget: the step's alone",
			src:  sessions,
			want: []string{`p.toml:12:1 warning: budget_usd $1.00 cannot count the sessions of step "on-codex": codex reports no cost, so the step may spend more` + tail},
		},
		{
			name: "the file's run budget",
			src:  "version = 1\n[limits]\nbudget_usd = 3\n" + sessions[len("version = 1\n"):],
			want: []string{
				`p.toml:3:1 warning: budget_usd $3.00 cannot count the sessions of step "on-codex": codex reports no cost, so the run may spend more` + tail,
				`p.toml:14:1 warning: budget_usd $1.00 cannot count the sessions of step "on-codex": codex reports no cost, so the step may spend more` + tail,
			},
		},
		{
			name: "the config's run budget points into the config",
			src:  "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"gemini\"\n",
			cfg:  cfgBudget(4, 9),
			want: []string{cfgFile + `:9:1 warning: the config's [limits] budget_usd $4.00 cannot count the sessions of step "a": gemini reports no cost, so the run may spend more` + tail},
		},
		{
			name:  "--budget has no position",
			src:   "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"gemini\"\n",
			flags: Flags{Budget: 0.5},
			want:  []string{`:0:0 warning: --budget $0.50 cannot count the sessions of step "a": gemini reports no cost, so the run may spend more` + tail},
		},
		{
			name: "a custom harness, a judge and a delivery's repair sessions",
			src: src(`
version = 1

[limits]
budget_usd = 3

[worktrees.fix]
kind = "issue-branch"

[[steps]]
name = "fix"
prompt = "p"
harness = "mybot"
worktree = "fix"

[steps.validate]
instructions = ["it works"]

[[steps]]
name = "deliver"
catalogue = "delivery"
worktree = "fix"
`),
			cfg: &config.Config{Harnesses: mybot, Harness: cfgString("codex", 2), Models: []config.Models{cfgModels("codex", 3, "balanced", "gpt-5")}},
			want: []string{
				// The judge runs on codex's balanced model, gpt-5,
				// which cairn has a price for; the repair session on
				// codex's own model, which it has none for.
				`p.toml:4:1 warning: budget_usd $3.00 cannot count the sessions of step "fix" (mybot) and step "deliver" (codex): mybot and codex report no cost, so the run may spend more` + tail,
			},
		},
		{
			name: "a model cairn has a price for, by name or tier",
			src:  "version = 1\n[limits]\nbudget_usd = 3\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"codex\"\nmodel = \"gpt-5-codex\"\n[[steps]]\nname = \"b\"\nprompt = \"p\"\nharness = \"gemini\"\nmodel = \"balanced\"\n",
		},
		{
			name: "a model it has none for",
			src:  "version = 1\n[limits]\nbudget_usd = 3\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"codex\"\nmodel = \"my-model\"\n",
			want: []string{`p.toml:3:1 warning: budget_usd $3.00 cannot count the sessions of step "a": codex reports no cost, so the run may spend more` + tail},
		},
		{
			name: "the config's [prices] adds it",
			src:  "version = 1\n[limits]\nbudget_usd = 3\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"codex\"\nmodel = \"my-model\"\n",
			cfg:  priced,
		},
		{
			name: "only harnesses that report cost",
			src:  "version = 1\n[limits]\nbudget_usd = 3\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nbudget_usd = 1\n[[steps]]\nname = \"b\"\nprompt = \"p\"\nharness = \"opencode\"\n",
		},
		{
			name: "an unknown harness is unknown-harness's",
			src:  "version = 1\n[limits]\nbudget_usd = 3\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nharness = \"nobody\"\nbudget_usd = 1\n",
		},
		{
			name: "a budget on a command step is misplaced-key's",
			src:  "version = 1\n[[steps]]\nname = \"a\"\ncommand = \"make\"\nbudget_usd = 1\n",
		},
	})
}

// TestBudgetInPlan holds the plan's budgets: the run's with its source,
// and each session's step budget; none on other actions.
func TestBudgetInPlan(t *testing.T) {
	t.Parallel()
	src := src(`
version = 1

[limits]
budget_usd = 2.5

[[steps]]
name = "a"
prompt = "p"
budget_usd = 0.75

[[steps]]
name = "b"
prompt = "p"

[[steps]]
name = "c"
command = "make"
`)
	p := mustTOML(t, "p.toml", src)
	plan, diags := Check(context.Background(), p, nil, &Env{Config: cfgBudget(4, 9)})
	if plan == nil {
		t.Fatalf("no plan: %+v", diags)
	}
	if b := plan.Limits.BudgetUSD; b == nil || *b != (ir.FloatSetting{Value: 2.5, Source: ir.FromFile}) {
		t.Errorf("run budget %+v; want 2.5 from the file", b)
	}
	if r := plan.Limits.BudgetAt; r.File != "p.toml" || r.Start.Line != 4 || r.Start.Column != 1 {
		t.Errorf("run budget at %v; want p.toml:4:1", r)
	}
	if b := plan.Stages[0][0].Actions[0].BudgetUSD; b == nil || *b != (ir.FloatSetting{Value: 0.75, Source: ir.FromStep}) {
		t.Errorf("step a's budget %+v; want 0.75 from the step", b)
	}
	for _, i := range []int{1, 2} {
		if b := plan.Stages[i][0].Actions[0].BudgetUSD; b != nil {
			t.Errorf("step %d has a budget %+v", i+1, b)
		}
	}
	plan, _ = Check(context.Background(), mustTOML(t, "p.toml", "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\n"), nil, &Env{Config: &config.Config{}})
	if plan.Limits.BudgetUSD != nil {
		t.Errorf("a plan with no budget has %+v", plan.Limits.BudgetUSD)
	}
}
