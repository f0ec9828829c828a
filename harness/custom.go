package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
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

// Final is stdout; a non-zero exit fails, with stderr's last line as the
// cause.
func (*custom) Final(o Output) (string, string, bool) {
	msg := trimEnd(string(o.Stdout))
	if o.ExitCode == 0 {
		return msg, "", false
	}
	if line := lastLine(string(o.Stderr)); line != "" {
		return msg, oneLine(line), true
	}
	return msg, exitCause(o), true
}

// FinalJQ is Final in jq.
func (*custom) FinalJQ() (string, string) { return "custom", customJQ }

const customJQ = `def custom:
  ($out | trimend) as $msg
  | if $rc == 0 then {m: $msg, c: "", f: false}
    elif ($err | lastline) != "" then {m: $msg, c: ($err | lastline | oneline), f: true}
    else {m: $msg, c: exitcause, f: true} end;`

// SessionEnd has no id; the session worked when it printed something. Its
// usage is what the paths of [harnesses.NAME.usage] find in the JSON
// document its stdout holds (all of it, else its last line that is one): a
// count where a path finds a whole number from 0, a cost where it finds a
// number from 0; nothing where it finds nothing, or anything else.
func (h *custom) SessionEnd(o Output) SessionEnd {
	end := SessionEnd{Worked: len(bytes.TrimSpace(o.Stdout)) > 0}
	if len(h.usage) == 0 {
		return end
	}
	doc, ok := jsonDocument(o.Stdout)
	if !ok {
		return end
	}
	count := func(key string) *int64 {
		p, ok := h.usage[key]
		if !ok {
			return nil
		}
		v, ok := p.Find(doc)
		n, isNum := v.(float64)
		if !ok || !isNum || n < 0 || n != math.Trunc(n) || n > math.MaxInt64/2 {
			return nil
		}
		return ir.Count(int64(n))
	}
	end.Usage = ir.Usage{
		Turns:            count("turns"),
		InputTokens:      count("input_tokens"),
		OutputTokens:     count("output_tokens"),
		CacheReadTokens:  count("cache_read_tokens"),
		CacheWriteTokens: count("cache_write_tokens"),
	}
	if p, ok := h.usage["cost_usd"]; ok {
		if v, ok := p.Find(doc); ok {
			if usd, isNum := v.(float64); isNum && usd >= 0 {
				end.Usage.CostUSD = ir.Dollars(usd)
			}
		}
	}
	return end
}

// jsonDocument is the JSON document b holds: all of it, else its last line
// that is a JSON object.
func jsonDocument(b []byte) (any, bool) {
	var doc any
	if json.Unmarshal(b, &doc) == nil {
		return doc, true
	}
	lines := bytes.Split(b, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		line := bytes.TrimSpace(lines[i])
		if len(line) > 0 && line[0] == '{' && json.Unmarshal(line, &doc) == nil {
			return doc, true
		}
	}
	return nil, false
}

// Login cannot tell: a custom CLI's way to authenticate is its own.
func (*custom) Login(context.Context, string, []string) (Login, bool) { return Login{}, false }
