package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestRunEventsSchema runs cairn run, resume and test with --json: stdout
// is JSON lines and nothing else, each run's events run from its run_start
// to its run_end, every time is an RFC 3339 time, and stderr keeps the human
// progress. Each run's events, their times, durations and folders made
// stable and sorted (a parallel group's events interleave), must equal
// golden/output/events/NAME.jsonl, which the schema package's tests hold to
// the schema cairn schema events prints: the JSON Schema library stays out
// of this package, whose test binary is every cairn the tests start.
func TestRunEventsSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p.toml":       eventsProcess,
		"p.stubs.toml": eventsStubs,
		"p.test.toml":  "process = \"p.toml\"\nstubs = \"p.stubs.toml\"\n\n[expect]\nstatus = \"succeeded\"\n",
	})
	gitRepo(t, dir)
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
		var stable []string
		sc := bufio.NewScanner(bytes.NewReader(stdout))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			var ev map[string]any
			if err := json.Unmarshal(line, &ev); err != nil {
				t.Fatalf("%s: a line of stdout is no JSON: %v\n%s", name, err, line)
			}
			typ, _ := ev["type"].(string)
			types[typ]++
			events = append(events, ev)
			stable = append(stable, stableEvent(t, name, dir, ev))
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
		slices.Sort(stable)
		compareGolden(t, filepath.Join("..", "..", "golden", "output", "events", step.args[0]+".jsonl"), []byte(strings.Join(stable, "\n")+"\n"))
	}
}

// testHome is the name of the temporary home cairn test runs in.
var testHome = regexp.MustCompile(`cairn-test-[0-9]+`)

// stableEvent is ev as one line of JSON with what changes from run to run
// made stable: its time (which must be an RFC 3339 time), its run's name
// (in strings too), durations, and the test's folder and cairn test's home in strings.
func stableEvent(t *testing.T, name, dir string, ev map[string]any) string {
	t.Helper()
	run, _ := ev["run"].(string)
	for k, v := range ev {
		switch s, _ := v.(string); {
		case k == "time":
			if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			ev[k] = "2026-01-02T03:04:05Z"
		case k == "run":
			ev[k] = "RUN"
		case strings.HasSuffix(k, "_ms"):
			ev[k] = 1
		case s != "":
			s = strings.ReplaceAll(s, dir, "/work")
			s = testHome.ReplaceAllString(s, "cairn-test-N")
			if run != "" {
				s = strings.ReplaceAll(s, run, "RUN")
			}
			ev[k] = s
		}
	}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
