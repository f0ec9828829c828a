package parse

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// cardSeed is the Procedures seed's process-pages card, condensed.
const cardSeed = `---
description: Classify and route saved pages
run-expiry: 60d
failed-run-expiry: never
steps:
  - id: intake
    description: Route saved pages
    precheck:
      shells:
        - |-
          count=$(ls inbox | wc -l)
          if [ "$count" -eq 0 ]; then exit $CHECK_SKIP; fi
      whys:
        - No saved pages to process
    run:
      shells:
        - make prepare
      agents:
        - prompt: >-
            Classify each page
            and route it.
          model: balanced
          max-turns: 30
      whys: ["Pages pile up"]
    validate:
      shells:
        - '[ -z "$(ls inbox)" ]'
      instructions:
        - |
          Every page is routed.
      severity: review
---
# Process pages

Anything here is the card's body.
`

// at formats a position as "line:col".
func at(p ir.Pos) string { return fmt.Sprintf("%d:%d", p.Line, p.Column) }

func TestCardSeed(t *testing.T) {
	p, diags := Card("process-pages.procedure.card", []byte(cardSeed))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %+v", diags)
	}
	if p.Name != "process-pages" || p.Format != ir.Card || !p.Commit.Set || !p.Commit.Value || p.DefaultWorktree.Set || p.Version.Set {
		t.Errorf("process %q: format %q, commit %+v, default worktree %+v", p.Name, p.Format, p.Commit, p.DefaultWorktree)
	}
	if p.Description.Value != "Classify and route saved pages" || at(p.Description.Range.Start) != "2:14" || at(p.Description.Key.Start) != "2:1" {
		t.Errorf("description %+v", p.Description)
	}
	if p.RunExpiry.Value != "60d" || p.FailedRunExpiry.Value != "never" || at(p.FailedRunExpiry.Range.Start) != "4:20" {
		t.Errorf("expiries %+v %+v", p.RunExpiry, p.FailedRunExpiry)
	}
	if len(p.Steps) != 1 {
		t.Fatalf("%d steps", len(p.Steps))
	}
	s := p.Steps[0]
	if s.Name.Value != "intake" || at(s.Name.Range.Start) != "6:9" || at(s.Header.Start) != "6:3" || at(s.Header.End) != "6:15" {
		t.Errorf("step name %+v, header %+v", s.Name, s.Header)
	}
	if len(s.Actions) != 2 {
		t.Fatalf("%d actions", len(s.Actions))
	}
	sh, ag := s.Actions[0], s.Actions[1]
	if sh.Kind != ir.Command || sh.Script.Value != "make prepare" || at(sh.Script.Range.Start) != "17:11" {
		t.Errorf("shell action %+v", sh)
	}
	if ag.Kind != ir.Session || ag.Keys().Prompt.Value != "Classify each page and route it." || at(ag.Range.Start) != "19:9" ||
		ag.Keys().Model.Value != "balanced" || ag.Keys().MaxTurns.Value != 30 || at(ag.Keys().MaxTurns.Range.Start) != "23:22" {
		t.Errorf("agent action %+v", ag)
	}
	if s.Run == nil || s.Run.Shells.Set || len(s.Run.Whys.Value) != 1 || at(s.Run.Header.Start) != "15:5" {
		t.Errorf("run phase %+v", s.Run)
	}
	script := s.Precheck.Shells.Value[0]
	if off := strings.Index(script.Value, "if"); at(ir.PosAt(script.Value, script.Spans, off)) != "12:11" {
		t.Errorf("precheck script %q: \"if\" at %s (spans %+v)", script.Value, at(ir.PosAt(script.Value, script.Spans, off)), script.Spans)
	}
	v := s.Validate
	if v.Severity.Value != "review" || at(v.Severity.Range.Start) != "31:17" || v.Shells.Value[0].Value != `[ -z "$(ls inbox)" ]` ||
		at(ir.PosAt(v.Shells.Value[0].Value, v.Shells.Value[0].Spans, 0)) != "27:12" || v.Keys().Instructions.Value[0].Value != "Every page is routed.\n" {
		t.Errorf("validate phase %+v", v)
	}
}

func TestCardAccess(t *testing.T) {
	src := "---\naccess: read\nsteps:\n  - id: a\n    run:\n      agents:\n        - prompt: x\n          access: full\n---\n"
	p, diags := Card("c.procedure.card", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %+v", diags)
	}
	if p.Access.Value != ir.AccessRead || at(p.Access.Key.Start) != "2:1" || at(p.Access.Range.Start) != "2:9" {
		t.Errorf("process access %+v", p.Access)
	}
	a := p.Steps[0].Actions[0]
	if a.Keys().Access.Value != ir.AccessFull || at(a.Keys().Access.Key.Start) != "8:11" || at(a.Keys().Access.Range.Start) != "8:19" {
		t.Errorf("agent access %+v", a.Keys().Access)
	}
}

func TestCardBudget(t *testing.T) {
	src := "---\nbudget-usd: 4.50\nsteps:\n  - id: a\n    run:\n      agents:\n        - prompt: x\n          budget-usd: 2\n        - prompt: y\n          budget-usd: $1\n        - prompt: z\n          budget-usd: .inf\n---\n"
	p, diags := Card("c.procedure.card", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %+v", diags)
	}
	if b := p.Limits.BudgetUSD; b.Value != (ir.Budget{USD: 4.5}) || at(b.Key.Start) != "2:1" || at(b.Range.Start) != "2:13" || at(b.Range.End) != "2:17" {
		t.Errorf("process budget %+v", b)
	}
	as := p.Steps[0].Actions
	if b := as[0].Keys().BudgetUSD; b.Value != (ir.Budget{USD: 2}) || at(b.Key.Start) != "8:11" || at(b.Range.Start) != "8:23" {
		t.Errorf("agent 1 budget %+v", b)
	}
	if b := as[1].Keys().BudgetUSD; b.Value != (ir.Budget{Quoted: true, Text: "$1"}) || at(b.Range.Start) != "10:23" || at(b.Range.End) != "10:25" {
		t.Errorf("agent 2 budget %+v", b)
	}
	if b := as[2].Keys().BudgetUSD; !math.IsInf(b.Value.USD, 1) || b.Bad {
		t.Errorf("agent 3 budget %+v", b)
	}
}

func TestCardRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // "line:col rule: message fragment"
	}{
		{"no front matter", "description: x\n", []string{"1:1 syntax: first line must be"}},
		{"unclosed", "---\ndescription: x\n", []string{"1:1 syntax: never closed"}},
		{"empty", "---\n---\n", nil},
		{"yaml syntax", "---\nsteps: [\n---\n", []string{"2:8 syntax: "}},
		{"unknown top key", "---\ndescripton: x\n---\n", []string{`2:1 unknown-key: did you mean "description"?`}},
		{"unknown step key", "---\nsteps:\n  - id: a\n    shell: x\n---\n", []string{`4:5 unknown-key: unknown key "shell" in step "a"`}},
		{"unknown agent key", "---\nsteps:\n  - id: a\n    run:\n      agents:\n        - prompt: x\n          max_turns: 3\n---\n",
			[]string{`7:11 unknown-key: did you mean "max-turns"?`}},
		{"wrong type", "---\ndescription: [a]\n---\n", []string{`2:14 type: "description" must be a string, not a list`}},
		{"steps not a list", "---\nsteps: 3\n---\n", []string{`2:8 type: "steps" must be a list of steps, not an integer`}},
		{"shell not a string", "---\nsteps:\n  - id: a\n    run:\n      shells:\n        - {a: b}\n---\n", []string{`6:11 type: items of "shells" must be strings`}},
		{"unknown agent key near access", "---\nsteps:\n  - id: a\n    run:\n      agents:\n        - prompt: x\n          acess: read\n---\n",
			[]string{`7:11 unknown-key: did you mean "access"?`}},
		{"access not a string", "---\naccess: [read]\n---\n", []string{`2:9 type: "access" must be a string, not a list`}},
		{"budget not a number", "---\nbudget-usd: [4]\nsteps:\n  - id: a\n    run:\n      agents:\n        - prompt: x\n          budget-usd: true\n          budget_usd: 1\n---\n",
			[]string{`2:13 type: "budget-usd" must be a number, not a list`, `8:23 type: "budget-usd" must be a number, not a boolean`, `9:11 unknown-key: did you mean "budget-usd"?`}},
		{"max-turns not an integer", "---\nsteps:\n  - id: a\n    run:\n      agents:\n        - prompt: x\n          max-turns: lots\n---\n",
			[]string{`7:22 type: "max-turns" must be an integer, not a string`}},
		{"agent without prompt", "---\nsteps:\n  - id: a\n    run:\n      agents:\n        - model: strong\n---\n", []string{`6:9 type: has no "prompt"`}},
		{"agents in validate", "---\nsteps:\n  - id: a\n    validate:\n      agents:\n        - prompt: x\n---\n",
			[]string{`5:7 unknown-key: agents run only in a step's run phase`}},
		{"duplicate key", "---\ndescription: a\ndescription: b\n---\n", []string{`3:1 duplicate: key "description" is already defined`}},
		{"duplicate id", "---\nsteps:\n  - id: a\n  - id: a\n---\n", []string{`4:9 duplicate: step "a" is already defined`}},
		{"anchor", "---\ndescription: &d x\n---\n", []string{"2:14 syntax: anchors or aliases"}},
		{"alias", "---\ndescription: &d x\nrun-expiry: *d\n---\n", []string{"2:14 syntax: anchors or aliases", "3:13 syntax: anchors or aliases"}},
		{"merge key", "---\nsteps:\n  - id: a\n    <<: {description: x}\n---\n", []string{"4:5 syntax: merge keys"}},
		{"tag", "---\ndescription: !!str x\n---\n", []string{"2:14 syntax: tags"}},
		{"front matter a list", "---\n- a\n---\n", []string{"2:1 type: the front matter must be a map of keys, not a list"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := Card("c.procedure.card", []byte(tc.src))
			if len(diags) != len(tc.want) {
				t.Fatalf("got %d diagnostics %+v; want %q", len(diags), diags, tc.want)
			}
			for i, d := range diags {
				want := tc.want[i]
				pos, rest, _ := strings.Cut(want, " ")
				rule, frag, _ := strings.Cut(rest, ": ")
				if at(d.Range.Start) != pos || d.Rule != rule || !strings.Contains(d.Message, frag) {
					t.Errorf("got %s %s: %s; want %s", at(d.Range.Start), d.Rule, d.Message, want)
				}
			}
		})
	}
}

func TestCardDuplicateRelated(t *testing.T) {
	_, diags := Card("c.procedure.card", []byte("---\nsteps:\n  - id: a\n  - id: a\n---\n"))
	if len(diags) != 1 || len(diags[0].Related) != 1 || at(diags[0].Related[0].Range.Start) != "3:9" {
		t.Fatalf("diagnostics %+v", diags)
	}
}
