package harness

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/cairn-dev/cairn/internal/jsonpath"
	"github.com/cairn-dev/cairn/ir"
)

// custom is the adapter of a config's [harnesses.NAME] table: its command
// is argv templates, its output plain text.
type custom struct {
	name string
	// command holds the argv templates, parsed, and raw the items as
	// written; err is why they could not be parsed.
	command []*template.Template
	raw     []string
	err     error
	// turns is true when an item uses .MaxTurns.
	turns   bool
	version []string
	// usage are the JSON paths of [harnesses.NAME.usage], by figure.
	usage map[string]jsonpath.Path
}

// newCustom makes the adapter of c.
func newCustom(c ir.CustomHarness) *custom {
	h := &custom{name: c.Name}
	for i, item := range c.Command {
		t, err := template.New(fmt.Sprintf("command[%d]", i)).Parse(item)
		if err != nil {
			h.err = fmt.Errorf("harness %q: %w", c.Name, err)
			break
		}
		h.command = append(h.command, t)
		h.raw = append(h.raw, item)
		h.turns = h.turns || strings.Contains(item, ".MaxTurns")
	}
	for key, text := range c.Usage {
		// The config refused a path that does not parse.
		if p, err := jsonpath.Parse(text); err == nil {
			if h.usage == nil {
				h.usage = map[string]jsonpath.Path{}
			}
			h.usage[key] = p
		}
	}
	if len(c.Command) == 0 && h.err == nil {
		h.err = fmt.Errorf("harness %q has no command", c.Name)
	}
	switch {
	case len(c.Preflight) > 0:
		h.version = slices.Clone(c.Preflight)
	case len(c.Command) > 0:
		h.version = []string{c.Command[0]}
	}
	return h
}

func (h *custom) Spec() Spec {
	return Spec{
		Name:    h.name,
		Efforts: allEfforts(),
		Tiers:   map[string]string{},
		Turns:   h.turns,
		Cost:    h.usage["cost_usd"].String() != "",
		Version: h.version,
		Err:     h.err,
	}
}

// customData is what a custom harness's command templates may use. Access
// is the session's access level ("read", "write" or "full"), for the CLI
// to map onto its own permissions.
type customData struct {
	Model    string
	Effort   string
	Access   string
	MaxTurns int
	Worktree string
}

// Command renders each item of the command, a text/template over .Model,
// .Effort, .Access, .MaxTurns and .Worktree; an item with a template action
// that renders empty is left out, so `{{if .Model}}--model={{.Model}}{{end}}`
// passes nothing when the model is the CLI's own choice. It sets no
// variables and writes no files: the CLI maps .Access itself.
func (h *custom) Command(inv Invocation, effort string) (Command, error) {
	if h.err != nil {
		return Command{}, h.err
	}
	data := customData{Model: inv.Model, Effort: effort, Access: inv.Access, MaxTurns: inv.MaxTurns, Worktree: inv.Worktree}
	argv := make([]string, 0, len(h.command))
	for i, t := range h.command {
		var b strings.Builder
		if !hasAction(t) {
			argv = append(argv, h.raw[i])
			continue
		}
		if err := t.Execute(&b, data); err != nil {
			return Command{}, fmt.Errorf("harness %q: %w", h.name, err)
		}
		if b.Len() == 0 && i > 0 {
			continue
		}
		argv = append(argv, b.String())
	}
	return Command{Argv: argv}, nil
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

// JQ reads a custom harness's output with jq/custom.jq: stdout is the
// final message, and its usage is what the paths of
// [harnesses.NAME.usage] find in it.
func (h *custom) JQ() JQ {
	paths := map[string][]any{}
	for key, p := range h.usage {
		paths[key] = p.Steps()
	}
	// Marshal sorts the keys: one harness, one expression.
	b, _ := json.Marshal(paths)
	return JQ{Defs: customJQ, Final: "custom", End: "end_custom(" + string(b) + ")"}
}

// customJQ is jq/custom.jq, the jq of JQ's Defs.
//
//go:embed jq/custom.jq
var customJQ string

// Login cannot tell: a custom CLI's way to authenticate is its own.
func (*custom) Login(context.Context, string, []string) (Login, bool) { return Login{}, false }
