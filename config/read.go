package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/internal/jsonpath"
	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/tomldoc"
	"github.com/cairn-dev/cairn/ir"
)

// notifyOn are the run ends [notify] on may name.
var notifyOn = []string{"failure", "success"}

// Load reads the config of home, config.toml under it, as source.ReadFile
// reads a file (a regular file, capped). No file is the empty config with no
// diagnostics; a file that cannot be read is the empty config and one
// diagnostic.
func Load(home string) (*Config, []ir.Diagnostic) {
	file := Path(home)
	src, err := source.ReadFile(file, "")
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{}, nil
	}
	if err != nil {
		return &Config{}, []ir.Diagnostic{{
			Rule:     ir.RuleSyntax,
			Severity: ir.Error,
			Message:  fmt.Sprintf("cannot read the config: %v", err),
		}}
	}
	return Read(file, src)
}

// Read reads src, the config file named file. It returns every syntax error,
// duplicate, wrong type, unknown key and invalid value it finds, sorted, with
// the config as complete as the file allows. Its strings share src's bytes
// (see tomldoc.ReadTOMLDoc): src must not change once it is read.
func Read(file string, src []byte) (*Config, []ir.Diagnostic) {
	src = source.Text(src)
	c := &Config{File: file, Source: src}
	doc, diags := tomldoc.ReadTOMLDoc(file, src)
	rd := &reader{TOMLReader: tomldoc.TOMLReader{Src: src}, c: c}
	rd.top(doc.Root)
	diags = append(diags, rd.Diags...)
	ir.SortDiagnostics(diags)
	return c, diags
}

// reader fills a Config from a TOML document.
type reader struct {
	tomldoc.TOMLReader
	c *Config
}

func (rd *reader) invalid(at ir.Range, format string, args ...any) {
	rd.Report(ir.RuleInvalidValue, at, nil, format, args...)
}

func (rd *reader) top(t *tomldoc.TOMLTable) {
	c := rd.c
	for _, e := range t.Entries {
		switch e.Key {
		case "harness":
			c.Harness = rd.String(e)
		case "model":
			c.Model = rd.String(e)
		case "effort":
			c.Effort = rd.String(e)
			rd.Enum(c.Effort, "effort", ir.Efforts)
		case "base_branch":
			c.BaseBranch = rd.String(e)
		case "repair_cap":
			c.RepairCap = rd.Int(e)
			if f := c.RepairCap; !f.Bad && f.Value < 0 {
				rd.invalid(f.Range, "invalid repair_cap %d; it cannot be negative", f.Value)
			}
		case "merge_always":
			c.MergeAlways = rd.Bool(e)
		case "preflight_timeout":
			c.PreflightTimeout = rd.Duration(e, "s")
			if f := c.PreflightTimeout; !f.Bad {
				if d, err := ir.ParseDuration(f.Value); err != nil {
					rd.invalid(f.Range, "invalid preflight_timeout: %v; write a duration such as \"30s\"", err)
				} else if d <= 0 {
					rd.invalid(f.Range, "invalid preflight_timeout %q; it must be longer than 0s", f.Value)
				}
			}
		case "trusted":
			c.Trusted = rd.Strings(e)
		case "protected_paths":
			c.ProtectedPaths = rd.Strings(e)
		case "process_path":
			c.ProcessPath = rd.Strings(e)
		case "harnesses":
			rd.harnesses(e)
		case "models":
			rd.models(e)
		case "resources":
			rd.resources(e)
		case "notify":
			rd.notify(e)
		case "limits":
			rd.limits(e)
		case "prices":
			rd.prices(e)
		default:
			rd.UnknownKey(t, e, "at the top level of the config", configKeys)
		}
	}
}

// subTables returns the tables of a table of tables such as [harnesses.X],
// refusing anything else; what names one ("harness").
func (rd *reader) subTables(e *tomldoc.TOMLEntry, what string) []*tomldoc.TOMLEntry {
	t := rd.Table(e)
	if t == nil {
		return nil
	}
	var out []*tomldoc.TOMLEntry
	for _, se := range t.Entries {
		if se.Value.Kind != tomldoc.KindTable {
			rd.Report(ir.RuleType, se.Value.Range, nil, "%s %q must be a table, not %s", what, se.Key, tomldoc.Describe(se.Value))
			continue
		}
		out = append(out, se)
	}
	return out
}

func (rd *reader) harnesses(e *tomldoc.TOMLEntry) {
	for _, he := range rd.subTables(e, "harness") {
		h := Harness{Name: he.Key, Header: tomldoc.HeaderOf(he)}
		if !ir.ValidName(h.Name) {
			rd.invalid(he.KeyRange, "invalid harness name %q; use lowercase letters, digits and -, starting with a letter or digit", h.Name)
		}
		where := fmt.Sprintf("in [harnesses.%s]", h.Name)
		for _, kv := range he.Value.Table.Entries {
			switch kv.Key {
			case "command":
				h.Command = rd.Strings(kv)
				if !h.Command.Bad && len(h.Command.Value) == 0 {
					rd.invalid(h.Command.Range, "empty command of harness %q; write its argv, such as [%q, \"--model\", \"{{.Model}}\"]", h.Name, h.Name)
				}
			case "preflight":
				h.Preflight = rd.Strings(kv)
			case "usage":
				h.Usage = rd.usage(kv, h.Name)
			default:
				rd.UnknownKey(he.Value.Table, kv, where, harnessKeys)
			}
		}
		if !h.Command.Set {
			rd.invalid(h.Header, "harness %q has no \"command\"; add its argv, such as command = [%q]", h.Name, h.Name)
		}
		rd.c.Harnesses = append(rd.c.Harnesses, h)
	}
}

// usage reads a custom harness's [harnesses.NAME.usage]: each figure of
// ir.UsageKeys it names, with the JSON path that reads it. A path that
// does not parse is refused (invalid-value) and kept Bad.
func (rd *reader) usage(e *tomldoc.TOMLEntry, harness string) []ir.Pair {
	t := rd.Table(e)
	if t == nil {
		return nil
	}
	where := fmt.Sprintf("in [harnesses.%s.usage]", harness)
	var out []ir.Pair
	for _, kv := range t.Entries {
		if !slices.Contains(ir.UsageKeys, kv.Key) {
			rd.UnknownKey(t, kv, where, ir.UsageKeys)
			continue
		}
		f := rd.String(kv)
		if !f.Bad {
			if _, err := jsonpath.Parse(f.Value); err != nil {
				rd.invalid(f.Range, "invalid %s path %q of harness %q: %v", kv.Key, f.Value, harness, err)
				f.Bad = true
			}
		}
		out = append(out, ir.Pair{Name: kv.Key, Field: f})
	}
	return out
}

func (rd *reader) models(e *tomldoc.TOMLEntry) {
	for _, me := range rd.subTables(e, "models of harness") {
		m := Models{Harness: me.Key, Header: tomldoc.HeaderOf(me)}
		where := fmt.Sprintf("in [models.%s]", m.Harness)
		for _, kv := range me.Value.Table.Entries {
			if !slices.Contains(tierKeys, kv.Key) {
				suggestion := ir.TierAliases[kv.Key]
				if suggestion == "" {
					suggestion = ir.Suggest(kv.Key, tierKeys)
				}
				rd.UnknownKeySuggest(me.Value.Table, kv, where, suggestion)
				continue
			}
			m.Tiers = append(m.Tiers, ir.Pair{Name: kv.Key, Field: rd.String(kv)})
		}
		rd.c.Models = append(rd.c.Models, m)
	}
}

func (rd *reader) resources(e *tomldoc.TOMLEntry) {
	t := rd.Table(e)
	if t == nil {
		return
	}
	res := &rd.c.Resources
	res.Header = tomldoc.HeaderOf(e)
	for _, kv := range t.Entries {
		switch kv.Key {
		case "max_load":
			res.MaxLoad = rd.Float(kv)
			if f := res.MaxLoad; !f.Bad && !(f.Value > 0) {
				rd.invalid(f.Range, "invalid max_load %v; it must be more than 0", f.Value)
			} else if math.IsInf(f.Value, 0) {
				rd.invalid(f.Range, "invalid max_load %v; write a load average such as 8.0", f.Value)
			}
		case "min_free_memory":
			res.MinFreeMemory = rd.String(kv)
			if f := res.MinFreeMemory; !f.Bad {
				if _, err := parseSize(f.Value); err != nil {
					rd.invalid(f.Range, "invalid min_free_memory: %v; write a size such as \"2GiB\" or \"512MiB\"", err)
				}
			}
		case "wait":
			res.Wait = rd.Duration(kv, "m")
			if f := res.Wait; !f.Bad {
				if _, err := ir.ParseDuration(f.Value); err != nil {
					rd.invalid(f.Range, "invalid wait: %v; write a duration such as \"30m\"", err)
				}
			}
		default:
			rd.UnknownKey(t, kv, "in [resources]", resourcesKeys)
		}
	}
}

func (rd *reader) notify(e *tomldoc.TOMLEntry) {
	t := rd.Table(e)
	if t == nil {
		return
	}
	n := &rd.c.Notify
	n.Header = tomldoc.HeaderOf(e)
	for _, kv := range t.Entries {
		switch kv.Key {
		case "command":
			n.Command = rd.Strings(kv)
		case "on":
			n.On = rd.Strings(kv)
			for _, item := range n.On.Value {
				rd.Enum(item, "notify event", notifyOn)
			}
		default:
			rd.UnknownKey(t, kv, "in [notify]", notifyKeys)
		}
	}
}

func (rd *reader) limits(e *tomldoc.TOMLEntry) {
	t := rd.Table(e)
	if t == nil {
		return
	}
	l := &rd.c.Limits
	l.Header = tomldoc.HeaderOf(e)
	for _, kv := range t.Entries {
		switch kv.Key {
		case "access":
			l.Access = rd.String(kv)
			rd.Enum(l.Access, "access", ir.Accesses)
		case "budget_usd":
			l.BudgetUSD = rd.Budget(kv)
			if f := l.BudgetUSD; !f.Bad {
				if err := ir.CheckBudget("budget_usd", f.Value); err != nil {
					rd.invalid(f.Range, "%v", err)
				}
			}
		case "max_items":
			l.MaxItems = rd.Int(kv)
			if f := l.MaxItems; !f.Bad && f.Value < 1 {
				rd.invalid(f.Range, "invalid max_items %d; it must be 1 or more", f.Value)
			}
		case "daily_budget_usd":
			l.DailyBudgetUSD = rd.Budget(kv)
			if f := l.DailyBudgetUSD; !f.Bad {
				if err := ir.CheckBudget("daily_budget_usd", f.Value); err != nil {
					rd.invalid(f.Range, "%v", err)
				}
			}
		default:
			rd.UnknownKey(t, kv, "in [limits]", limitsKeys)
		}
	}
}

// prices reads [prices."MODEL"]: each model's rates, numbers from 0, with
// input and output required.
func (rd *reader) prices(e *tomldoc.TOMLEntry) {
	for _, pe := range rd.subTables(e, "price of model") {
		p := Price{Model: ir.Field[string]{Value: pe.Key, Set: true, Key: pe.KeyRange, Range: pe.KeyRange}, Header: tomldoc.HeaderOf(pe)}
		if strings.TrimSpace(pe.Key) == "" {
			rd.invalid(pe.KeyRange, "empty model name in [prices]; write the model's name, such as [prices.\"gpt-5\"]")
			p.Model.Bad = true
		}
		where := fmt.Sprintf("in [prices.%s]", tomlKey(pe.Key))
		for _, kv := range pe.Value.Table.Entries {
			var f *ir.Field[float64]
			switch kv.Key {
			case "input":
				f = &p.Input
			case "output":
				f = &p.Output
			case "cache_read":
				f = &p.CacheRead
			case "cache_write":
				f = &p.CacheWrite
			default:
				rd.UnknownKey(pe.Value.Table, kv, where, priceKeys)
				continue
			}
			*f = rd.Float(kv)
			if !f.Bad && !validRate(f.Value) {
				rd.invalid(f.Range, "invalid %s price %v of model %q; write US dollars per million tokens, a number from 0", kv.Key, f.Value, pe.Key)
				f.Bad = true
			}
		}
		for _, req := range []struct {
			key string
			f   ir.Field[float64]
		}{{"input", p.Input}, {"output", p.Output}} {
			if !req.f.Set {
				rd.invalid(p.Header, "price of model %q has no %q; add it, in US dollars per million tokens", pe.Key, req.key)
			}
		}
		rd.c.Prices = append(rd.c.Prices, p)
	}
}

// sizeUnits are the units of parseSize, case-insensitive: SI multiples of
// 1000 and IEC multiples of 1024.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "ki": 1 << 10, "kib": 1 << 10,
	"m": 1e6, "mb": 1e6, "mi": 1 << 20, "mib": 1 << 20,
	"g": 1e9, "gb": 1e9, "gi": 1 << 30, "gib": 1 << 30,
	"t": 1e12, "tb": 1e12, "ti": 1 << 40, "tib": 1 << 40,
}

// parseSize reads a size in bytes: a whole number and an optional unit, which
// a blank may separate: "2GiB", "512MiB", "1G", "100M", "4096". K, M, G and T (also KB, …) are
// powers of 1000; Ki, Mi, Gi and Ti (also KiB, …) powers of 1024. Units are
// case-insensitive.
func parseSize(s string) (int64, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q: expected a whole number, then a unit such as GiB", s)
	}
	unit, ok := sizeUnits[strings.ToLower(strings.TrimSpace(s[i:]))]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit %q (use B, K, M, G, T, KiB, MiB, GiB or TiB)", s, s[i:])
	}
	var n int64
	for _, c := range s[:i] {
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, fmt.Errorf("size %q is too large", s)
		}
		n = n*10 + d
	}
	if n > math.MaxInt64/unit {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return n * unit, nil
}
