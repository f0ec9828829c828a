package harness

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// traceCase is a captured output of testdata/output, how its CLI exited,
// and what cairn reads of it: the final message, how the session ended
// (used is Used(nil) as JSON), and, for a CLI whose turns cairn counts,
// how many lines of its stdout start a turn. sessionFile says that codex's
// session file is found (codex-capped.rollout.jsonl, under CODEX_HOME).
type traceCase struct {
	file        string
	rc          int
	sessionFile bool

	message, cause string
	failed         bool

	id                                 string
	maxTurns, budget, worked, unpriced bool
	used                               string
	turns                              int
}

// traceCases are every captured output with what cairn read of it before
// its jq became the one definition (the Go readers it had then), which the
// other tests of this package assert in part.
var traceCases = []traceCase{
	{file: "claude-budget.stdout", rc: 1, cause: "Reached maximum budget ($0.0001)", failed: true,
		id: "56ac9f09-bbe6-4593-a42d-5936c19e887d", budget: true, worked: true,
		used: `{"turns":1,"input_tokens":12478,"output_tokens":10,"cache_read_tokens":4,"cache_write_tokens":2,"cost_usd":0.0501228}`},
	{file: "claude-capped.stdout", rc: 1, cause: "Reached maximum number of turns (2)", failed: true,
		id: "d22f007b-6e20-4e08-9864-79ba747172a6", maxTurns: true, worked: true,
		used: `{"turns":3,"input_tokens":30401,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":4,"cost_usd":0.061012800000000006}`},
	{file: "claude-notloggedin.stdout", rc: 1, cause: "Not logged in · Please run /login", failed: true,
		id:   "5ce51378-5456-4068-a083-5c62d20aebc2",
		used: `{"turns":1,"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0}`},
	{file: "claude-ratelimited.stdout", rc: 1, cause: "API Error: Request rejected (429) · RATE-LIMITED-by-double", failed: true,
		id:   "a778d062-cc47-41d1-b9a2-34d622a703b1",
		used: `{"turns":1,"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0}`},
	{file: "claude-resumed.stdout", message: "resumed",
		id: "ea03d01f-ada6-422c-83a8-a060a8618de5", worked: true,
		used: `{"turns":1,"input_tokens":37586,"output_tokens":30,"cache_read_tokens":12,"cache_write_tokens":6,"cost_usd":0.1509764}`},
	{file: "claude-usage.stdout", message: "all done",
		id: "ea03d01f-ada6-422c-83a8-a060a8618de5", worked: true,
		used: `{"turns":2,"input_tokens":25014,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":4,"cost_usd":0.1004776}`},
	{file: "codex-capped.stdout", rc: -1, failed: true,
		cause: `killed by a signal: {"type":"item.started","item":{"id":"item_2","type":"command_execution","command":"/bin/bash -c 'echo again'","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
		id:    "01a2366f-2830-73a2-a66a-86de5493c9b7", worked: true, used: `{}`, turns: 3},
	{file: "codex-capped.stdout", rc: -1, sessionFile: true, failed: true,
		cause: `killed by a signal: {"type":"item.started","item":{"id":"item_2","type":"command_execution","command":"/bin/bash -c 'echo again'","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
		id:    "01a2366f-2830-73a2-a66a-86de5493c9b7", worked: true, turns: 3,
		used: `{"turns":1,"input_tokens":20547,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":0}`},
	{file: "codex-offline.stdout", rc: -1, failed: true,
		cause: "Reconnecting... waiting for network (Connection failed: error sending request)",
		id:    "01a22aa1-6da0-7af1-a00d-343d69711c63", worked: true, used: `{}`},
	{file: "codex-resumed.stdout", message: "resumed",
		id: "01a232f7-95c0-72d0-bf84-7fa519730f11", worked: true,
		used: `{"turns":1,"input_tokens":29731,"output_tokens":30,"cache_read_tokens":12,"cache_write_tokens":0}`},
	{file: "codex-usage.stdout", message: "all done",
		id: "01a232f7-95c0-72d0-bf84-7fa519730f11", worked: true, turns: 1,
		used: `{"turns":1,"input_tokens":19621,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":0}`},
	{file: "gemini-capped.stdout", rc: 53, cause: "reached its max turns (FatalTurnLimitedError)", failed: true,
		id: "da94cd67-48b0-40c7-8de7-7ea52f236a75", maxTurns: true, worked: true,
		used: `{"turns":2,"input_tokens":21387,"output_tokens":20,"cache_read_tokens":8}`},
	{file: "gemini-noauth.stderr", rc: 41, failed: true,
		cause: "exit status 41: Please set an Auth method in your /tmp/rt/home/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA",
		used:  `{}`},
	{file: "gemini-ratelimited.stdout", rc: 1, failed: true,
		cause: "[API Error: RATE-LIMITED-by-double Please retry in 30s. Suggested retry after 30s.] Please wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method",
		id:    "082b3782-9302-4277-a305-a562d722aa7a", used: `{"input_tokens":0,"output_tokens":0,"cache_read_tokens":0}`},
	{file: "gemini-resumed.stdout", message: "resumed",
		id: "bb06f0cc-8337-40de-8de8-efd16da728ae", worked: true,
		used: `{"turns":1,"input_tokens":10440,"output_tokens":10,"cache_read_tokens":4}`},
	{file: "gemini-usage.stdout", message: "all done",
		id: "bb06f0cc-8337-40de-8de8-efd16da728ae", worked: true,
		used: `{"turns":2,"input_tokens":20660,"output_tokens":20,"cache_read_tokens":8}`},
	{file: "opencode-capped.stdout", rc: -1, failed: true,
		cause: `killed by a signal: {"type":"step_start","timestamp":1796209600660,"sessionID":"ses_dc990cafaffevPRPuhyMyfeqbb","part":{"id":"prt_2366f6862001wHgN8xApPtm4K0","messageID":"msg_2366f668b001mbvhuvK6OxGkts","sessionID":"ses_dc990cafaffevPRPuhyMyfeqbb","snapshot":"29c493fd599cb8f7a1bef95e252c749a155be1ee","type":"step-start"}}`,
		id:    "ses_dc990cafaffevPRPuhyMyfeqbb", worked: true, unpriced: true, turns: 3,
		used: `{"turns":2,"input_tokens":16200,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":0}`},
	{file: "opencode-error.stdout", rc: 1, cause: "Unexpected server error. Check server logs for details.", failed: true,
		id: "ses_dd55fbcc3ffeKBcZXhQxX5eBIg", used: `{}`},
	{file: "opencode-resumed.stdout", message: "resumed",
		id: "ses_dcd084ec0ffeA9yEd2S37GIoq1", worked: true, turns: 1,
		used: `{"turns":1,"input_tokens":7800,"output_tokens":10,"cache_read_tokens":4,"cache_write_tokens":0,"cost_usd":0.0235512}`},
	{file: "opencode-unpriced.stdout", message: "all done",
		id: "ses_dc9fc6eb4ffemv7P5VSH8IiEt0", worked: true, unpriced: true, turns: 2,
		used: `{"turns":2,"input_tokens":15483,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":0}`},
	{file: "opencode-usage.stdout", message: "all done",
		id: "ses_dcd084ec0ffeA9yEd2S37GIoq1", worked: true, turns: 2,
		used: `{"turns":2,"input_tokens":15491,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":0,"cost_usd":0.0467754}`},
}

// codexSessionFile is the session file of codex-capped.stdout's thread,
// codex-capped.rollout.jsonl, laid out under a CODEX_HOME: its path, and
// the environment that finds it.
func codexSessionFile(t *testing.T) (path string, env []string) {
	t.Helper()
	home := t.TempDir()
	path = filepath.Join(home, "sessions", "2026", "12", "02", "rollout-2026-12-02T11-06-12-01a2366f-2830-73a2-a66a-86de5493c9b7.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, captured(t, "codex-capped.rollout.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, []string{"CODEX_HOME=" + home}
}

// output is the session output of c: the captured file as its stdout (its
// stderr for a .stderr file).
func (c traceCase) output(t *testing.T, env []string) Output {
	o := Output{ExitCode: c.rc}
	if strings.HasSuffix(c.file, ".stderr") {
		o.Stderr = captured(t, c.file)
	} else {
		o.Stdout = captured(t, c.file)
	}
	if c.sessionFile {
		o.Env = env
	}
	return o
}

// TestTraces reads every captured output (testdata/output, every harness
// and every case) with the harness's jq, the one definition of how cairn
// reads it: in-process with gojq, as cairn run does, and with the jq binary,
// as a compiled script does. The two give the same answers, and those are
// what cairn read of each output before.
func TestTraces(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "output", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasSuffix(name, ".rollout.jsonl") {
			continue
		}
		if !slices.ContainsFunc(traceCases, func(c traceCase) bool { return c.file == name }) {
			t.Errorf("testdata/output/%s has no case in traceCases", name)
		}
	}
	rollout, env := codexSessionFile(t)
	jq, jqErr := exec.LookPath("jq")
	r := NewRegistry(nil)
	dir := t.TempDir()
	for i, c := range traceCases {
		cli, _, _ := strings.Cut(c.file, "-")
		h, ok := r.Lookup(cli)
		if !ok {
			t.Fatalf("%s: no harness %q", c.file, cli)
		}
		o := c.output(t, env)
		name := c.file
		if c.sessionFile {
			name += " with its session file"
		}

		// cairn run's answers.
		message, cause, failed := h.Final(o)
		if message != c.message || cause != c.cause || failed != c.failed {
			t.Errorf("%s: Final\n got (%q, %q, %v)\nwant (%q, %q, %v)", name, message, cause, failed, c.message, c.cause, c.failed)
		}
		end := h.SessionEnd(o)
		if got := usageOf(t, end.Used(nil)); end.ID != c.id || end.MaxTurns != c.maxTurns || end.Budget != c.budget ||
			end.Worked != c.worked || end.Unpriced != c.unpriced || got != c.used {
			t.Errorf("%s: SessionEnd %+v, Used %s\nwant id %q, max turns %v, budget %v, worked %v, unpriced %v, used %s",
				name, end, got, c.id, c.maxTurns, c.budget, c.worked, c.unpriced, c.used)
		}
		turns := 0
		if _, _, counts := h.CountsTurns(); counts {
			for line := range strings.Lines(string(o.Stdout)) {
				if h.startsTurn([]byte(strings.TrimSuffix(line, "\n"))) {
					turns++
				}
			}
		}
		if turns != c.turns {
			t.Errorf("%s: %d lines start a turn; want %d", name, turns, c.turns)
		}

		if jqErr != nil {
			continue
		}
		// The same program, with gojq and with jq: the final message, how
		// the session ended, and what the script records of it.
		query := "[" + h.jq.Final + ", (" + h.jq.End + "), (" + h.jq.End + " | session_used, .budget == true)]"
		sessionFile := os.DevNull
		if c.sessionFile {
			query = "[" + h.jq.Final + ", (" + h.jq.End + " | " + h.jq.File + "($session_file))]"
			sessionFile = rollout
		}
		vars := jqInputs(o)
		if c.sessionFile {
			vars[len(vars)-1] = jqText(captured(t, "codex-capped.rollout.jsonl"))
		}
		v, err := runJQ(query, nil, vars)
		if err != nil {
			t.Errorf("%s: gojq: %v", name, err)
			continue
		}
		gojqOut, _ := json.Marshal(v)
		out := filepath.Join(dir, strconv.Itoa(i)+".out")
		errf := filepath.Join(dir, strconv.Itoa(i)+".err")
		if err := os.WriteFile(out, o.Stdout, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(errf, o.Stderr, 0o600); err != nil {
			t.Fatal(err)
		}
		jqOut, err := exec.Command(jq, "-n", "-c", "--rawfile", "out", out, "--rawfile", "err", errf, "--rawfile", "last", os.DevNull,
			"--argjson", "rc", strconv.Itoa(c.rc), "--rawfile", "session_file", sessionFile, FinalJQDefs()+"\n"+query).Output()
		if err != nil {
			t.Errorf("%s: jq: %v", name, err)
			continue
		}
		if !sameJSON(t, gojqOut, jqOut) {
			t.Errorf("%s: gojq and jq differ\ngojq: %s\n  jq: %s", name, gojqOut, jqOut)
		}

		if _, program, counts := h.CountsTurns(); counts {
			var gojqTurns []string
			for line := range strings.Lines(string(o.Stdout)) {
				v, err := runJQ(program, jqText([]byte(strings.TrimSuffix(line, "\n"))), []any{"", "", "", 0, ""})
				if err == nil {
					gojqTurns = append(gojqTurns, strconv.FormatBool(v == true))
				}
			}
			cmd := exec.Command(jq, "-R", "-r", FinalJQDefs()+" "+program)
			cmd.Stdin = strings.NewReader(string(o.Stdout))
			b, err := cmd.Output()
			if err != nil {
				t.Errorf("%s: jq: %v", name, err)
				continue
			}
			if jqTurns := strings.Fields(string(b)); !reflect.DeepEqual(gojqTurns, jqTurns) {
				t.Errorf("%s: the turns of each event\ngojq: %v\n  jq: %v", name, gojqTurns, jqTurns)
			}
		}
	}
	if jqErr != nil {
		t.Skip("jq is not on PATH (.ci/run installs it): gojq's answers were checked, not jq's")
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// TestMalformedOutput: output whose JSON has the wrong shape fails the
// session with a cause that says so, or reads what it can; never a panic.
func TestMalformedOutput(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		harness, out string
		cause        string
	}{
		// The error of a gemini result, a string and not an object.
		{"gemini", `{"type":"result","status":"error","error":"boom","stats":3}`, "boom"},
		{"claude", `{"type":"result","subtype":5,"result":3}`, `cannot read the output of claude: jq "claude": `},
		{"opencode", `{"type":"error","error":"x"}`, `cannot read the output of opencode: jq "opencode": `},
		// Bytes that are no UTF-8, as jq reads them.
		{"mybot", "\xff{\"a\":1}", ""},
	} {
		h, _ := r.Lookup(tc.harness)
		o := Output{Stdout: []byte(tc.out)}
		_, cause, failed := h.Final(o)
		if !strings.HasPrefix(cause, tc.cause) || failed != (tc.cause != "") {
			t.Errorf("%s %s: Final: cause %q, failed %v; want a cause %q…", tc.harness, tc.out, cause, failed, tc.cause)
		}
		if end := h.SessionEnd(o); end.ID != "" || !end.Used(nil).IsZero() {
			t.Errorf("%s %s: SessionEnd %+v; want no id and no usage", tc.harness, tc.out, end)
		}
	}
	h, _ := r.Lookup("mybot")
	if message, _, _ := h.Final(Output{Stdout: []byte("\xff{\"a\":1}\n")}); message != "\uFFFD{\"a\":1}" {
		t.Errorf("Final of bytes that are no UTF-8: %q", message)
	}
}
