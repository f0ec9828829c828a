package config

import (
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// sizePattern is parseSize's grammar as a regular expression.
const sizePattern = `^[0-9]+\s*([KkMmGgTt][Ii]?[Bb]?|[Bb])?\s*$`

// Keys are the keys of the config (docs/design.md §5), in the order suggestions prefer.
var Keys = []ir.Key{
	{Name: "harness", Type: ir.KeyString, Names: ir.NamesHarness, Pattern: ir.NamePattern,
		Doc: "The default harness of session steps that name none (built-in default: `claude`)."},
	{Name: "model", Type: ir.KeyString, Values: ir.Tiers, Names: ir.NamesModel,
		Doc: "The default model of session steps on the default harness: a model name or a tier."},
	{Name: "effort", Type: ir.KeyString, Values: ir.Efforts,
		Doc: "The default effort of session steps on the default harness: `low`, `medium`, `high`, `xhigh` or `max`."},
	{Name: "base_branch", Type: ir.KeyString,
		Doc: "The branch worktrees start from and skills are read at; else origin's default branch, else HEAD."},
	{Name: "repair_cap", Type: ir.KeyInt, Min: ir.AtLeast(0),
		Doc: "How many repair sessions a delivery may start (default 3); a process file's `[limits] repair_cap` may only lower it."},
	{Name: "merge_always", Type: ir.KeyBool,
		Doc: "`true`: a self-merge step merges without `cairn run --merge`."},
	{Name: "preflight_timeout", Type: ir.KeyString, Pattern: ir.DurationPattern,
		Doc: "How long each harness's version and login commands may take (default `30s`)."},
	{Name: "trusted", Type: ir.KeyStrings,
		Doc: "GitHub accounts whose issue text and comments are trusted: a run on an issue keeps only their comments."},
	{Name: "protected_paths", Type: ir.KeyStrings,
		Doc: "Globs of paths no self-merge may touch, in every process."},
	{Name: "process_path", Type: ir.KeyStrings,
		Doc: "Folders processes are looked up in after `$CAIRN_HOME/processes` (relative ones from the repository's root)."},
	{Name: "harnesses", Type: ir.KeyTableMap, NamePattern: ir.NamePattern, MaxLength: ir.MaxNameLength,
		Doc: "Custom harnesses, each `[harnesses.NAME]`: an agent CLI that takes the prompt on stdin and prints the final message on stdout.",
		Keys: []ir.Key{
			{Name: "command", Type: ir.KeyStrings, Required: true,
				Doc: "The harness's argv; items may hold `{{.Model}}`, `{{.Effort}}`, `{{.Access}}`, `{{.MaxTurns}}` and `{{.Worktree}}`."},
			{Name: "preflight", Type: ir.KeyStrings,
				Doc: "The argv that proves the harness can start, such as `[\"mybot\", \"--version\"]`."},
			{Name: "usage", Type: ir.KeyTable, Keys: usageKeys(),
				Doc: "Where the CLI's JSON output says what a session used: each figure with the JSON path that reads it (docs/costs.md)."},
		}},
	{Name: "models", Type: ir.KeyTableMap, Names: ir.NamesHarness,
		Doc:  "Model tiers mapped to a harness's models, each `[models.HARNESS]`.",
		Keys: tierKeyTable()},
	{Name: "resources", Type: ir.KeyTable,
		Doc: "What a run waits for before it starts a session; when `wait` runs out, the session starts anyway, with a warning.",
		Keys: []ir.Key{
			{Name: "max_load", Type: ir.KeyNumber, Min: ir.Above(0),
				Doc: "The load average the machine must be under, such as `8.0`."},
			{Name: "min_free_memory", Type: ir.KeyString, Pattern: sizePattern,
				Doc: "The memory that must be free, such as `2GiB` or `512MiB`."},
			{Name: "wait", Type: ir.KeyString, Pattern: ir.DurationPattern,
				Doc: "How long to wait for them before starting anyway (default `30m`)."},
		}},
	{Name: "notify", Type: ir.KeyTable,
		Doc: "A command told of a run's end.",
		Keys: []ir.Key{
			{Name: "command", Type: ir.KeyStrings,
				Doc: "The argv run when a run ends, with `CAIRN_PROCESS`, `CAIRN_STATUS` and `CAIRN_RUN` in its environment."},
			{Name: "on", Type: ir.KeyStrings, Values: notifyOn,
				Doc: "The ends that run it: `failure`, `success`."},
		}},
	{Name: "limits", Type: ir.KeyTable,
		Doc: "Ceilings a process file and the command line may only tighten.",
		Keys: []ir.Key{
			{Name: "access", Type: ir.KeyString, Values: ir.Accesses,
				Doc: "The most any session may do: `read`, `write` or `full`."},
			{Name: "budget_usd", Type: ir.KeyNumber, Min: ir.Above(0),
				Doc: "The most a run may spend, in US dollars: a number above 0."},
			{Name: "daily_budget_usd", Type: ir.KeyNumber, Min: ir.Above(0),
				Doc: "The most every run of this `CAIRN_HOME` that starts on one UTC day may spend together, in US dollars; only the config sets it."},
			{Name: "max_items", Type: ir.KeyInt, Min: ir.Above(0),
				Doc: "The most items a step's `for_each` may run over (default 20); a longer list fails the step before any item starts."},
		}},
	{Name: "prices", Type: ir.KeyTableMap,
		Doc: "What models cost, each `[prices.\"MODEL\"]`, over cairn's price table: a session whose CLI reports tokens and no cost is given an estimated cost from it (docs/costs.md).",
		Keys: []ir.Key{
			{Name: "input", Type: ir.KeyNumber, Min: ir.AtLeast(0), Required: true,
				Doc: "US dollars per million input tokens read at the full rate."},
			{Name: "output", Type: ir.KeyNumber, Min: ir.AtLeast(0), Required: true,
				Doc: "US dollars per million output tokens, reasoning included."},
			{Name: "cache_read", Type: ir.KeyNumber, Min: ir.AtLeast(0),
				Doc: "US dollars per million input tokens read from the prompt cache (default: the input rate)."},
			{Name: "cache_write", Type: ir.KeyNumber, Min: ir.AtLeast(0),
				Doc: "US dollars per million input tokens written to the prompt cache (default: the input rate)."},
		}},
}

// usageKeys are a custom harness's usage figures, each a JSON path.
func usageKeys() []ir.Key {
	keys := make([]ir.Key, 0, len(ir.UsageKeys))
	for _, name := range ir.UsageKeys {
		keys = append(keys, ir.Key{Name: name, Type: ir.KeyString,
			Doc: "The JSON path, in the CLI's output, of the session's " + strings.ReplaceAll(name, "_", " ") + "."})
	}
	return keys
}

// tierKeyTable are the keys of [models.HARNESS]: a model for each tier,
// and the default.
func tierKeyTable() []ir.Key {
	keys := make([]ir.Key, 0, len(ir.Tiers)+1)
	for _, t := range ir.Tiers {
		keys = append(keys, ir.Key{Name: t, Type: ir.KeyString, Doc: "The harness's model for the tier `" + t + "`."})
	}
	return append(keys, ir.Key{Name: "default", Type: ir.KeyString, Doc: "The harness's model for steps that name none."})
}

// The key names of the config's tables, from Keys, in the order
// suggestions prefer.
var (
	configKeys    = ir.KeyNames(Keys)
	harnessKeys   = ir.KeyNames(ir.SubKeys(Keys, "harnesses"))
	tierKeys      = ir.KeyNames(ir.SubKeys(Keys, "models"))
	resourcesKeys = ir.KeyNames(ir.SubKeys(Keys, "resources"))
	notifyKeys    = ir.KeyNames(ir.SubKeys(Keys, "notify"))
	limitsKeys    = ir.KeyNames(ir.SubKeys(Keys, "limits"))
	priceKeys     = ir.KeyNames(ir.SubKeys(Keys, "prices"))
)
