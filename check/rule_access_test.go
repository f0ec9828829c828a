package check

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

func TestLintAccessValues(t *testing.T) {
	runLintCases(t, []lintCase{
		{name: "unknown access levels", src: src(`
version = 1
access = "admin"

[[steps]]
name = "hunt"
prompt = "p"
access = "wrte"
`), want: []string{"2:10 invalid-value", "7:10 invalid-value"}, msgs: []string{
			`invalid access "admin"; expected read, write or full`,
			`invalid access "wrte"; expected read, write or full (did you mean "write"?)`,
		}},
		{name: "access off a session step", src: src(`
version = 1

[[steps]]
name = "build"
command = "make"
access = "read"

[[steps]]
name = "deliver"
catalogue = "delivery"
access = "full"
`), want: []string{"6:1 misplaced-key", "11:1 misplaced-key"}, msgs: []string{
			`"access" does not apply to a command step (step "build"); only skill and prompt steps run an agent`,
			`"access" does not apply to a catalogue step (step "deliver"); only skill and prompt steps run an agent`,
		}},
	})
}

func TestLintFullAccessCheckout(t *testing.T) {
	runLintCases(t, []lintCase{
		{name: "a step's key, in its own checkout worktree", src: src(`
version = 1

[worktrees.mine]
kind = "checkout"

[[steps]]
name = "fix"
prompt = "p"
access = "full"
worktree = "mine"
`), want: []string{"9:10 full-access-checkout warning"}, msgs: []string{
			`access "full" leaves the agent of step "fix" unrestricted in checkout worktree "mine", your own working tree: it can touch your own files; use "write", or a throwaway worktree`,
		}},
		{name: "the process's key, through default_worktree, once for its steps", src: src(`
version = 1
default_worktree = "mine"
access = "full"

[worktrees.mine]
kind = "checkout"

[worktrees.scratch]
kind = "throwaway"

[[steps]]
name = "a"
prompt = "p"

[[steps]]
name = "b"
skill = "s"

[[steps]]
name = "asks-less"
prompt = "p"
access = "write"

[[steps]]
name = "elsewhere"
prompt = "p"
worktree = "scratch"

[[steps]]
name = "build"
command = "make"
`), want: []string{"3:10 full-access-checkout warning"}, msgs: []string{
			`access "full" leaves the agents of step "a" and step "b" unrestricted in checkout worktree "mine", your own working tree: it can touch your own files; use "write", or a throwaway worktree`,
		}},
		{name: "full in a throwaway worktree, and write in a checkout", src: src(`
version = 1
access = "full"

[worktrees.mine]
kind = "checkout"

[[steps]]
name = "a"
prompt = "p"

[[steps]]
name = "b"
prompt = "p"
worktree = "mine"
access = "write"
`)},
	})
}

// TestFullAccessCheckoutCard warns about a card's agent: a card's steps run
// in the checkout.
func TestFullAccessCheckoutCard(t *testing.T) {
	src := "---\nsteps:\n  - id: a\n    run:\n      agents:\n        - prompt: x\n          access: full\n        - prompt: y\n---\n"
	p, fe := parse.Card("c.procedure.card", []byte(src))
	if len(fe) > 0 {
		t.Fatalf("front-end: %+v", fe)
	}
	_, diags := Check(context.Background(), p, fe, &Env{Lint: true, Config: &config.Config{}})
	got, msgs := render(diags)
	want := `7:19 full-access-checkout warning: access "full" leaves the agent of step "a" unrestricted in the checkout, your own working tree: it can touch your own files; use "write", or a throwaway worktree`
	if len(got) != 1 || got[0]+": "+msgs[0] != want {
		t.Errorf("got %q %q; want %s", got, msgs, want)
	}
}

// TestFullAccessCheckoutLowered leaves alone a session that the config or
// --access keeps from running with full access.
func TestFullAccessCheckoutLowered(t *testing.T) {
	src := "version = 1\ndefault_worktree = \"mine\"\naccess = \"full\"\n[worktrees.mine]\nkind = \"checkout\"\n[[steps]]\nname = \"a\"\nprompt = \"p\"\n"
	warned := `p.toml:3:10 warning: access "full" leaves the agent of step "a" unrestricted in checkout worktree "mine", your own working tree: it can touch your own files; use "write", or a throwaway worktree`
	runEnvCases(t, RuleFullAccessCheckout, []envCase{
		{name: "full", src: src, want: []string{warned}},
		{name: "a flag full", src: src, flags: Flags{Access: ir.AccessFull}, want: []string{warned}},
		{name: "lowered by the flag", src: src, flags: Flags{Access: ir.AccessWrite}},
	})
}

func TestLoosenedAccess(t *testing.T) {
	cfg := func(v string) *config.Config {
		return &config.Config{File: cfgFile, Limits: config.Limits{Access: cfgString(v, 4)}}
	}
	src := src(`
version = 1
access = "full"

[[steps]]
name = "a"
prompt = "p"
access = "write"

[[steps]]
name = "b"
prompt = "p"

[[steps]]
name = "c"
command = "make"
access = "full"
`)
	related := " (the config's [limits] access " + cfgFile + ":4:10)"
	runEnvCases(t, RuleLoosenedLimit, []envCase{
		{name: "no ceiling", src: src},
		{name: "a ceiling of full", src: src, cfg: cfg("full")},
		{
			name: "a ceiling of write refuses the process's full",
			src:  src,
			cfg:  cfg("write"),
			want: []string{`p.toml:2:10 error: access "full" is above the config's [limits] access "write"; a process file may only ask for less` + related},
		},
		{
			name: "a ceiling of read refuses every key above it",
			src:  src,
			cfg:  cfg("read"),
			want: []string{
				`p.toml:2:10 error: access "full" is above the config's [limits] access "read"; a process file may only ask for less` + related,
				`p.toml:7:10 error: access "write" is above the config's [limits] access "read"; a process file may only ask for less` + related,
			},
		},
		{
			name:  "a flag does not excuse the file",
			src:   src,
			cfg:   cfg("write"),
			flags: Flags{Access: ir.AccessRead},
			want:  []string{`p.toml:2:10 error: access "full" is above the config's [limits] access "write"; a process file may only ask for less` + related},
		},
		{
			name: "several actions of one step are refused once",
			src:  "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nskill = \"s\"\naccess = \"full\"\n",
			cfg:  cfg("read"),
			want: []string{`p.toml:6:10 error: access "full" is above the config's [limits] access "read"; a process file may only ask for less` + related},
		},
	})
}

// TestAccessInPlan holds the plan's access: each session's, its judge's
// and the repair session's, with their sources.
func TestAccessInPlan(t *testing.T) {
	src := src(`
version = 1
access = "read"

[worktrees.b]
kind = "issue-branch"

[[steps]]
name = "fix"
prompt = "p"
access = "write"
worktree = "b"

[steps.validate]
instructions = ["it is fixed"]

[[steps]]
name = "look"
prompt = "p"

[[steps]]
name = "deliver"
catalogue = "delivery"
worktree = "b"
`)
	p := mustTOML(t, "p.toml", src)
	plan, diags := Check(context.Background(), p, nil, &Env{Config: &config.Config{}, Flags: Flags{Issue: &ir.Issue{Number: 1}}})
	if plan == nil {
		t.Fatalf("no plan: %+v", diags)
	}
	fix, look := plan.Stages[0][0], plan.Stages[1][0]
	var got []string
	for _, s := range []*ir.Setting{fix.Actions[0].Access, fix.Validate.Access, look.Actions[0].Access, plan.Repair.Access} {
		got = append(got, s.Value+"/"+string(s.Source))
	}
	if want := "write/step read/default read/process write/default"; strings.Join(got, " ") != want {
		t.Errorf("access %q; want %s", got, want)
	}
	if plan.Stages[2][0].Actions[0].Access != nil {
		t.Errorf("a catalogue action has an access: %+v", plan.Stages[2][0].Actions[0].Access)
	}
}
