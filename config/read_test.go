package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

func diagLines(ds []ir.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%d:%d %s: %s", d.Range.Start.Line, d.Range.Start.Column, d.Rule, d.Message))
	}
	return out
}

func at(r ir.Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Column, r.End.Line, r.End.Column)
}

// TestReadExample reads docs/design.md §5's example config: every key, with its place.
func TestReadExample(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	c, diags := Read("config.toml", src)
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagLines(diags))
	}
	if c.File != "config.toml" || string(c.Source) != string(src) {
		t.Errorf("file %q", c.File)
	}
	for _, tc := range []struct {
		what string
		got  any
		want any
	}{
		{"harness", c.Harness.Value, "claude"},
		{"harness at", at(c.Harness.Range), "1:11-1:19"},
		{"harness key", at(c.Harness.Key), "1:1-1:8"},
		{"model", c.Model.Value, "sonnet"},
		{"effort", c.Effort.Value, "medium"},
		{"base_branch", c.BaseBranch.Value, "main"},
		{"repair_cap", c.RepairCap.Value, 3},
		{"repair_cap set", c.RepairCap.Set, true},
		{"merge_always", c.MergeAlways.Value, false},
		{"merge_always set", c.MergeAlways.Set, true},
		{"trusted", ir.Values(c.Trusted), []string{"alice"}},
		{"protected_paths", ir.Values(c.ProtectedPaths), []string{"infra/**"}},
		{"process_path", ir.Values(c.ProcessPath), []string{"_config/procedures"}},
		{"process_path item at", at(c.ProcessPath.Value[0].Range), "9:17-9:37"},
		{"harnesses", len(c.Harnesses), 1},
		{"harness name", c.Harnesses[0].Name, "mybot"},
		{"harness header", at(c.Harnesses[0].Header), "10:1-10:18"},
		{"harness command", ir.Values(c.Harnesses[0].Command), []string{"mybot", "--model", "{{.Model}}"}},
		{"harness preflight", ir.Values(c.Harnesses[0].Preflight), []string{"mybot", "--version"}},
		{"models", len(c.Models), 2},
		{"models claude", c.Models[0].Harness, "claude"},
		{"models claude header", at(c.Models[0].Header), "13:1-13:16"},
		{"models claude tiers", c.Models[0].Tiers[0].Name + "=" + c.Models[0].Tiers[0].Value, "balanced=sonnet"},
		{"models codex", c.Models[1].Tiers[0].Name + "=" + c.Models[1].Tiers[0].Value, "default=gpt-5-codex"},
		{"resources header", at(c.Resources.Header), "17:1-17:12"},
		{"max_load", c.Resources.MaxLoad.Value, 8.0},
		{"min_free_memory", c.Resources.MinFreeMemory.Value, "2GiB"},
		{"wait", c.Resources.Wait.Value, "30m"},
		{"notify header", at(c.Notify.Header), "21:1-21:9"},
		{"notify command", ir.Values(c.Notify.Command), []string{"notify-send", "cairn"}},
		{"notify on", ir.Values(c.Notify.On), []string{"failure", "success"}},
		{"limits header", at(c.Limits.Header), "24:1-24:9"},
		{"limits access", c.Limits.Access.Value, "write"},
		{"limits access at", at(c.Limits.Access.Range), "25:10-25:17"},
		{"limits budget_usd", c.Limits.BudgetUSD.Value, ir.Budget{USD: 20}},
		{"limits budget_usd at", at(c.Limits.BudgetUSD.Range), "26:14-26:19"},
	} {
		if fmt.Sprint(tc.got) != fmt.Sprint(tc.want) {
			t.Errorf("%s = %v; want %v", tc.what, tc.got, tc.want)
		}
	}
	if m, ok := c.ModelFor("codex", "default"); !ok || m.Value != "gpt-5-codex" {
		t.Errorf("ModelFor(codex, default) = %+v, %v", m, ok)
	}
	if h, ok := c.CustomHarness("mybot"); !ok || h.Name != "mybot" {
		t.Errorf("CustomHarness(mybot) = %+v, %v", h, ok)
	}
}

func TestReadRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "empty",
			src:  "",
			want: []string{},
		},
		{
			name: "inline spellings",
			src: `harnesses = { bot = { command = ["bot"] } }
models.codex.default = "m"
resources = { max_load = 8, wait = "1h30m", min_free_memory = "512MiB" }
notify = { on = ["failure"] }
`,
			want: []string{},
		},
		{
			name: "syntax",
			src:  "harness = \"claude\"\nmodel = sonnet\n",
			want: []string{`2:9 syntax: unexpected character U+0073 's' at start of value`},
		},
		{
			name: "unknown keys",
			src: `harnes = "x"
[harnesses.bot]
command = ["bot"]
prefligt = ["bot", "-v"]
[models.claude]
sonnet = "claude-sonnet-4"
balanse = "x"
gpt = "y"
[resources]
max_lod = 2
[notify]
onn = []
`,
			want: []string{
				`1:1 unknown-key: unknown key "harnes" at the top level of the config; did you mean "harness"?`,
				`4:1 unknown-key: unknown key "prefligt" in [harnesses.bot]; did you mean "preflight"?`,
				`6:1 unknown-key: unknown key "sonnet" in [models.claude]; did you mean "balanced"?`,
				`7:1 unknown-key: unknown key "balanse" in [models.claude]; did you mean "balanced"?`,
				`8:1 unknown-key: unknown key "gpt" in [models.claude]`,
				`10:1 unknown-key: unknown key "max_lod" in [resources]; did you mean "max_load"?`,
				`12:1 unknown-key: unknown key "onn" in [notify]; did you mean "on"?`,
			},
		},
		{
			name: "types",
			src: `harness = 1
model = ["a"]
repair_cap = "3"
merge_always = "no"
trusted = "alice"
process_path = [1]
harnesses = 3
[models.claude]
balanced = 4
[models]
codex = "x"
[resources]
max_load = "8"
min_free_memory = 2
wait = 30
[notify]
command = "notify-send"
`,
			want: []string{
				`1:11 type: "harness" must be a string, not an integer`,
				`2:9 type: "model" must be a string, not an array`,
				`3:14 type: "repair_cap" must be an integer, not a string`,
				`4:16 type: "merge_always" must be a boolean, not a string`,
				`5:11 type: "trusted" must be an array of strings, not a string`,
				`6:17 type: items of "process_path" must be strings, not an integer`,
				`7:13 type: "harnesses" must be a table, not an integer`,
				`9:12 type: "balanced" must be a string, not an integer`,
				`11:9 type: models of harness "codex" must be a table, not a string`,
				`13:12 type: "max_load" must be a number, not a string`,
				`14:19 type: "min_free_memory" must be a string, not an integer`,
				`15:8 type: "wait" must be a string, not an integer; write a duration as a string with its unit: "30m"`,
				`17:11 type: "command" must be an array of strings, not a string`,
			},
		},
		{
			name: "types of tables",
			src: `resources = 1
notify = []
[harnesses]
bot = "x"
[models]
codex = "x"
`,
			want: []string{
				`1:13 type: "resources" must be a table, not an integer`,
				`2:10 type: "notify" must be a table, not an array`,
				`4:7 type: harness "bot" must be a table, not a string`,
				`6:9 type: models of harness "codex" must be a table, not a string`,
			},
		},
		{
			name: "invalid values",
			src: `effort = "extreme"
repair_cap = -1
[harnesses.My_Bot]
command = []
[harnesses.nocmd]
preflight = ["x"]
[resources]
max_load = 0
min_free_memory = "2 gigs"
wait = "soon"
[notify]
on = ["failure", "sucess"]
`,
			want: []string{
				`1:10 invalid-value: invalid effort "extreme"; expected low, medium, high, xhigh or max`,
				`2:14 invalid-value: invalid repair_cap -1; it cannot be negative`,
				`3:12 invalid-value: invalid harness name "My_Bot"; use lowercase letters, digits and -, starting with a letter or digit`,
				`4:11 invalid-value: empty command of harness "My_Bot"; write its argv, such as ["My_Bot", "--model", "{{.Model}}"]`,
				`5:1 invalid-value: harness "nocmd" has no "command"; add its argv, such as command = ["nocmd"]`,
				`8:12 invalid-value: invalid max_load 0; it must be more than 0`,
				`9:19 invalid-value: invalid min_free_memory: size "2 gigs": unknown unit " gigs" (use B, K, M, G, T, KiB, MiB, GiB or TiB); write a size such as "2GiB" or "512MiB"`,
				`10:8 invalid-value: invalid wait: duration "soon": expected a number at "soon"; write a duration such as "30m"`,
				`12:18 invalid-value: invalid notify event "sucess"; expected failure or success (did you mean "success"?)`,
			},
		},
		{
			name: "more invalid values",
			src:  "effort = \"hihg\"\nharnesses.x.preflight = []\nresources.max_load = -2.5\npreflight_timeout = \"soon\"\n",
			want: []string{
				`1:10 invalid-value: invalid effort "hihg"; expected low, medium, high, xhigh or max (did you mean "high"?)`,
				`2:11 invalid-value: harness "x" has no "command"; add its argv, such as command = ["x"]`,
				`3:22 invalid-value: invalid max_load -2.5; it must be more than 0`,
				`4:21 invalid-value: invalid preflight_timeout: duration "soon": expected a number at "soon"; write a duration such as "30s"`,
			},
		},
		{
			name: "harness usage",
			src: `[harnesses.bot]
command = ["bot"]
[harnesses.bot.usage]
cost_usd = ".total_cost_usd"
turns = ".stats.models[0].turns"
input_tokens = "usage.input"
output_tokens = ".usage..out"
cache_read_tokens = ".a[x]"
cost = ".c"
cache_write_tokens = 3
`,
			want: []string{
				`6:16 invalid-value: invalid input_tokens path "usage.input" of harness "bot": a path starts with ".", such as ".usage.input_tokens"`,
				`7:17 invalid-value: invalid output_tokens path ".usage..out" of harness "bot": no key after the "." at 7; keys are letters, digits, _ and -`,
				`8:21 invalid-value: invalid cache_read_tokens path ".a[x]" of harness "bot": index "x" at 4 is not a number from 0`,
				`9:1 unknown-key: unknown key "cost" in [harnesses.bot.usage]`,
				`10:22 type: "cache_write_tokens" must be a string, not an integer`,
			},
		},
		{
			name: "limits",
			src:  "[limits]\naccess = \"ful\"\nacess = \"read\"\nrepair_cap = 2\n",
			want: []string{
				`2:10 invalid-value: invalid access "ful"; expected read, write or full (did you mean "full"?)`,
				`3:1 unknown-key: unknown key "acess" in [limits]; did you mean "access"?`,
				`4:1 unknown-key: unknown key "repair_cap" in [limits]`,
			},
		},
		{
			name: "limits budget_usd",
			src:  "[limits]\nbudget_usd = -1\n",
			want: []string{`2:14 invalid-value: invalid budget_usd -1; a budget must be more than 0`},
		},
		{
			name: "limits daily_budget_usd",
			src:  "[limits]\ndaily_budget_usd = 0\n",
			want: []string{`2:20 invalid-value: invalid daily_budget_usd 0; a budget must be more than 0`},
		},
		{
			name: "limits budget_usd zero",
			src:  "limits.budget_usd = 0.0\n",
			want: []string{`1:21 invalid-value: invalid budget_usd 0; a budget must be more than 0`},
		},
		{
			name: "limits budget_usd not a number",
			src:  "[limits]\nbudget_usd = \"abc\"\n",
			want: []string{`2:14 invalid-value: invalid budget_usd "abc"; write a number of US dollars, without quotes, such as 4.50`},
		},
		{
			name: "limits budget_usd infinite",
			src:  "[limits]\nbudget_usd = inf\nbudgt_usd = 1\n",
			want: []string{
				`2:14 invalid-value: invalid budget_usd +Inf; write a number of US dollars, such as 4.50`,
				`3:1 unknown-key: unknown key "budgt_usd" in [limits]; did you mean "budget_usd"?`,
			},
		},
		{
			name: "limits budget_usd type",
			src:  "[limits]\nbudget_usd = [4]\n",
			want: []string{`2:14 type: "budget_usd" must be a number, not an array`},
		},
		{
			name: "limits types",
			src:  "limits = 1\n",
			want: []string{`1:10 type: "limits" must be a table, not an integer`},
		},
		{
			name: "limits access type",
			src:  "limits.access = 2\n",
			want: []string{`1:17 type: "access" must be a string, not an integer`},
		},
		{
			name: "duplicates",
			src:  "model = \"a\"\nmodel = \"b\"\n[harnesses.bot]\ncommand = [\"bot\"]\n[harnesses.bot]\ncommand = [\"bot\"]\n",
			want: []string{
				`2:1 duplicate: key "model" is already defined in this table`,
				`5:12 duplicate: table "harnesses.bot" is already defined`,
			},
		},
		{
			name: "non-ASCII before the fault",
			src:  "base_branch = \"é-ü\"; \n",
			want: []string{`1:20 syntax: expected newline but got U+003B ';'`},
		},
		{
			name: "non-ASCII on the line of the fault",
			src:  "trusted = [\"ünï\", 3]\n",
			want: []string{`1:19 type: items of "trusted" must be strings, not an integer`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := Read("config.toml", []byte(tc.src))
			checkDiagnostics(t, "config.toml", []byte(tc.src), diags)
			if got := diagLines(diags); !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}

func TestReadInvalidKeepsValues(t *testing.T) {
	c, _ := Read("config.toml", []byte("max_load = 1\n[resources]\nmax_load = 8\nwait = \"x\"\n"))
	if !c.Resources.MaxLoad.Set || c.Resources.MaxLoad.Value != 8 || c.Resources.Wait.Value != "x" {
		t.Errorf("resources %+v", c.Resources)
	}
	c, _ = Read("config.toml", []byte("repair_cap = true\n"))
	if !c.RepairCap.Set || !c.RepairCap.Bad || c.EffectiveRepairCap() != 0 {
		t.Errorf("repair_cap %+v", c.RepairCap)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	c, diags := Load(dir)
	if c == nil || c.File != "" || len(diags) != 0 {
		t.Errorf("no file: %+v, %v", c, diags)
	}

	if err := os.WriteFile(Path(dir), []byte("repair_cap = 2\nfoo = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, diags = Load(dir)
	if c.File != Path(dir) || c.RepairCap.Value != 2 {
		t.Errorf("file: %+v", c)
	}
	if len(diags) != 1 || diags[0].Range.File != Path(dir) || diags[0].Rule != ir.RuleUnknownKey {
		t.Errorf("diagnostics: %+v", diags)
	}

	// A folder where the file should be cannot be read.
	unreadable := t.TempDir()
	if err := os.Mkdir(Path(unreadable), 0o755); err != nil {
		t.Fatal(err)
	}
	c, diags = Load(unreadable)
	if c == nil || c.File != "" || len(diags) != 1 || diags[0].Range.File != "" || diags[0].Severity != ir.Error ||
		!strings.Contains(diags[0].Message, Path(unreadable)) {
		t.Errorf("unreadable: %+v, %+v", c, diags)
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"2GiB", 2 << 30, true},
		{"512MiB", 512 << 20, true},
		{"1G", 1e9, true},
		{"100M", 100e6, true},
		{"4096", 4096, true},
		{"10B", 10, true},
		{"3kb", 3000, true},
		{"3Ki", 3 << 10, true},
		{"1TiB", 1 << 40, true},
		{"2 GiB", 2 << 30, true},
		{"0", 0, true},
		{"", 0, false},
		{"GiB", 0, false},
		{"1.5G", 0, false},
		{"-1G", 0, false},
		{"2 gigs", 0, false},
		{"1PiB", 0, false},
		{"9223372036854775807", 9223372036854775807, true},
		{"9223372036854775808", 0, false},
		{"9999999999TiB", 0, false},
	} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestPlan reads docs/design.md §5's example config as a plan carries it, and the empty
// config: no notification, no limits, the default wait.
func TestPlan(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := Read("config.toml", src)
	if got, want := fmt.Sprintf("%+v", c.PlanResources()), "{MaxLoad:8 MinFreeMemory:2147483648 MinFreeMemoryText:2GiB Wait:30m0s WaitText:30m Header:config.toml:17:1}"; got != want {
		t.Errorf("resources %s; want %s", got, want)
	}
	if n := c.PlanNotify(); !slices.Equal(n.Command, []string{"notify-send", "cairn"}) || !slices.Equal(n.On, []string{"failure", "success"}) || !n.OnSet || n.Header.Start.Line != 21 {
		t.Errorf("notify %+v", n)
	}
	if h := c.CustomHarnesses(); len(h) != 1 || h[0].Name != "mybot" || !slices.Equal(h[0].Command, []string{"mybot", "--model", "{{.Model}}"}) || !slices.Equal(h[0].Preflight, []string{"mybot", "--version"}) {
		t.Errorf("custom harnesses %+v", h)
	}

	empty := &Config{}
	if r := empty.PlanResources(); r.MaxLoad != 0 || r.MinFreeMemory != 0 || r.Wait != 30*time.Minute || r.WaitText != DefaultResourceWait {
		t.Errorf("no [resources]: %+v", r)
	}
	if n := empty.PlanNotify(); len(n.Command) != 0 || n.OnSet {
		t.Errorf("no [notify]: %+v", n)
	}

	c, _ = Read("config.toml", []byte("[resources]\nmin_free_memory = \"lots\"\nwait = \"0s\"\n[notify]\ncommand = [\"true\"]\non = []\n"))
	if r := c.PlanResources(); r.MinFreeMemory != 0 || r.MinFreeMemoryText != "" || r.Wait != 0 || r.WaitText != "0s" {
		t.Errorf("a size refused, no wait: %+v", r)
	}
	if n := c.PlanNotify(); !n.OnSet || len(n.On) != 0 {
		t.Errorf("on = []: %+v", n)
	}
}

func TestBudgetCeiling(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string
	}{
		{"[limits]\nbudget_usd = 2.5\n", "2.5 true"},
		{"[limits]\nbudget_usd = 3\n", "3 true"},
		{"[limits]\naccess = \"read\"\n", "0 false"},
		{"[limits]\nbudget_usd = 0\n", "0 false"},
		{"[limits]\nbudget_usd = \"2.5\"\n", "0 false"},
		{"[limits]\nbudget_usd = true\n", "0 false"},
		{"", "0 false"},
	} {
		c, _ := Read("config.toml", []byte(tc.src))
		f, ok := c.BudgetCeiling()
		if got := fmt.Sprintf("%v %v", f.Value.USD, ok); got != tc.want {
			t.Errorf("%q: BudgetCeiling = %s; want %s", tc.src, got, tc.want)
		}
	}
}

// TestCustomHarnessUsage: a custom harness carries the usage paths of its
// [harnesses.NAME.usage], but those refused.
func TestCustomHarnessUsage(t *testing.T) {
	c, _ := Read("config.toml", []byte("[harnesses.bot]\ncommand = [\"bot\"]\n[harnesses.bot.usage]\ncost_usd = \".total_cost_usd\"\nturns = \"turns\"\n"))
	h := c.CustomHarnesses()
	if len(h) != 1 || len(h[0].Usage) != 1 || h[0].Usage["cost_usd"] != ".total_cost_usd" {
		t.Errorf("custom harnesses %+v; want bot with its cost_usd path only", h)
	}
}

// TestPrices reads [prices."MODEL"]: the rates as the registry lays them
// over cairn's table, a cache rate left out the input rate, and a table
// that was refused left out.
func TestPrices(t *testing.T) {
	src := `[prices."gpt-5.1"]
input = 2
output = 8
cache_read = 0.2
cache_write = 0

[prices.mine]
input = 1
output = 4

[prices.bad]
input = -1
output = 4

[prices.half]
input = 1
`
	c, diags := Read("config.toml", []byte(src))
	want := []string{
		`12:9 invalid-value: invalid input price -1 of model "bad"; write US dollars per million tokens, a number from 0`,
		`15:1 invalid-value: price of model "half" has no "output"; add it, in US dollars per million tokens`,
	}
	if got := diagLines(diags); !slices.Equal(got, want) {
		t.Errorf("diagnostics\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got := c.PriceOverrides()
	wantPrices := map[string]ir.Price{
		"gpt-5.1": {Input: 2, Output: 8, CacheRead: 0.2, CacheWrite: 0, Source: `the config's [prices."gpt-5.1"]`},
		"mine":    {Input: 1, Output: 4, CacheRead: 1, CacheWrite: 1, Source: "the config's [prices.mine]"},
	}
	if len(got) != len(wantPrices) {
		t.Errorf("prices %+v; want %+v", got, wantPrices)
	}
	for m, w := range wantPrices {
		if got[m] != w {
			t.Errorf("price of %q: %+v; want %+v", m, got[m], w)
		}
	}
}

// TestDailyBudget reads [limits] daily_budget_usd, the config's alone.
func TestDailyBudget(t *testing.T) {
	c, diags := Read("config.toml", []byte("[limits]\ndaily_budget_usd = 12.5\n"))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagLines(diags))
	}
	if d, ok := c.DailyBudget(); !ok || d.Value.USD != 12.5 || at(d.Range) != "2:20-2:24" {
		t.Errorf("DailyBudget() = %+v, %v; want $12.50 at 2:20", d, ok)
	}
	if _, ok := (&Config{}).DailyBudget(); ok {
		t.Error("no config: a daily budget")
	}
}
