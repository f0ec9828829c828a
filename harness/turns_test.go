package harness

import (
	"os/exec"
	"strings"
	"testing"
)

// turnLines are events of the real CLIs' streams (codex exec --json,
// opencode run --format json) and lines that are not events, each with
// whether it starts a turn of harness.
var turnLines = []struct {
	harness, line string
	starts        bool
}{
	{"codex", `{"type":"thread.started","thread_id":"01a232dc"}`, false},
	{"codex", `{"type":"turn.started"}`, false},
	{"codex", `{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -c 'echo one'","status":"in_progress"}}`, true},
	{"codex", `{"type":"item.completed","item":{"id":"item_0","type":"command_execution","exit_code":0,"status":"completed"}}`, false},
	{"codex", `{"type":"item.started","item":{"id":"item_1","type":"file_change","changes":[{"path":"/w/x.txt","kind":"add"}],"status":"in_progress"}}`, true},
	{"codex", `{"type":"item.started","item":{"id":"item_2","type":"mcp_tool_call"}}`, true},
	{"codex", `{"type":"item.started","item":{"id":"item_3","type":"reasoning","text":""}}`, false},
	{"codex", `{"type":"item.started","item":{"id":"item_4","type":"agent_message","text":""}}`, false},
	{"codex", `{"type":"item.completed","item":{"id":"item_5","type":"agent_message","text":"done"}}`, false},
	{"codex", `{"type":"item.started"}`, false},
	{"codex", `  {"type":"item.started","item":{"type":"web_search"}}  `, true},
	{"codex", `item.started`, false},
	{"codex", `[{"type":"item.started","item":{"type":"command_execution"}}]`, false},
	{"codex", ``, false},
	{"opencode", `{"type":"step_start","timestamp":1796149665898,"sessionID":"ses_1","part":{"type":"step-start"}}`, true},
	{"opencode", `{"type":"tool_use","sessionID":"ses_1","part":{"type":"tool","tool":"bash"}}`, false},
	{"opencode", `{"type":"step_finish","sessionID":"ses_1","part":{"reason":"tool-calls","type":"step-finish"}}`, false},
	{"opencode", `{"type":"text","sessionID":"ses_1","part":{"type":"text","text":"step_start"}}`, false},
	{"opencode", `not json`, false},
}

// TestTurnStarts holds what starts a turn in each stream, and the jq the
// bash target counts them with to the same answers.
func TestTurnStarts(t *testing.T) {
	r := NewRegistry(nil)
	jq, jqErr := exec.LookPath("jq")
	for _, tc := range turnLines {
		h, _ := r.Lookup(tc.harness)
		_, filter, ok := h.CountsTurns()
		if !ok {
			t.Fatalf("%s: cairn does not count its turns", tc.harness)
		}
		if got := h.startsTurn([]byte(tc.line)); got != tc.starts {
			t.Errorf("%s: Starts(%s) = %v; want %v", tc.harness, tc.line, got, tc.starts)
		}
		if jqErr != nil {
			continue
		}
		// The script reads each line as raw text, as it arrives.
		cmd := exec.Command(jq, "-R", "-r", FinalJQDefs()+" "+filter)
		cmd.Stdin = strings.NewReader(tc.line + "\n")
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: jq on %s: %v", tc.harness, tc.line, err)
			continue
		}
		if got := strings.TrimSpace(string(out)) == "true"; got != tc.starts {
			t.Errorf("%s: jq on %s printed %q; want %v", tc.harness, tc.line, out, tc.starts)
		}
	}
}

// TestTurnsCounted: cairn counts the turns of the CLIs with no cap of their
// own; claude enforces its --max-turns, a custom harness its {{.MaxTurns}},
// and gemini takes its cap in the settings cairn lays over the user's.
func TestTurnsCounted(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		harness       string
		takes, counts bool
	}{
		{"claude", true, false},
		{"codex", true, true},
		{"gemini", true, false},
		{"opencode", true, true},
		{"mybot", true, false},
	} {
		h, _ := r.Lookup(tc.harness)
		_, jq, counts := h.CountsTurns()
		if h.TakesMaxTurns() != tc.takes || counts != tc.counts || (jq != "") != tc.counts {
			t.Errorf("%s: TakesMaxTurns %v, CountsTurns %v (jq %q); want %v, %v", tc.harness, h.TakesMaxTurns(), counts, jq, tc.takes, tc.counts)
		}
		if w := h.WatchTurns(3, func() {}); (w != nil) != tc.counts {
			t.Errorf("%s: WatchTurns = %v; want one: %v", tc.harness, w, tc.counts)
		}
	}
}

// TestTurnWatch feeds a watch its stream in pieces that split lines: it
// stops the session once, as turn max+1 starts.
func TestTurnWatch(t *testing.T) {
	r := NewRegistry(nil)
	h, _ := r.Lookup("opencode")
	if w := h.WatchTurns(0, func() { t.Error("a watch with no cap stopped") }); w != nil {
		t.Error("WatchTurns(0) gave a watch")
	}
	stops := 0
	w := h.WatchTurns(2, func() { stops++ })
	step := `{"type":"step_start","sessionID":"ses_1"}` + "\n" + `{"type":"tool_use","sessionID":"ses_1"}` + "\n"
	stream := strings.Repeat(step, 2)
	for i := 0; i < len(stream); i += 7 {
		w.Write([]byte(stream[i:min(i+7, len(stream))]))
	}
	if stops != 0 || w.Passed() {
		t.Fatalf("after 2 turns of 2: %d stops, passed %v", stops, w.Passed())
	}
	// The third step's line, unfinished, is not counted yet.
	w.Write([]byte(`{"type":"step_start",`))
	if stops != 0 {
		t.Fatalf("an unfinished line stopped the session")
	}
	w.Write([]byte(`"sessionID":"ses_1"}` + "\n" + step + step))
	if stops != 1 || !w.Passed() {
		t.Errorf("past the cap: %d stops, passed %v; want 1 stop", stops, w.Passed())
	}
	if got, want := TurnCause(2), "stopped after 2 turns: max_turns is 2"; got != want {
		t.Errorf("TurnCause(2) = %q; want %q", got, want)
	}
	var none *TurnWatch
	if none.Passed() {
		t.Error("a nil watch passed")
	}
}
