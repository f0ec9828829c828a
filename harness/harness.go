// Package harness holds the agent-CLI adapters of §8: the registry of
// built-in and custom harnesses, their argv, their final message, and their
// preflight.
package harness

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/cairn-dev/cairn/config"
)

// Efforts are the efforts a step may ask for, weakest first (§4.1). Each
// harness maps them onto its own CLI's values, or takes none.
var Efforts = []string{"low", "medium", "high", "xhigh", "max"}

// Tiers are the portable model tiers, weakest first (§6.2).
var Tiers = []string{"efficient", "balanced", "strong", "strongest"}

// tierAliases are the legacy names of the tiers: Claude's own model aliases.
var tierAliases = map[string]string{
	"haiku":  "efficient",
	"sonnet": "balanced",
	"opus":   "strong",
	"fable":  "strongest",
}

// TierOf returns the tier a model value names: a tier itself, or one of its
// aliases (haiku, sonnet, opus, fable). Any other value is a concrete model
// name, and TierOf reports false.
func TierOf(model string) (string, bool) {
	if slices.Contains(Tiers, model) {
		return model, true
	}
	t, ok := tierAliases[model]
	return t, ok
}

// Invocation is one agent session as a harness starts it: the prompt, the
// resolved model and effort (empty: the CLI's own choice), the turn cap, the
// worktree the session runs in, and the file a harness that writes its final
// message to a file (codex) writes it to. Effort is cairn's effort (low to
// max); Argv maps it onto the CLI's value. Resume is the CLI's id of an
// earlier session to continue (SessionEnd reads it), for a harness that
// CanResume; empty starts a fresh session.
type Invocation struct {
	Prompt     string
	Model      string
	Effort     string
	MaxTurns   int
	Worktree   string
	OutputFile string
	Resume     string
}

// Harness is one agent CLI cairn can start: built in (§8's table) or a custom
// [harnesses.NAME] of the config.
type Harness struct {
	Name    string
	Builtin bool

	// efforts maps each effort the harness takes to the value its CLI is
	// given; an empty value means the effort is taken and no flag is passed.
	efforts map[string]string
	// tiers maps a model tier to the harness's built-in model for it.
	tiers map[string]string
	// argv builds the argv of a built-in harness.
	argv func(inv Invocation, effort string) []string
	// stdin is true when the prompt goes on the CLI's standard input.
	stdin bool
	// resume is true when argv continues an Invocation's Resume session.
	resume bool
	// turns is true when argv passes the Invocation's MaxTurns.
	turns bool
	// messageFile is true when the CLI writes its final message to the
	// Invocation's OutputFile.
	messageFile bool
	// version is the argv whose exit 0 proves the harness can start; just
	// the binary when it only has to be on PATH.
	version []string
	// login asks whether the CLI can authenticate; nil when cairn cannot
	// tell (a custom harness).
	login login

	// command holds a custom harness's argv templates, parsed, and raw the
	// items as written; templateErr is why they could not be parsed.
	command     []*template.Template
	raw         []string
	templateErr error
}

// allEfforts maps every effort to itself.
func allEfforts() map[string]string {
	m := make(map[string]string, len(Efforts))
	for _, e := range Efforts {
		m[e] = e
	}
	return m
}

// builtins returns the built-in harnesses of §8, freshly made.
func builtins() []*Harness {
	return []*Harness{
		{
			Name:    "claude",
			Builtin: true,
			efforts: allEfforts(),
			tiers: map[string]string{
				"efficient": "haiku",
				"balanced":  "sonnet",
				"strong":    "opus",
				"strongest": "fable",
			},
			stdin:   true,
			resume:  true,
			turns:   true,
			version: []string{"claude", "--version"},
			login:   claudeLogin,
			argv: func(inv Invocation, effort string) []string {
				a := []string{"claude", "-p", "--output-format", "json", "--permission-mode", "acceptEdits"}
				if inv.Resume != "" {
					a = append(a, "--resume", inv.Resume)
				}
				if inv.Model != "" {
					a = append(a, "--model", inv.Model)
				}
				if effort != "" {
					a = append(a, "--effort", effort)
				}
				if inv.MaxTurns > 0 {
					a = append(a, "--max-turns", strconv.Itoa(inv.MaxTurns))
				}
				return a
			},
		},
		{
			Name:        "codex",
			Builtin:     true,
			efforts:     map[string]string{"low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "xhigh"},
			stdin:       true,
			resume:      true,
			messageFile: true,
			version:     []string{"codex", "--version"},
			login:       codexLogin,
			argv: func(inv Invocation, effort string) []string {
				a := []string{"codex", "exec", "--json", "-o", inv.OutputFile, "--sandbox", "workspace-write"}
				if inv.Model != "" {
					a = append(a, "-m", inv.Model)
				}
				if effort != "" {
					a = append(a, "-c", "model_reasoning_effort="+effort)
				}
				a = append(a, "-C", inv.Worktree)
				if inv.Resume != "" {
					// The options above are exec's; resume takes the
					// session's id, then the prompt ("-": stdin).
					a = append(a, "resume", inv.Resume)
				}
				return append(a, "-")
			},
		},
		{
			Name:    "gemini",
			Builtin: true,
			efforts: map[string]string{},
			stdin:   true,
			version: []string{"gemini", "--version"},
			login:   geminiLogin,
			argv: func(inv Invocation, _ string) []string {
				a := []string{"gemini", "-p", ""}
				if inv.Model != "" {
					a = append(a, "-m", inv.Model)
				}
				return append(a, "--output-format", "json", "--approval-mode", "auto_edit", "--skip-trust")
			},
		},
		{
			Name:    "opencode",
			Builtin: true,
			// medium is opencode's default variant: no --variant is passed.
			efforts: map[string]string{"low": "minimal", "medium": "", "high": "high", "xhigh": "max", "max": "max"},
			stdin:   false,
			resume:  true,
			version: []string{"opencode", "--version"},
			login:   opencodeLogin,
			argv: func(inv Invocation, effort string) []string {
				a := []string{"opencode", "run", inv.Prompt}
				if inv.Resume != "" {
					a = append(a, "--session", inv.Resume)
				}
				if inv.Model != "" {
					a = append(a, "-m", inv.Model)
				}
				if effort != "" {
					a = append(a, "--variant", effort)
				}
				return append(a, "--format", "json", "--dir", inv.Worktree, "--auto")
			},
		},
	}
}

// custom makes the harness of a config's [harnesses.NAME] table.
func custom(c config.Harness) *Harness {
	h := &Harness{
		Name:    c.Name,
		efforts: allEfforts(),
		tiers:   map[string]string{},
		stdin:   true,
	}
	for i, item := range c.Command.Value {
		t, err := template.New(fmt.Sprintf("command[%d]", i)).Parse(item.Value)
		if err != nil {
			h.templateErr = fmt.Errorf("harness %q: %w", c.Name, err)
			break
		}
		h.command = append(h.command, t)
		h.raw = append(h.raw, item.Value)
		h.turns = h.turns || strings.Contains(item.Value, ".MaxTurns")
	}
	if len(c.Command.Value) == 0 && h.templateErr == nil {
		h.templateErr = fmt.Errorf("harness %q has no command", c.Name)
	}
	switch {
	case len(c.Preflight.Value) > 0:
		for _, item := range c.Preflight.Value {
			h.version = append(h.version, item.Value)
		}
	case len(c.Command.Value) > 0:
		h.version = []string{c.Command.Value[0].Value}
	}
	return h
}

// Efforts returns the efforts h takes, weakest first; none for a harness
// whose CLI has no effort setting.
func (h *Harness) Efforts() []string {
	var out []string
	for _, e := range Efforts {
		if _, ok := h.efforts[e]; ok {
			out = append(out, e)
		}
	}
	return out
}

// Effort returns the value h's CLI is given for effort e (empty: no flag is
// passed), and false when h cannot take e.
func (h *Harness) Effort(e string) (string, bool) {
	v, ok := h.efforts[e]
	return v, ok
}

// TierModel returns h's built-in model for a tier: Claude's own aliases for
// claude, none for the others (they map tiers through [models.HARNESS]).
func (h *Harness) TierModel(tier string) (string, bool) {
	m, ok := h.tiers[tier]
	return m, ok
}

// PromptOnStdin reports whether the session prompt goes on the CLI's standard
// input rather than in its argv.
func (h *Harness) PromptOnStdin() bool { return h.stdin }

// TakesMaxTurns reports whether h's CLI is given a session's turn cap:
// claude's --max-turns, or a custom harness's {{.MaxTurns}}. Codex, Gemini
// CLI and opencode have no such flag.
func (h *Harness) TakesMaxTurns() bool { return h.turns }

// CanResume reports whether h's CLI continues an earlier session of its own
// (Invocation.Resume): claude --resume, codex exec resume, opencode run
// --session. Gemini CLI and custom harnesses start a fresh one.
func (h *Harness) CanResume() bool { return h.resume }

// WritesMessageFile reports whether h's CLI writes its final message to the
// Invocation's OutputFile (codex -o), so that cairn makes that file first,
// its owner's only.
func (h *Harness) WritesMessageFile() bool { return h.messageFile }

// customData is what a custom harness's command templates may use.
type customData struct {
	Model    string
	Effort   string
	MaxTurns int
	Worktree string
}

// Argv returns the argv that starts a session of inv (§8). The session runs
// in inv.Worktree; the prompt goes on stdin unless PromptOnStdin says
// otherwise. An effort h cannot take is left out. For a custom harness each
// item of its command is a text/template over .Model, .Effort, .MaxTurns and
// .Worktree; an item with a template action that renders empty is left out,
// so `{{if .Model}}--model={{.Model}}{{end}}` passes nothing when the model
// is the CLI's own choice.
func (h *Harness) Argv(inv Invocation) ([]string, error) {
	effort := ""
	if inv.Effort != "" {
		if v, ok := h.efforts[inv.Effort]; ok {
			effort = v
		}
	}
	if h.argv != nil {
		return h.argv(inv, effort), nil
	}
	if h.templateErr != nil {
		return nil, h.templateErr
	}
	data := customData{Model: inv.Model, Effort: effort, MaxTurns: inv.MaxTurns, Worktree: inv.Worktree}
	argv := make([]string, 0, len(h.command))
	for i, t := range h.command {
		var b strings.Builder
		if !hasAction(t) {
			argv = append(argv, h.raw[i])
			continue
		}
		if err := t.Execute(&b, data); err != nil {
			return nil, fmt.Errorf("harness %q: %w", h.Name, err)
		}
		if b.Len() == 0 && i > 0 {
			continue
		}
		argv = append(argv, b.String())
	}
	return argv, nil
}

// hasAction reports whether t is more than plain text.
func hasAction(t *template.Template) bool {
	if t.Tree == nil || t.Root == nil {
		return false
	}
	for _, n := range t.Root.Nodes {
		if n.Type() != parse.NodeText {
			return true
		}
	}
	return false
}

// Registry is every harness a process may name: the built-in ones and the
// config's custom ones.
type Registry struct {
	byName map[string]*Harness
	names  []string
}

// NewRegistry returns the built-in harnesses plus cfg's [harnesses.NAME]
// tables (cfg may be nil). A custom table with a built-in name does not
// replace the built-in harness.
func NewRegistry(cfg *config.Config) *Registry {
	r := &Registry{byName: map[string]*Harness{}}
	for _, h := range builtins() {
		r.byName[h.Name] = h
	}
	if cfg != nil {
		for _, c := range cfg.Harnesses {
			if _, taken := r.byName[c.Name]; taken || c.Name == "" {
				continue
			}
			r.byName[c.Name] = custom(c)
		}
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
