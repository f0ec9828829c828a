package parse

import (
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// The keys a TOML process file and a card share, by their TOML names: a
// card spells each with hyphens.
var (
	keyDescription = ir.Key{Name: "description", Type: ir.KeyString,
		Doc: "One line saying what this is for, shown by `cairn list` and `cairn check`."}
	keyRunExpiry = ir.Key{Name: "run_expiry", Type: ir.KeyString, Pattern: expiryPattern,
		Doc: "How long a finished run's record is kept: a duration such as `30d` (the default), or `never`."}
	keyFailedRunExpiry = ir.Key{Name: "failed_run_expiry", Type: ir.KeyString, Pattern: expiryPattern,
		Doc: "How long a failed run's record is kept: a duration such as `90d` (the default), or `never`."}
	keyAccess = ir.Key{Name: "access", Type: ir.KeyString, Values: ir.Accesses,
		Doc: "What an agent may do: `read` (reads files, runs read-only commands, changes nothing), `write` (edits files and runs any command in its worktree; the default) or `full` (no restriction, for trusted, disposable machines). The config's `[limits] access` and `--access` only lower it."}
	keyRunBudget = ir.Key{Name: "budget_usd", Type: ir.KeyNumber, Min: ir.Above(0),
		Doc: "The most the run may spend, in US dollars, as the harnesses' CLIs report cost: a number above 0 (`4`, `2.50`), no higher than the config's `[limits] budget_usd`."}
	keyStepBudget = ir.Key{Name: "budget_usd", Type: ir.KeyNumber, Min: ir.Above(0),
		Doc: "The most this step's sessions may spend, in US dollars: a number above 0, within the run's budget."}
	keyModel = ir.Key{Name: "model", Type: ir.KeyString, Values: ir.Tiers, Names: ir.NamesModel,
		Doc: "The session's model: a model name, or a tier (`efficient`, `balanced`, `strong`, `strongest`) the harness maps to its models."}
	keyMaxTurns = ir.Key{Name: "max_turns", Type: ir.KeyInt, Min: ir.AtLeast(1),
		Doc: "The most turns a session may take (default 20)."}
	keyShells = ir.Key{Name: "shells", Type: ir.KeyStrings,
		Doc: "Bash scripts, run in order in the step's worktree. In a precheck, `exit $CHECK_SKIP` skips the step; exit 3 is inconclusive."}
	keyInstructions = ir.Key{Name: "instructions", Type: ir.KeyStrings,
		Doc: "Criteria a review model judges the step's changes against (validate only)."}
	keyWhys = ir.Key{Name: "whys", Type: ir.KeyStrings,
		Doc: "Why the phase matters, in plain words: shown when it skips or fails, and given to the judge."}
	keySeverity = ir.Key{Name: "severity", Type: ir.KeyString, Values: ir.Severities,
		Doc: "What a failed validate does: `warn` records it and goes on, `abort` (the default) fails the step, `review` gives the step's session the findings to fix."}
	keyJudgeModel = ir.Key{Name: "model", Type: ir.KeyString, Values: ir.Tiers, Names: ir.NamesModel,
		Doc: "The judge's model for the instructions: a tier or a model name (default the tier `balanced`)."}
	keyGitHub = ir.Key{Name: "github", Type: ir.KeyTable,
		Doc: "How the process's GitHub Actions workflow runs (`cairn compile --target github-actions`); `cairn run` and the bash target read none of it.",
		Keys: []ir.Key{
			{Name: "runs_on", Type: ir.KeyString,
				Doc: "The runner label of every job (default `ubuntu-latest`)."},
			{Name: "schedule", Type: ir.KeyStrings,
				Doc: "Cron schedules (five fields) that start the workflow, besides workflow_dispatch."},
			{Name: "timeout_minutes", Type: ir.KeyInt, Min: ir.AtLeast(1),
				Doc: "Each job's timeout, in minutes (at least 1)."},
			{Name: "label", Type: ir.KeyString,
				Doc: "The label whose setting on an issue, by an account with write access, starts the workflow of a process with an issue-branch worktree on that issue (default `cairn`)."},
			{Name: "push_token", Type: ir.KeyString,
				Doc: "The repository secret holding the token a delivery pushes and opens its pull request with: a fine-grained token with contents and pull-requests write access (and issues write, for a spec's tickets). Pushes made with the workflow's own token start no workflow, so without one the pull request's checks never run: it is opened and left for review, and no self-merge merges it."},
		}}
)

// expiryPattern is a run expiry: a duration, or "never".
const expiryPattern = "^(never|([0-9]{1,9}w)?([0-9]{1,9}d)?([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)$"

// tomlPhaseKeyTable are the keys of a TOML or HCL step's precheck and
// validate.
var tomlPhaseKeyTable = []ir.Key{keyShells, keyInstructions, keyWhys, keySeverity, keyJudgeModel}

// TOMLKeys are the keys of a TOML process file (docs/design.md §4.1), in the order
// suggestions prefer. The HCL front-end reads the same keys, a table as a
// block (HCLBlock).
var TOMLKeys = []ir.Key{
	{Name: "version", Type: ir.KeyInt, Values: []string{"1"}, Required: true,
		Doc: "The format's version: required, and 1."},
	keyDescription,
	{Name: "default_worktree", Type: ir.KeyString, Names: ir.NamesWorktree,
		Doc: "The declared worktree of the steps that name none; without it they share an implicit throwaway worktree called `default`."},
	{Name: "commit", Type: ir.KeyBool,
		Doc: "Commit mode: `true` makes a commit per step and records the run in the repository, as a card does."},
	keyRunExpiry,
	keyFailedRunExpiry,
	withDoc(keyAccess, "The default access of the session steps: `read`, `write` (the default) or `full`. The config's `[limits] access` and `--access` only lower it."),
	{Name: "limits", Type: ir.KeyTable,
		Doc: "Limits of this process, which may only tighten the config's and the command line's.",
		Keys: []ir.Key{
			{Name: "repair_cap", Type: ir.KeyInt, Min: ir.AtLeast(0),
				Doc: "How many repair sessions a delivery may start, no higher than the config's `repair_cap` (default 3)."},
			{Name: "self_merge", Type: ir.KeyBool,
				Doc: "Only `false` is allowed: it forbids a self-merge."},
			{Name: "protected_paths", Type: ir.KeyStrings,
				Doc: "Globs of paths no self-merge may touch (`migrations/**`)."},
			keyRunBudget,
		}},
	keyGitHub,
	{Name: "worktrees", Type: ir.KeyTableMap, NamePattern: ir.NamePattern, MaxLength: ir.MaxNameLength,
		Doc: "The worktrees the steps run in, each `[worktrees.NAME]` with its kind.",
		Keys: []ir.Key{
			{Name: "kind", Type: ir.KeyString, Values: ir.WorktreeKinds, Required: true,
				Doc: "`throwaway` (a fresh worktree, deleted after the run), `issue-branch` (the issue's branch, delivered as a pull request) or `checkout` (the repository's own working tree)."},
			{Name: "copy", Type: ir.KeyStrings,
				Doc: "Globs (doublestar: `**` crosses folders) of files of your checkout that git does not track, such as `.env` or `config/local.yml`, copied into the worktree after it is made, their modes kept; paths from the repository's root. Not for a `checkout`. The repository's `.worktreeinclude` adds its patterns."},
			{Name: "setup", Type: ir.KeyString,
				Doc: "A bash script run once in the worktree, after copying and before its first step, with the steps' environment (`npm ci`, `cp .env.example .env`). Its output is kept as `worktrees/NAME.setup.log`; a failure fails the first step in the worktree. What it and copy leave is not the agents' work: no patch or commit holds it."},
			{Name: "setup_timeout", Type: ir.KeyString, Pattern: ir.DurationPattern,
				Doc: "How long setup may run (default `10m`)."},
		}},
	{Name: "steps", Type: ir.KeyTables,
		Doc: "The steps, run one after another (`[[steps]]`) unless a step's needs say what it waits for; consecutive steps of one parallel group run together.",
		Keys: []ir.Key{
			{Name: "name", Type: ir.KeyString, Pattern: ir.NamePattern, MaxLength: ir.MaxNameLength,
				Doc: "The step's name: `[a-z0-9][a-z0-9-]*`, unique in the file."},
			keyDescription,
			{Name: "skill", Type: ir.KeyString, Names: ir.NamesSkill,
				Doc: "A session running this skill: `.agents/skills/NAME/SKILL.md` or `.claude/skills/NAME/SKILL.md` in the repository, `$CAIRN_HOME/skills/NAME`, or a built-in `cairn-NAME`. A step has exactly one of skill, prompt, command and catalogue."},
			{Name: "prompt", Type: ir.KeyString,
				Doc: "A session with this inline prompt. A step has exactly one of skill, prompt, command and catalogue."},
			{Name: "command", Type: ir.KeyString,
				Doc: "A bash script, run with `bash -euo pipefail -c` in the step's worktree. A step has exactly one of skill, prompt, command and catalogue."},
			{Name: "catalogue", Type: ir.KeyString, Values: ir.Catalogues,
				Doc: "A step cairn provides: `delivery` (a pull request of the issue branch), `self-merge` or `run-published-issue` (which also takes `process` and `spec_process`)."},
			{Name: "harness", Type: ir.KeyString, Names: ir.NamesHarness, Pattern: ir.NamePattern,
				Doc: "The agent CLI of the session: a built-in harness (`claude`, `codex`, `gemini`, `opencode`) or the config's `[harnesses.NAME]`. Else `--harness`, the config's `harness`, then `claude`."},
			keyModel,
			{Name: "effort", Type: ir.KeyString, Values: ir.Efforts,
				Doc: "How hard the session's model thinks: `low`, `medium`, `high`, `xhigh` or `max`, as the harness can take."},
			withDoc(keyAccess, "What this step's agent may do: `read`, `write` or `full`; else the top-level `access`, else `write`."),
			keyMaxTurns,
			keyStepBudget,
			{Name: "worktree", Type: ir.KeyString, Names: ir.NamesWorktree,
				Doc: "The declared worktree the step runs in (default `default_worktree`, else the implicit `default`)."},
			{Name: "parallel", Type: ir.KeyString, Pattern: ir.NamePattern, MaxLength: ir.MaxNameLength,
				Doc: "A group name: consecutive steps with one group name run together."},
			{Name: "needs", Type: ir.KeyStrings, Names: ir.NamesStep,
				Doc: "The steps this one waits for, each above it in the file: it starts as soon as they have ended (succeeded, or failed but optional). Without needs a step waits for the step or parallel group before it."},
			{Name: "when", Type: ir.KeyString,
				Doc: "A condition over the steps it waits for: `steps.NAME.outcome` (`\"succeeded\"`, `\"failed\"`, `\"skipped\"`), `steps.NAME.output.FIELD`, with `== != < <= > >= && || !` and `contains`, `length`, `startswith`, `endswith`; false skips the step. In HCL a native expression, in TOML and cards a string."},
			{Name: "for_each", Type: ir.KeyString,
				Doc: "A list to run the step over, once per item: an expression over the steps it waits for that gives a list, such as `steps.plan.output.tickets` or `[\"api\", \"web\"]`. Each run reads its item as `item` in `when`, `{{ item }}` in its prompt and `$CAIRN_ITEM` (JSON) in its environment, in its own throwaway worktree when it edits; at most `max_items` items (the config's `[limits]`, default 20). In HCL a native expression, in TOML and cards a string."},
			{Name: "optional", Type: ir.KeyBool,
				Doc: "`true`: a failure is recorded and the run goes on."},
			{Name: "timeout", Type: ir.KeyString, Pattern: ir.DurationPattern,
				Doc: "The most the step may take: a duration such as `45m` or `1h30m`."},
			{Name: "env", Type: ir.KeyStringMap, NamePattern: ir.EnvNamePattern,
				Doc: "Environment variables of the step's commands and sessions: `env = { GOFLAGS = \"-count=1\" }`."},
			keyOutputSchema,
			{Name: "process", Type: ir.KeyString, Names: ir.NamesProcess,
				Doc: "run-published-issue only: the process run on the published issue."},
			{Name: "spec_process", Type: ir.KeyString, Names: ir.NamesProcess,
				Doc: "run-published-issue only: the process run on a published spec issue."},
			{Name: "precheck", Type: ir.KeyTable, Keys: tomlPhaseKeyTable,
				Doc: "The phase that runs first: its shells may skip the step (`exit $CHECK_SKIP`)."},
			{Name: "validate", Type: ir.KeyTable, Keys: tomlPhaseKeyTable,
				Doc: "The phase that runs last: shells, then instructions judged by a model, with a severity."},
		}},
}

// keyOutputSchema is a step's output_schema (a card's output-schema).
var keyOutputSchema = ir.Key{Name: "output_schema", Type: ir.KeyJSON, Or: ir.KeyString,
	Doc: "The JSON Schema of the step's output: inline (`{ type = \"object\", required = [\"severity\"] }`) or the path of a `.json` file in the repository. A command writes its output as JSON to `$CAIRN_OUTPUT`; a session gives it in its final message. An output that does not match fails the step; a valid one is saved as `results/STEP.json`. Keywords: type, properties, required, items, enum, const, additionalProperties (a boolean), minimum, maximum, minLength, maxLength, minItems, maxItems, title, description, $schema."}

// cardPhaseKeyTable are the keys of a card step's phases; run alone takes
// agents, validate alone instructions, severity and model.
var cardPhaseKeyTable = []ir.Key{
	keyShells,
	{Name: "agents", Type: ir.KeyTables,
		Doc: "Agent sessions of the run phase, run in order after its shells.",
		Keys: []ir.Key{
			{Name: "prompt", Type: ir.KeyString, Required: true,
				Doc: "The session's prompt (required)."},
			keyModel,
			withDoc(keyAccess, "What this agent may do: `read`, `write` or `full`; else the card's `access`, else `write`."),
			keyMaxTurns,
			keyStepBudget,
		}},
	keyInstructions, keyWhys, keySeverity, keyJudgeModel,
}

// cardCheckKeyTable are the keys of a card's precheck and validate: a
// run's but agents.
var cardCheckKeyTable = slices.DeleteFunc(slices.Clone(cardPhaseKeyTable), func(k ir.Key) bool { return k.Name == "agents" })

// CardKeys are the keys of a card's front matter (docs/design.md §4.3), in the order
// suggestions prefer: the TOML keys a card has, spelt with hyphens.
var CardKeys = hyphenated([]ir.Key{
	keyDescription,
	keyRunExpiry,
	keyFailedRunExpiry,
	withDoc(keyAccess, "The agents' default access: `read`, `write` (the default) or `full`. A card runs in your own working tree, so `full` is warned about."),
	keyRunBudget,
	keyGitHub,
	{Name: "steps", Type: ir.KeyTables,
		Doc: "The steps, run one after another in the repository's own working tree.",
		Keys: []ir.Key{
			{Name: "id", Type: ir.KeyString, Pattern: ir.NamePattern, MaxLength: ir.MaxNameLength,
				Doc: "The step's name: `[a-z0-9][a-z0-9-]*`, unique in the card."},
			keyDescription,
			{Name: "needs", Type: ir.KeyStrings, Names: ir.NamesStep,
				Doc: "The steps this one waits for, each above it in the file: it starts as soon as they have ended (succeeded, or failed but optional). Without needs a step waits for the step or parallel group before it."},
			{Name: "when", Type: ir.KeyString,
				Doc: "A condition over the steps it waits for: `steps.NAME.outcome` (`\"succeeded\"`, `\"failed\"`, `\"skipped\"`), `steps.NAME.output.FIELD`, with `== != < <= > >= && || !` and `contains`, `length`, `startswith`, `endswith`; false skips the step. In HCL a native expression, in TOML and cards a string."},
			{Name: "for_each", Type: ir.KeyString,
				Doc: "A list to run the step over, once per item: an expression over the steps it waits for that gives a list, such as `steps.plan.output.tickets` or `[\"api\", \"web\"]`. Each run reads its item as `item` in `when`, `{{ item }}` in its prompt and `$CAIRN_ITEM` (JSON) in its environment, in its own throwaway worktree when it edits; at most `max_items` items (the config's `[limits]`, default 20). In HCL a native expression, in TOML and cards a string."},
			keyOutputSchema,
			{Name: "precheck", Type: ir.KeyTable, Keys: cardCheckKeyTable,
				Doc: "The phase that runs first: its shells may skip the step (`exit $CHECK_SKIP`)."},
			{Name: "run", Type: ir.KeyTable, Keys: cardPhaseKeyTable,
				Doc: "The phase that does the work: shells, then agents."},
			{Name: "validate", Type: ir.KeyTable, Keys: cardCheckKeyTable,
				Doc: "The phase that runs last: shells, then instructions judged by a model, with a severity."},
		}},
})

// withDoc is k saying doc.
func withDoc(k ir.Key, doc string) ir.Key {
	k.Doc = doc
	return k
}

// hyphenated spells keys and their tables' keys with hyphens, as a card
// does.
func hyphenated(keys []ir.Key) []ir.Key {
	out := make([]ir.Key, len(keys))
	for i, k := range keys {
		k.Name = strings.ReplaceAll(k.Name, "_", "-")
		if k.Keys != nil {
			k.Keys = hyphenated(k.Keys)
		}
		out[i] = k
	}
	return out
}

// HCLBlock is the block type that writes the table key k in an HCL process
// file: the table's own name (limits, precheck), or, for a table of named
// or listed tables, one of them (worktree "a", step "hunt").
func HCLBlock(k ir.Key) string {
	switch k.Type {
	case ir.KeyTables, ir.KeyTableMap:
		return strings.TrimSuffix(k.Name, "s")
	}
	return k.Name
}
