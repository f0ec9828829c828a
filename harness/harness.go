// Package harness holds the agent-CLI adapters of docs/design.md §8: one Adapter per
// built-in CLI (its argv, login probe, and the jq of jq/ its output is read
// with, by cairn run in-process and by the bash target alike), the custom
// one of the config, the registry of both, and their preflight.
package harness

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// Invocation is one agent session as a harness starts it: the prompt (on
// the CLI's standard input), the resolved model and effort (empty: the CLI's own choice), the turn cap, the
// worktree the session runs in, and the file a harness that writes its final
// message to a file (codex) writes it to. Effort is cairn's effort (low to
// max); Command maps it onto the CLI's value. Access is the session's access
// level, ir.AccessRead, ir.AccessWrite or ir.AccessFull (empty: the default,
// write): what the agent may do. Resume is the CLI's id of an earlier
// session to continue (SessionEnd reads it), for a harness that CanResume;
// empty starts a fresh session. FilesDir is a private folder of the
// session's, outside the worktree and the user's home, where cairn writes
// the Command's Files.
// BudgetUSD is what the session may still spend, in US dollars, for a CLI
// that takes a budget (claude --max-budget-usd); 0 is no budget.
// Repository is the worktree's git repository, for a sandbox that keeps it
// from the session (KeepsRepository); nil where it is not known (a compiled
// script), and the CLI's sandbox then has its own defaults.
// OutputSchema is the JSON Schema of the step's typed output (canonical
// JSON), given to a CLI that TakesOutputSchema; empty without one.
type Invocation struct {
	Prompt     string
	Model      string
	Effort     string
	Access     string
	MaxTurns   int
	Worktree   string
	OutputFile string
	Resume     string
	BudgetUSD  float64
	FilesDir   string
	Repository *Repository
	// OutputSchema is the output's JSON Schema, "" for none.
	OutputSchema string
}

// Harness is one agent CLI cairn can start: built in (docs/design.md §8's table) or a custom
// [harnesses.NAME] of the config, driven through its Adapter.
type Harness struct {
	Name    string
	Builtin bool

	adapter Adapter
	spec    Spec
	jq      JQ
	prices  *Prices // nil: cairn's own (Prices.table)
}

// newHarness is the harness a drives.
func newHarness(a Adapter, builtin bool) *Harness {
	spec := a.Spec()
	return &Harness{Name: spec.Name, Builtin: builtin, adapter: a, spec: spec, jq: a.JQ()}
}

// Efforts returns the efforts h takes, weakest first; none for a harness
// whose CLI has no effort setting.
func (h *Harness) Efforts() []string {
	var out []string
	for _, e := range ir.Efforts {
		if _, ok := h.spec.Efforts[e]; ok {
			out = append(out, e)
		}
	}
	return out
}

// Effort returns the value h's CLI is given for effort e (empty: no flag is
// passed), and false when h cannot take e.
func (h *Harness) Effort(e string) (string, bool) {
	v, ok := h.spec.Efforts[e]
	return v, ok
}

// TierModel returns h's built-in model for a tier: Claude's own aliases for
// claude, the current models of each other built-in CLI, none for a custom
// harness (it maps tiers through [models.HARNESS], which overrides these).
func (h *Harness) TierModel(tier string) (string, bool) {
	m, ok := h.spec.Tiers[tier]
	return m, ok
}

// PromptLimit is the most bytes of prompt h's CLI takes whole on its
// standard input, and the cause of a session whose prompt, of size bytes,
// is longer: it fails before its CLI starts. It is 0 and nil when the CLI
// takes any prompt.
func (h *Harness) PromptLimit() (max int, cause func(size string) string) {
	max = h.spec.MaxPrompt
	if max <= 0 {
		return 0, nil
	}
	return max, func(size string) string {
		return fmt.Sprintf("the prompt is %s bytes, over the %d harness %q takes whole on stdin: "+
			"put long content in a file and name it in the prompt", size, max, h.Name)
	}
}

// TakesMaxTurns reports whether a session's turn cap holds on h: its CLI
// enforces it (claude's --max-turns, gemini's maxSessionTurns in the
// settings cairn lays over the user's, a custom harness's {{.MaxTurns}}),
// or cairn counts the turns in its events and stops it (codex, opencode:
// CountsTurns).
func (h *Harness) TakesMaxTurns() bool { return h.spec.Turns || h.spec.TurnEvent != nil }

// TakesOutputSchema reports whether h's CLI takes a session's output schema
// itself (claude --json-schema, codex exec --output-schema), its final
// message then being the output; else the session's prompt asks for it.
func (h *Harness) TakesOutputSchema() bool { return h.spec.OutputSchema }

// TakesOutputSchema reports whether the harness called name takes a
// session's output schema itself: a built-in whose Spec says so (a custom
// harness never does).
func TakesOutputSchema(name string) bool {
	for _, a := range builtins {
		if s := a.Spec(); s.Name == name {
			return s.OutputSchema
		}
	}
	return false
}

// CountsTurns reports whether cairn itself enforces a session's turn cap on
// h, by counting the turns in its CLI's events (WatchTurns), what one turn
// is there, and the jq program, over FinalJQDefs, that the bash target
// reads each line of the CLI's standard output with, as cairn run does:
// true when it starts a turn (see TurnEvent).
func (h *Harness) CountsTurns() (what, jq string, ok bool) {
	if h.spec.Turns || h.spec.TurnEvent == nil {
		return "", "", false
	}
	return h.spec.TurnEvent.What, turnLineJQ(h.spec.TurnEvent.JQ), true
}

// ReportsCost reports whether h's CLI says what a session cost, so that a
// budget can count it: claude and opencode do, and a custom harness whose
// [harnesses.NAME.usage] names cost_usd; codex and Gemini CLI do not.
func (h *Harness) ReportsCost() bool { return h.spec.Cost }

// CanResume reports whether h's CLI continues an earlier session of its own
// (Invocation.Resume): claude --resume, codex exec resume, gemini --resume,
// opencode run --session. Custom harnesses start a fresh one.
func (h *Harness) CanResume() bool { return h.spec.Resume }

// KeepsRepository reports whether h's sandbox at access (empty: the
// default, write) keeps the worktree's git repository from the session
// when it is given the Invocation's Repository: claude's at write.
func (h *Harness) KeepsRepository(access string) bool {
	if access == "" {
		access = ir.DefaultAccess
	}
	return h.Builtin && h.spec.Sandboxes[access].Repository
}

// WritesMessageFile reports whether h's CLI writes its final message to the
// Invocation's OutputFile (codex -o), so that cairn makes that file first,
// its owner's only.
func (h *Harness) WritesMessageFile() bool { return h.spec.MessageFile }

// FinalJQ is the name of the jq function, among FinalJQDefs, that reads a
// session's final message in a compiled script as Final does.
func (h *Harness) FinalJQ() string { return h.jq.Final }

// EndJQ is the jq expression, over FinalJQDefs, that reads how a session
// ended in a compiled script as SessionEnd does (JQ's End): "end_claude",
// or, for a custom harness, the function of its usage paths with them
// (`end_custom({"cost_usd":["total_cost_usd"]})`).
func (h *Harness) EndJQ() string { return h.jq.End }

// EndJQFor is EndJQ for a session on model: with its cost estimated at the
// model's price where the CLI reports none, as SessionEnd does
// (`end_codex | end_priced({"input":1.25,…})`), when the price table has
// one; EndJQ when it has none.
func (h *Harness) EndJQFor(model string) string {
	p, _, ok := h.prices.table().Lookup(h.Name, model)
	if !ok {
		return h.jq.End
	}
	rate := func(usd float64) string { return strconv.FormatFloat(usd, 'g', -1, 64) }
	return fmt.Sprintf(`%s | end_priced({"input":%s,"output":%s,"cache_read":%s,"cache_write":%s})`,
		h.jq.End, rate(p.Input), rate(p.Output), rate(p.CacheRead), rate(p.CacheWrite))
}

// Command returns how a session of inv starts on h (docs/design.md §8): its argv, the
// variables cairn sets over the step's environment, and the files it
// writes into inv.FilesDir first. The session runs in inv.Worktree; the
// prompt goes on its standard input, never in the argv (PromptLimit). An effort h
// cannot take is left out; an empty access is the default, write, and one
// that is no access level is an error. For a custom harness each item of
// its command is a text/template over .Model, .Effort, .Access, .MaxTurns
// and .Worktree; an item with a template action that renders empty is left
// out, so `{{if .Model}}--model={{.Model}}{{end}}` passes nothing when the
// model is the CLI's own choice.
func (h *Harness) Command(inv Invocation) (Command, error) {
	effort := ""
	if inv.Effort != "" {
		if v, ok := h.spec.Efforts[inv.Effort]; ok {
			effort = v
		}
	}
	if inv.Access == "" {
		inv.Access = ir.DefaultAccess
	}
	if ir.AccessLevel(inv.Access) < 0 {
		return Command{}, fmt.Errorf("harness %q: unknown access %q; want one of %s", h.Name, inv.Access, strings.Join(ir.Accesses, ", "))
	}
	return h.adapter.Command(inv, effort)
}

// Registry is every harness a process may name: the built-in ones and the
// config's custom ones.
type Registry struct {
	byName map[string]*Harness
	names  []string
	prices *Prices // nil: cairn's own (Prices.table)
}

// NewRegistry returns the built-in harnesses plus the config's custom ones
// ([harnesses.NAME]). A custom harness with a built-in name does not
// replace the built-in harness.
func NewRegistry(custom []ir.CustomHarness) *Registry {
	r := &Registry{byName: map[string]*Harness{}}
	for _, a := range builtins {
		h := newHarness(a, true)
		r.byName[h.Name] = h
	}
	for _, c := range custom {
		if _, taken := r.byName[c.Name]; taken || c.Name == "" {
			continue
		}
		r.byName[c.Name] = newHarness(newCustom(c), false)
	}
	for name := range r.byName {
		r.names = append(r.names, name)
	}
	slices.Sort(r.names)
	return r
}

// Lookup returns the harness called name.
func (r *Registry) Lookup(name string) (*Harness, bool) {
	h, ok := r.byName[name]
	return h, ok
}

// Names returns the names of every harness, sorted, for "did you mean".
func (r *Registry) Names() []string { return slices.Clone(r.names) }

// WithPrices is r with the config's [prices], by model name, laid over
// cairn's price table (Prices.With) for every harness; r is left as it is.
func (r *Registry) WithPrices(over map[string]ir.Price) *Registry {
	if len(over) == 0 {
		return r
	}
	q := &Registry{byName: make(map[string]*Harness, len(r.byName)), names: r.names, prices: r.prices.table().With(over)}
	for name, h := range r.byName {
		c := *h
		c.prices = q.prices
		q.byName[name] = &c
	}
	return q
}

// Prices is the price table r's harnesses estimate costs from.
func (r *Registry) Prices() *Prices { return r.prices.table() }

// Priced reports whether a budget can count what a session of h on model
// spends: its CLI reports cost (ReportsCost), or the price table has a
// price for model (an empty model, the CLI's own choice, has none).
func (h *Harness) Priced(model string) bool {
	if h.ReportsCost() {
		return true
	}
	_, _, ok := h.prices.table().Lookup(h.Name, model)
	return ok
}
