// Package config reads the user config, $CAIRN_HOME/config.toml: its keys
// with their positions, refusals like a process file's, and the defaults.
package config

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// Defaults of the config's keys (docs/design.md §5); the default harness is
// ir.DefaultHarness, which a plan names.
const (
	DefaultRepairCap    = 3
	DefaultResourceWait = "30m"
)

// Config is the user config as written, every key with its ranges. The zero
// Config (no file) is valid and means "all defaults".
type Config struct {
	// File is the config's path; empty when there is no config file.
	File   string
	Source []byte

	Harness     ir.Field[string]
	Model       ir.Field[string]
	Effort      ir.Field[string]
	BaseBranch  ir.Field[string]
	RepairCap   ir.Field[int]
	MergeAlways ir.Field[bool]
	// PreflightTimeout bounds each harness's preflight (its version and
	// login commands); harness.DefaultPreflightTimeout when unset.
	PreflightTimeout ir.Field[string]
	Trusted          ir.Strings
	ProtectedPaths   ir.Strings
	ProcessPath      ir.Strings
	Harnesses        []Harness
	Models           []Models
	Resources        Resources
	Notify           Notify
	Limits           Limits
	Prices           []Price
}

// Price is a [prices."MODEL"] table: what a model costs, in US dollars per
// million tokens, over cairn's price table (docs/costs.md). Input and
// Output are required; a cache rate it leaves out is the input rate.
type Price struct {
	Model                                ir.Field[string]
	Header                               ir.Range
	Input, Output, CacheRead, CacheWrite ir.Field[float64]
}

// PriceOverrides are c's [prices] by model name, as the harness registry
// lays them over cairn's price table; a table Read refused is left out.
func (c *Config) PriceOverrides() map[string]ir.Price {
	var out map[string]ir.Price
	for _, p := range c.Prices {
		if p.Model.Bad || !usableRate(p.Input) || !usableRate(p.Output) ||
			p.CacheRead.Set && !usableRate(p.CacheRead) || p.CacheWrite.Set && !usableRate(p.CacheWrite) {
			continue
		}
		pr := ir.Price{Input: p.Input.Value, Output: p.Output.Value, CacheRead: p.Input.Value, CacheWrite: p.Input.Value,
			Source: fmt.Sprintf("the config's [prices.%s]", tomlKey(p.Model.Value))}
		if p.CacheRead.Set {
			pr.CacheRead = p.CacheRead.Value
		}
		if p.CacheWrite.Set {
			pr.CacheWrite = p.CacheWrite.Value
		}
		if out == nil {
			out = map[string]ir.Price{}
		}
		out[p.Model.Value] = pr
	}
	return out
}

// usableRate reports whether f is a rate Read accepted.
func usableRate(f ir.Field[float64]) bool { return f.Set && !f.Bad && validRate(f.Value) }

// validRate reports whether usd is a price per million tokens: a finite
// number from 0.
func validRate(usd float64) bool { return usd >= 0 && !math.IsInf(usd, 0) }

// tomlKey is name as a TOML key: bare when it can be, else quoted.
func tomlKey(name string) string {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return strconv.Quote(name)
		}
	}
	return name
}

// Harness is a custom harness of [harnesses.NAME] (docs/design.md §8): Command is an argv
// whose items may hold {{.Model}}, {{.Effort}}, {{.Access}}, {{.MaxTurns}}
// and {{.Worktree}}; Preflight is the argv that proves it can start.
type Harness struct {
	Name      string
	Header    ir.Range
	Command   ir.Strings
	Preflight ir.Strings
	// Usage is its [harnesses.NAME.usage] table: a figure's name
	// (ir.UsageKeys) and the JSON path that reads it from the CLI's
	// output.
	Usage []ir.Pair
}

// Models is a [models.HARNESS] table: model tiers (efficient, balanced,
// strong, strongest) and "default" mapped to that harness's model names.
type Models struct {
	Harness string
	Header  ir.Range
	Tiers   []ir.Pair
}

// Limits is the [limits] table: ceilings that a process file, and the
// command line, may only tighten (docs/design.md §6.3). Access is the most a session may
// do, "read", "write" or "full"; BudgetUSD the most a run may spend, in US
// dollars; DailyBudgetUSD the most every run of the home that starts on
// one UTC day may spend together, which only the config sets.
type Limits struct {
	Header    ir.Range
	Access    ir.Field[string]
	BudgetUSD ir.Field[ir.Budget]
	// DailyBudgetUSD is [limits] daily_budget_usd.
	DailyBudgetUSD ir.Field[ir.Budget]
	// MaxItems is the most items a for_each may run over.
	MaxItems ir.Field[int]
}

// MaxItems is the most items a for_each may run over: the config's
// [limits] max_items, else ir.DefaultMaxItems.
func (c *Config) MaxItems() int {
	if f := c.Limits.MaxItems; f.Set && !f.Bad && f.Value > 0 {
		return f.Value
	}
	return ir.DefaultMaxItems
}

// AccessCeiling is the config's [limits] access, and false when it sets
// none (or one that is no access level, which Read refused).
func (c *Config) AccessCeiling() (ir.Field[string], bool) {
	f := c.Limits.Access
	if !f.Set || f.Bad || ir.AccessLevel(f.Value) < 0 {
		return ir.Field[string]{}, false
	}
	return f, true
}

// BudgetCeiling is the config's [limits] budget_usd, and false when it
// sets none (or one that is no budget, which Read refused).
func (c *Config) BudgetCeiling() (ir.Field[ir.Budget], bool) {
	f := c.Limits.BudgetUSD
	if _, ok := ir.BudgetOf(f); !ok {
		return ir.Field[ir.Budget]{}, false
	}
	return f, true
}

// DailyBudget is the config's [limits] daily_budget_usd, and false when
// it sets none (or one that is no budget, which Read refused).
func (c *Config) DailyBudget() (ir.Field[ir.Budget], bool) {
	f := c.Limits.DailyBudgetUSD
	if _, ok := ir.BudgetOf(f); !ok {
		return ir.Field[ir.Budget]{}, false
	}
	return f, true
}

// Resources is the [resources] table, checked before every session step.
type Resources struct {
	Header        ir.Range
	MaxLoad       ir.Field[float64]
	MinFreeMemory ir.Field[string]
	Wait          ir.Field[string]
}

// Notify is the [notify] table: a command run when a run ends as On says
// ("failure", "success").
type Notify struct {
	Header  ir.Range
	Command ir.Strings
	On      ir.Strings
}

// Home is cairn's home folder: $CAIRN_HOME of env, cairn's environment,
// else .cairn in env's $HOME; ResolveHome has made $CAIRN_HOME absolute at
// start. dir is the directory cairn works in, -C's ("" for the process's
// working directory), and inRepo says whether it is in a git repository. In
// a repository and without -C, a home inside the working directory is given
// relative to it, as short to print as the user wrote it and as the
// repository's own files are printed. Otherwise it is absolute: with -C,
// since a relative name is opened from the process's working directory,
// which -C does not move; outside a repository, since the home's files are
// the same wherever cairn runs, and a name relative to where it happened to
// run would read as a file of that folder.
func Home(env []string, dir string, inRepo bool) string {
	if h := getenv(env, "CAIRN_HOME"); h != "" {
		if wd, err := os.Getwd(); err == nil && dir == "" && inRepo && filepath.IsAbs(h) {
			if rel, err := filepath.Rel(wd, h); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return rel
			}
		}
		return h
	}
	if h := getenv(env, "HOME"); h != "" {
		return filepath.Join(h, ".cairn")
	}
	return ".cairn"
}

// getenv is the value of the last name=value of env.
func getenv(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if rest, ok := strings.CutPrefix(kv, name+"="); ok {
			v = rest
		}
	}
	return v
}

// ResolveHome makes a relative $CAIRN_HOME of env, cairn's environment,
// absolute against the working directory, in the env returned, which cairn
// hands to Home and to every process it starts. Called
// once at start, before a step runs in a worktree, it keeps a relative home
// from landing wherever a process happens to be (inside the user's
// repository), and -C from moving it.
func ResolveHome(env []string) ([]string, error) {
	h := getenv(env, "CAIRN_HOME")
	if h == "" || filepath.IsAbs(h) {
		return env, nil
	}
	abs, err := filepath.Abs(h)
	if err != nil {
		return nil, fmt.Errorf("CAIRN_HOME %q: %w", h, err)
	}
	return append(slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "CAIRN_HOME=") }), "CAIRN_HOME="+abs), nil
}

// Path is the config file's path under home.
func Path(home string) string { return filepath.Join(home, "config.toml") }

// ModelFor returns the model that [models.HARNESS] maps key (a tier or
// "default") to, with its field for positions.
func (c *Config) ModelFor(harness, key string) (ir.Pair, bool) {
	for _, m := range c.Models {
		if m.Harness != harness {
			continue
		}
		for _, t := range m.Tiers {
			if t.Name == key {
				return t, true
			}
		}
	}
	return ir.Pair{}, false
}

// CustomHarness returns the [harnesses.NAME] table of name.
func (c *Config) CustomHarness(name string) (Harness, bool) {
	for _, h := range c.Harnesses {
		if h.Name == name {
			return h, true
		}
	}
	return Harness{}, false
}

// EffectiveRepairCap is the config's repair_cap, or its default.
func (c *Config) EffectiveRepairCap() int {
	if c.RepairCap.Set {
		return c.RepairCap.Value
	}
	return DefaultRepairCap
}

// CustomHarnesses are c's [harnesses.NAME] tables, as the harness registry
// and a plan carry them.
func (c *Config) CustomHarnesses() []ir.CustomHarness {
	var out []ir.CustomHarness
	for _, h := range c.Harnesses {
		ch := ir.CustomHarness{Name: h.Name, Command: ir.Values(h.Command), Preflight: ir.Values(h.Preflight)}
		for _, u := range h.Usage {
			if u.Bad {
				continue
			}
			if ch.Usage == nil {
				ch.Usage = map[string]string{}
			}
			ch.Usage[u.Name] = u.Value
		}
		out = append(out, ch)
	}
	return out
}

// PlanNotify is c's [notify] as a plan carries it.
func (c *Config) PlanNotify() ir.PlanNotify {
	return ir.PlanNotify{
		Command: ir.Values(c.Notify.Command),
		On:      ir.Values(c.Notify.On),
		OnSet:   c.Notify.On.Set,
		Header:  c.Notify.Header,
	}
}

// PlanResources is c's [resources] as a plan carries it: its size and
// durations read, the wait DefaultResourceWait when the table sets none.
// A value that does not read is left out: Read refused it with its
// position, and a refused config makes no plan.
func (c *Config) PlanResources() ir.PlanResources {
	r := c.Resources
	p := ir.PlanResources{WaitText: DefaultResourceWait, Header: r.Header}
	p.Wait, _ = ir.ParseDuration(DefaultResourceWait)
	if r.MaxLoad.Set && !r.MaxLoad.Bad {
		p.MaxLoad = r.MaxLoad.Value
	}
	if f := r.MinFreeMemory; f.Set && !f.Bad {
		if n, err := parseSize(f.Value); err == nil {
			p.MinFreeMemory, p.MinFreeMemoryText = n, f.Value
		}
	}
	if f := r.Wait; f.Set && !f.Bad {
		if d, err := ir.ParseDuration(f.Value); err == nil {
			p.Wait, p.WaitText = d, f.Value
		}
	}
	return p
}
