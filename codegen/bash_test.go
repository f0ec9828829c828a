package codegen

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/step/prompts"
)

// TestBashQuoteLocale holds every quoted string to expanding to itself in
// bash, in the C locale as in a UTF-8 one: non-printable characters above
// ASCII must not be written as \u escapes, which only a UTF-8 locale
// expands.
func TestBashQuoteLocale(t *testing.T) {
	values := []string{"", "plain", "it's", "$(x) `y` ${z}", "a\nb\tc\r", "\u202e rtl \u00a0 nbsp \U0001F600", "\x01\x7f\x1b", `\u202e stays`, "é中\\U0001F600", "-e", "--"}
	for _, locale := range []string{"C", "C.UTF-8"} {
		for _, v := range values {
			q, err := BashQuote(v)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", "-c", "printf %s "+q)
			cmd.Env = append(os.Environ(), "LC_ALL="+locale)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("bash -c %q: %v", "printf %s "+q, err)
			}
			if string(out) != v {
				t.Errorf("LC_ALL=%s: %s expands to %q; want %q", locale, q, out, v)
			}
		}
	}
	if _, err := BashQuote("a\x00b"); err == nil {
		t.Error("a NUL byte was quoted")
	}
}

// TestCustomHarnessThatChangesValues refuses a custom harness whose command
// does more with a value known only at run time than insert it, at the
// step's harness key.
func TestCustomHarnessThatChangesValues(t *testing.T) {
	custom := []ir.CustomHarness{
		{Name: "clip", Command: []string{"clip", `--dir={{printf "%.4s" .Worktree}}`}},
		{Name: "count", Command: []string{"count", `--len={{len .Worktree}}`}},
		{Name: "fine", Command: []string{"fine", `{{if .Model}}--model={{.Model}}{{end}}`, "--dir={{.Worktree}}"}},
	}
	for _, tc := range []struct {
		harness string
		refused bool
	}{{"clip", true}, {"count", true}, {"fine", false}} {
		plan := &ir.Plan{
			Process: "p", File: "p.toml",
			Worktrees: []ir.PlanWorktree{{Name: "default", Kind: ir.Throwaway, Implicit: true}},
			Stages: [][]ir.PlanStep{{{
				Name: "ask", Worktree: "default",
				Actions: []ir.PlanAction{{Kind: ir.Session, Prompt: "Hi.", Harness: &ir.Setting{Value: tc.harness}}},
			}}},
			CustomHarnesses: custom,
		}
		script, diags := Bash(plan, Inputs{})
		if got := ir.HasErrors(diags); got != tc.refused {
			t.Errorf("harness %s: refused %v (%v); want %v", tc.harness, got, diags, tc.refused)
			continue
		}
		if tc.refused {
			if diags[0].Rule != "not-compilable" || !strings.Contains(diags[0].Message, "cannot be compiled") {
				t.Errorf("harness %s: %+v", tc.harness, diags[0])
			}
			continue
		}
		if !strings.Contains(string(script), `'fine' '--dir='"${step_dir}"`) {
			t.Errorf("harness fine: the script does not start it with its worktree:\n%s", script)
		}
	}
}

// TestSessionPromptComposes checks that the prompt the script composes from
// its parts is the prompt prompts.SessionPrompt renders, for no to five
// earlier results, with and without a directive, a skill and an inline
// prompt, and that sessions alike but for their names, skills and inline
// prompts compose theirs from the same parts.
func TestSessionPromptComposes(t *testing.T) {
	type session struct{ step, process, skill, prompt string }
	var parts []promptWords
	for _, skill := range []bool{false, true} {
		for _, inline := range []bool{false, true} {
			if !skill && !inline {
				continue
			}
			for i, sess := range []session{{"ask", "p", "s", "Do it."}, {"other", "q", "t", "  Do it otherwise.\n"}} {
				d := prompts.SessionData{Process: sess.process, Step: sess.step, WorktreeKind: ir.Throwaway}
				if skill {
					d.Skill = sess.skill
				}
				if inline {
					d.Prompt = sess.prompt
				}
				w, err := sessionPrompt(d, skill)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					parts = append(parts, w)
				} else if !reflect.DeepEqual(w, parts[len(parts)-1]) {
					t.Errorf("skill %v, inline prompt %v: step %q's prompt has other parts than step \"ask\"'s", skill, inline, sess.step)
				}
				for _, dir := range []bool{false, true} {
					vals := map[string]string{
						varWorktree: "/w/t", varResult: "/r/ask.md", varSkill: "/w/t/.cairn/skills/s/SKILL.md", varDirective: "Be brief.",
						varDate: "2026-01-02", varStep: sess.step, varProcess: sess.process, varPrompt: strings.TrimSpace(sess.prompt), varSkillName: sess.skill,
					}
					expand := func(w BashWord) string {
						var b strings.Builder
						for _, p := range w {
							if p.Var != "" {
								v, ok := vals[p.Var]
								if !ok {
									t.Fatalf("the prompt's parts read $%s, which the script does not set", p.Var)
								}
								b.WriteString(v)
							} else {
								b.WriteString(p.Text)
							}
						}
						return b.String()
					}
					vals[varDirectivePart] = ""
					if dir {
						vals[varDirectivePart] = expand(w.Directive)
					}
					for n := 0; n <= 5; n++ {
						want := d
						want.WorktreePath, want.ResultFile, want.Date = vals[varWorktree], vals[varResult], vals[varDate]
						if skill {
							want.SkillPath = vals[varSkill]
						}
						if dir {
							want.Directive = vals[varDirective]
						}
						got := expand(w.Intro)
						if n > 0 {
							got += expand(w.Head)
						}
						for i := range n {
							step := "s" + string(rune('a'+i))
							path := "/run/results/" + step + ".md"
							want.Earlier = append(want.Earlier, prompts.EarlierResult{Step: step, Path: path})
							if i > 0 {
								got += expand(w.Join)
							}
							got += step + expand(w.Mid) + path
						}
						if n > 0 {
							got += expand(w.Tail)
						}
						got += expand(w.Outro)
						wantText, err := prompts.SessionPrompt(want)
						if err != nil {
							t.Fatal(err)
						}
						if got != wantText {
							t.Errorf("skill %v, directive %v, %d earlier: composed\n%s\nwant\n%s", skill, dir, n, got, wantText)
						}
					}
				}
			}
		}
	}
}

// TestExpiryMicros reads run_expiry as cairn run does: "never" stays, a
// duration in microseconds, the default for what is not one.
func TestExpiryMicros(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"never", "never"},
		{"30d", "2592000000000"},
		{"1h30m", "5400000000"},
		{"", "7776000000000"},
		{"soon", "7776000000000"},
	} {
		if got := expiryMicros(tc.in, "90d"); got != tc.want {
			t.Errorf("expiryMicros(%q, \"90d\") = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestRecordFile names a process file in the repository by its path there,
// and one outside it, or with no repository, by its absolute path.
func TestRecordFile(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	for _, tc := range []struct{ file, root, want string }{
		{filepath.Join(root, "ci", "review.toml"), root, "ci/review.toml"},
		{filepath.Join(root, "review.toml"), root, "review.toml"},
		{filepath.Join(outside, "review.toml"), root, filepath.Join(outside, "review.toml")},
		{filepath.Join(root, "review.toml"), "", filepath.Join(root, "review.toml")},
	} {
		if err := os.MkdirAll(filepath.Dir(tc.file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tc.file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := recordFile(tc.file, tc.root); got != tc.want {
			t.Errorf("recordFile(%q, %q) = %q; want %q", tc.file, tc.root, got, tc.want)
		}
	}
}

// TestHarnessCommandBudget: a session's command given a budget comes from
// harness.Command like the rest: claude's ends with --max-budget-usd and
// the script's $budget_left; a CLI that takes no budget has none.
func TestHarnessCommandBudget(t *testing.T) {
	reg := harness.NewRegistry([]ir.CustomHarness{{Name: "mybot", Command: []string{"mybot", "--dir={{.Worktree}}"}}})
	for _, tc := range []struct {
		harness string
		want    []BashWord
	}{
		{"claude", []BashWord{{{Text: "--max-budget-usd"}}, {{Var: varBudget}}}},
		{"codex", nil},
		{"gemini", nil},
		{"opencode", nil},
		{"mybot", nil},
	} {
		h, _ := reg.Lookup(tc.harness)
		cmd, budgeted, err := harnessCommand(h, harness.Invocation{Model: "m", MaxTurns: 5})
		if err != nil {
			t.Fatalf("%s: %v", tc.harness, err)
		}
		if tc.want == nil {
			if budgeted != nil {
				t.Errorf("%s: a command given a budget %v; its CLI takes none", tc.harness, budgeted.Argv)
			}
			continue
		}
		if budgeted == nil {
			t.Errorf("%s: no command given a budget", tc.harness)
			continue
		}
		want := append(slices.Clone(cmd.Argv), tc.want...)
		if !sameWords(budgeted.Argv, want) || !sameWords(budgeted.Env, cmd.Env) {
			t.Errorf("%s: given a budget %v (env %v); want %v (env %v)", tc.harness, budgeted.Argv, budgeted.Env, want, cmd.Env)
		}
	}
}

// TestBudgetsCompile: the bash target keeps the run's and the steps'
// budgets rather than refusing them, and so does the github-actions
// target, which keeps them across its jobs.
func TestBudgetsCompile(t *testing.T) {
	step := ir.Range{Start: ir.Pos{Line: 9, Column: 1}, End: ir.Pos{Line: 9, Column: 11}}
	plan := &ir.Plan{
		Process: "p", File: "p.toml",
		Limits:    ir.PlanLimits{BudgetUSD: &ir.FloatSetting{Value: 4, Source: ir.FromFile}},
		Worktrees: []ir.PlanWorktree{{Name: "default", Kind: ir.Throwaway, Implicit: true}},
		Stages: [][]ir.PlanStep{{{
			Name: "ask", Worktree: "default",
			Actions: []ir.PlanAction{{Kind: ir.Session, Prompt: "Hi.", Harness: &ir.Setting{Value: "claude"}, BudgetUSD: &ir.FloatSetting{Value: 1.5, Source: ir.FromStep}}},
		}}},
	}
	script, diags := Bash(plan, Inputs{})
	if len(diags) > 0 {
		t.Fatalf("Bash: %v", diags)
	}
	for _, want := range []string{
		"# The run's budget: $4.00, from the process file's [limits] budget_usd; --budget may lower it.\n",
		"\nrun_budget='4'\n",
		"\nstep_budgets=('1.5' )\n",
		`'--max-budget-usd' "${budget_left}"`,
	} {
		if !strings.Contains(string(script), want) {
			t.Errorf("the script lacks %q", want)
		}
	}
	process := &ir.Process{Steps: []ir.Step{{Name: ir.Field[string]{Value: "ask", Set: true}, Actions: []ir.Action{{}}}}}
	process.Limits.BudgetUSD = ir.Field[ir.Budget]{Value: ir.Budget{USD: 4}, Set: true}
	process.Steps[0].Actions[0].Fill().BudgetUSD = ir.Field[ir.Budget]{Value: ir.Budget{USD: 1.5}, Set: true}
	process.Steps[0].Actions[0].Fill().BudgetUSD.Range = step
	c := &compiler{plan: plan, at: newPlaces(plan, process), target: actionsInfo}
	if diags := c.refuse(); len(diags) > 0 {
		t.Errorf("github-actions refuses %v; want the budgets kept", diags)
	}
}
