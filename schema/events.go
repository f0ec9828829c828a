package schema

import (
	"slices"

	"github.com/cairn-dev/cairn/record"
)

// Events is what `cairn schema events` calls the schema of the lines
// `cairn run --json` writes (record.RunEvent), and its file's name in
// docs/schema.
const Events = "events"

// eventField is one field of a run event: its name, schema and doc.
type eventField struct {
	name string
	doc  string
	// value is the field's schema, less its description.
	value object
}

// eventFields are the fields of record.RunEvent, in its order.
var eventFields = []eventField{
	{"v", "The version of the events' schema: it changes when a field changes its meaning or goes away, not when one is added.", object{{"const", record.RunEventVersion}}},
	{"type", "What the event tells.", object{{"enum", []record.RunEventType{record.EventRunStart, record.EventStepStart, record.EventStepEnd, record.EventWarning, record.EventRunEnd}}}},
	{"time", "When it happened, RFC 3339 in UTC.", object{{"type", "string"}, {"format", "date-time"}}},
	{"run", "The run: its folder's name, which cairn show, status and resume take.", object{{"type", "string"}, {"minLength", 1}}},
	{"process", "The process run.", object{{"type", "string"}}},
	{"dir", "The run folder, absolute: its record, log and results.", object{{"type", "string"}}},
	{"resumed", "The run is a resumed one (cairn resume).", object{{"type", "boolean"}}},
	{"stubbed", "The run is a stubbed one: its agents answered from stubs.", object{{"type", "boolean"}}},
	{"step", "The step (STEP[N] for item N of a step with for_each).", object{{"type", "string"}, {"minLength", 1}}},
	{"of", "For an item of a step with for_each: that step.", object{{"type", "string"}}},
	{"index", "For an item of a step with for_each: the item's place in its list, from 0.", object{{"type", "integer"}, {"minimum", 0}}},
	{"item", "For an item of a step with for_each: the item, as JSON.", object{}},
	{"kind", "The kind of the step's actions (command, session, ...), joined by + when they differ.", object{{"type", "string"}}},
	{"worktree", "The worktree the step works in.", object{{"type", "string"}}},
	{"harness", "The harness of the step's sessions.", object{{"type", "string"}}},
	{"model", "The model of the step's sessions.", object{{"type", "string"}}},
	{"effort", "The effort of the step's sessions.", object{{"type", "string"}}},
	{"optional", "The step is optional: its failure fails no run.", object{{"type", "boolean"}}},
	{"duration_ms", "How long the step or the run took, in milliseconds.", object{{"type", "integer"}, {"minimum", 0}}},
	{"usage", "What the sessions of the step (or of the whole run) used, each figure only when a CLI reported it.", object{
		{"type", "object"},
		{"properties", object{
			{"turns", object{{"description", "Agent turns."}, {"type", "integer"}, {"minimum", 0}}},
			{"tokens_in", object{{"description", "Input tokens, read from the prompt cache or not."}, {"type", "integer"}, {"minimum", 0}}},
			{"tokens_out", object{{"description", "Output tokens."}, {"type", "integer"}, {"minimum", 0}}},
			{"cost_usd", object{{"description", "Cost in US dollars."}, {"type", "number"}, {"minimum", 0}}},
			{"cost_estimated", object{{"description", "cairn estimated the cost from its price table: the CLI reported tokens and no cost."}, {"type", "boolean"}}},
		}},
		{"additionalProperties", false},
	}},
	{"outcome", "How the step ended.", object{{"enum", []record.Outcome{record.Succeeded, record.Failed, record.Inconclusive, record.Skipped, record.Cancelled, record.Interrupted}}}},
	{"result", "The step's result file, relative to the run folder, once written.", object{{"type", "string"}}},
	{"message", "What the warning says.", object{{"type", "string"}, {"minLength", 1}}},
	{"status", "How the run ended.", object{{"enum", []record.Status{record.StatusSucceeded, record.StatusFailed, record.StatusInterrupted, record.StatusInconclusive}}}},
	{"exit_code", "The step's exit code; for run_end, the exit code cairn ends with.", object{{"type", "integer"}}},
	{"cause", "Why the step failed or was skipped; for run_end, what kept the run from running its steps.", object{{"type", "string"}}},
}

// eventTypes are, for each type of event, the fields it may carry beyond
// v, type, time and run, and those it must.
var eventTypes = []struct {
	typ      record.RunEventType
	fields   []string
	required []string
}{
	{record.EventRunStart, []string{"process", "dir", "resumed", "stubbed"}, []string{"process", "dir"}},
	{record.EventStepStart, []string{"step", "of", "index", "item", "kind", "worktree", "harness", "model", "effort", "optional", "stubbed"}, []string{"step"}},
	{record.EventStepEnd, []string{"step", "of", "index", "item", "kind", "worktree", "harness", "model", "effort", "optional", "stubbed",
		"duration_ms", "usage", "outcome", "exit_code", "cause", "result"}, []string{"step", "outcome", "exit_code", "duration_ms"}},
	{record.EventWarning, []string{"step", "message"}, []string{"message"}},
	{record.EventRunEnd, []string{"status", "exit_code", "cause", "duration_ms", "usage"}, []string{"status", "duration_ms"}},
}

// eventsSchema is the schema of one line of `cairn run --json`: an object
// of the fields of record.RunEvent, each type allowing its own.
func eventsSchema() object {
	props := object{}
	for _, f := range eventFields {
		props = append(props, member{f.name, append(object{{"description", f.doc}}, f.value...)})
	}
	var types []any
	for _, t := range eventTypes {
		names := slices.Concat([]string{"v", "type", "time", "run"}, t.fields)
		types = append(types, object{
			{"if", object{{"properties", object{{"type", object{{"const", t.typ}}}}}}},
			{"then", object{{"propertyNames", object{{"enum", names}}}, {"required", t.required}}},
		})
	}
	return object{
		{"$schema", "http://json-schema.org/draft-07/schema#"},
		{"title", "cairn run event: one line of cairn run --json (and resume, test)"},
		{"type", "object"},
		{"properties", props},
		{"additionalProperties", false},
		{"required", []string{"v", "type", "time", "run"}},
		{"allOf", types},
	}
}
