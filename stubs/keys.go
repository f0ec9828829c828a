package stubs

import (
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// attemptKeyTable are the keys of one session's answer: a stub's own, or
// each of its [[stubs.STEP.attempts]].
var attemptKeyTable = []ir.Key{
	{Name: "result", Type: ir.KeyString,
		Doc: "The session's final message (or, for a catalogue step, its result)."},
	{Name: "result_file", Type: ir.KeyString,
		Doc: "A file holding the final message, relative to this file and inside the repository; instead of `result`."},
	{Name: "outcome", Type: ir.KeyString, Values: outcomes,
		Doc: "How the session ends: `succeeded` (the default) or `failed`, which takes a `cause`."},
	{Name: "cause", Type: ir.KeyString,
		Doc: "Why a session with `outcome = \"failed\"` failed."},
	{Name: "usage", Type: ir.KeyTable, Keys: usageKeyTable(),
		Doc: "What the session used, counted as a CLI's report is, against every budget: `{ turns = 12, cost_usd = 0.84 }`."},
	{Name: "verdict", Type: ir.KeyString, Values: verdicts,
		Doc: "The step's judge's verdict on this attempt: `pass`, `fail`, or `none` (no verdict: the step ends inconclusive). Without it the judge passes."},
}

// stubKeyTable are the keys of a [stubs.STEP] table.
var stubKeyTable = append(append([]ir.Key{}, attemptKeyTable...),
	ir.Key{Name: "attempts", Type: ir.KeyTables, Keys: attemptKeyTable,
		Doc: "A step with review retries: its first session's answer, then each retry's, in order; the last repeats."},
	ir.Key{Name: "exit", Type: ir.KeyInt,
		Doc: "A command step's exit code (required for a command step's stub)."},
	ir.Key{Name: "stdout", Type: ir.KeyString,
		Doc: "A command step's output: its result."},
	ir.Key{Name: "output", Type: ir.KeyJSON,
		Doc: "The step's typed output, a table, for a step with an `output_schema`, which `cairn check --stubs` holds it to: `output = { severity = \"high\" }`."},
)

// stubsKey is the stubs table of a stubs file, and the inline one of a
// test file.
var stubsKey = ir.Key{Name: "stubs", Type: ir.KeyTableMap, Names: ir.NamesStep, Keys: stubKeyTable,
	Doc: "One `[stubs.STEP]` table per step answered instead of an agent: a session's result, outcome, usage and verdict; a command's exit and stdout; a catalogue step's outcome."}

// StubsKeys are the keys of a stubs file, in the order suggestions prefer.
var StubsKeys = []ir.Key{stubsKey}

// TestKeys are the keys of a test file, in the order suggestions prefer.
var TestKeys = []ir.Key{
	{Name: "process", Type: ir.KeyString, Names: ir.NamesProcess, Required: true,
		Doc: "The process the test runs: a name (looked up as `cairn run` does), or a path, absolute or relative to this file."},
	{Name: "directive", Type: ir.KeyString,
		Doc: "The run's directive, as `cairn run NAME DIRECTIVE` gives it."},
	{Name: "jobs", Type: ir.KeyInt, Min: ir.AtLeast(0),
		Doc: "How many steps of a parallel group run at once (`--jobs`; 0 is all)."},
	{Name: "budget_usd", Type: ir.KeyNumber, Min: ir.Above(0),
		Doc: "The run's budget in US dollars (`--budget`)."},
	withType(stubsKey, ir.KeyString,
		"The stubs: a stubs file, relative to this file, or inline `[stubs.STEP]` tables."),
	{Name: "expect", Type: ir.KeyTable,
		Doc: "How the run must end; without `status` or `exit`, it is expected to succeed.",
		Keys: []ir.Key{
			{Name: "status", Type: ir.KeyString, Values: statuses,
				Doc: "The run's status: `succeeded`, `failed`, `inconclusive` or `interrupted`."},
			{Name: "exit", Type: ir.KeyInt,
				Doc: "The code `cairn run` would exit with."},
			{Name: "output_contains", Type: ir.KeyStrings,
				Doc: "Substrings of what the run prints on stdout (its last stage's results)."},
			{Name: "steps", Type: ir.KeyStringMap, Names: ir.NamesStep, Values: stepEnds,
				Doc: "Each named step's outcome: `succeeded`, `failed`, `inconclusive`, `skipped`, `cancelled` or `interrupted`."},
			{Name: "outputs", Type: ir.KeyJSON, Names: ir.NamesStep,
				Doc: "Values of named steps' typed outputs, field by field: `outputs = { triage = { severity = \"high\" } }` holds the output's severity to \"high\" and says nothing of its other fields."},
		}},
}

// withType is k that may also hold a value of type or, saying doc.
func withType(k ir.Key, or ir.KeyType, doc string) ir.Key {
	k.Or, k.Doc = or, doc
	return k
}

// usageKeyTable are the figures of a stub's usage: counts, and the cost.
func usageKeyTable() []ir.Key {
	keys := make([]ir.Key, 0, len(ir.UsageKeys))
	for _, name := range ir.UsageKeys {
		k := ir.Key{Name: name, Type: ir.KeyInt, Min: ir.AtLeast(0),
			Doc: "The session's " + strings.ReplaceAll(name, "_", " ") + ", a whole number."}
		if name == "cost_usd" {
			k = ir.Key{Name: name, Type: ir.KeyNumber, Min: ir.AtLeast(0),
				Doc: "What the session cost, in US dollars."}
		}
		keys = append(keys, k)
	}
	return keys
}

// The key names of the files' tables, from StubsKeys and TestKeys, in the
// order suggestions prefer.
var (
	stubsFileKeys = ir.KeyNames(StubsKeys)
	stubKeys      = ir.KeyNames(stubKeyTable)
	attemptKeys   = ir.KeyNames(attemptKeyTable)
	testKeys      = ir.KeyNames(TestKeys)
	expectKeys    = ir.KeyNames(ir.SubKeys(TestKeys, "expect"))
)
