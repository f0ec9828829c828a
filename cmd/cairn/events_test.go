package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// eventsProcess is a process whose run tells every type of event: a
// command step with a validate that warns, a parallel group whose optional
// step fails, a step with for_each, a stubbed session step, and a step
// that fails until the file go exists in $HOME.
const eventsProcess = `version = 1

[worktrees.l]
kind = "throwaway"

[worktrees.v]
kind = "throwaway"

[[steps]]
name = "build"
command = "echo built"

[steps.validate]
shells = ["test -s missing.md"]
severity = "warn"

[[steps]]
name = "lint"
parallel = "checks"
optional = true
worktree = "l"
command = "echo lint failed >&2; exit 2"

[[steps]]
name = "vet"
parallel = "checks"
worktree = "v"
command = "echo vetted"

[[steps]]
name = "each"
for_each = '["a", 2]'
command = 'echo "item $CAIRN_ITEM"'

[[steps]]
name = "review"
prompt = "Review the work."

[[steps]]
name = "gate"
command = '[ -f "$HOME/go" ] || exit 3; echo gate passed'
`

const eventsStubs = `[stubs.review]
result = "Looks good."
usage = { turns = 4, input_tokens = 1200, output_tokens = 300, cost_usd = 0.05 }
`

// TestRunEventsSchema runs cairn run, resume and test with --json and holds
// every line of their stdout to the schema cairn schema events prints:
// stdout is JSON lines and nothing else, each run's events run from its
// run_start to its run_end, and stderr keeps the human progress.
func TestRunEventsSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p.toml":       eventsProcess,
		"p.stubs.toml": eventsStubs,
		"p.test.toml":  "process = \"p.toml\"\nstubs = \"p.stubs.toml\"\n\n[expect]\nstatus = \"succeeded\"\n",
	})
	gitRepo(t, dir)
	out, stderr, code := cairnIn(t, dir, "schema", "events")
	if code != exitOK {
		t.Fatalf("cairn schema events: exit %d\n%s", code, stderr)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("events.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("events.schema.json")
	if err != nil {
		t.Fatal(err)
	}

	for _, step := range []struct {
		args []string
		code int
		// types are how many events of each type stdout must have.
		types    map[string]int
		progress string
	}{
		{[]string{"run", "p.toml", "--stubs", "p.stubs.toml", "--json"}, exitFailed,
			map[string]int{"run_start": 1, "step_start": 8, "step_end": 8, "warning": 1, "run_end": 1}, "failed gate: exit status 3"},
		// The test's run fails at gate too: $HOME/go is not there yet.
		{[]string{"test", "--json", "p.test.toml"}, exitFailed,
			map[string]int{"run_start": 1, "step_start": 8, "step_end": 8, "warning": 1, "run_end": 1}, "FAIL"},
		{[]string{"resume", "--json"}, exitOK,
			map[string]int{"run_start": 1, "step_start": 2, "step_end": 2, "run_end": 1}, "done gate"},
	} {
		if step.args[0] == "resume" {
			writeFiles(t, dir, map[string]string{"go": ""})
		}
		stdout, stderr, code := cairnIn(t, dir, step.args...)
		name := "cairn " + strings.Join(step.args, " ")
		if code != step.code {
			t.Fatalf("%s: exit %d, want %d\n%s", name, code, step.code, stderr)
		}
		if !strings.Contains(string(stderr), step.progress) {
			t.Errorf("%s: stderr lacks the progress %q:\n%s", name, step.progress, stderr)
		}
		types := map[string]int{}
		var events []map[string]any
		sc := bufio.NewScanner(bytes.NewReader(stdout))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
			if err != nil {
				t.Fatalf("%s: a line of stdout is no JSON: %v\n%s", name, err, line)
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("%s: %s\n%v", name, line, err)
			}
			var ev map[string]any
			if err := json.Unmarshal(line, &ev); err != nil {
				t.Fatal(err)
			}
			types[ev["type"].(string)]++
			events = append(events, ev)
		}
		if len(stdout) > 0 && stdout[len(stdout)-1] != '\n' {
			t.Errorf("%s: stdout does not end in a newline", name)
		}
		for typ, n := range step.types {
			if types[typ] != n {
				t.Errorf("%s: %d events of type %s, want %d", name, types[typ], typ, n)
			}
		}
		if len(events) < 2 || events[0]["type"] != "run_start" || events[len(events)-1]["type"] != "run_end" {
			t.Fatalf("%s: the events do not run from run_start to run_end:\n%s", name, stdout)
		}
		end := events[len(events)-1]
		if want := float64(step.code); step.args[0] != "test" && end["exit_code"] != want {
			t.Errorf("%s: run_end's exit_code %v, want %v", name, end["exit_code"], want)
		}
		for _, ev := range events {
			if ev["run"] != events[0]["run"] {
				t.Errorf("%s: an event of run %v among run %v's", name, ev["run"], events[0]["run"])
			}
		}
	}
	// The schema is no empty promise: it refuses a field a type does not
	// carry, a missing one, an unknown type and a time that is no time.
	for _, bad := range []string{
		`{"v":1,"type":"run_start","time":"2026-01-02T03:04:05Z","run":"p","process":"p","dir":"/d","outcome":"failed"}`,
		`{"v":1,"type":"step_end","time":"2026-01-02T03:04:05Z","run":"p","step":"a","exit_code":0,"duration_ms":1}`,
		`{"v":1,"type":"step_halfway","time":"2026-01-02T03:04:05Z","run":"p"}`,
		`{"v":1,"type":"warning","time":"yesterday","run":"p","message":"m"}`,
		`{"v":2,"type":"warning","time":"2026-01-02T03:04:05Z","run":"p","message":"m"}`,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(inst) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}
