package harness

import (
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

func TestSessionEnd(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		name, harness string
		out           Output
		want          SessionEnd
	}{
		{
			"claude answered", "claude",
			Output{Stdout: []byte(`{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s-1"}`)},
			SessionEnd{ID: "s-1", Worked: true},
		},
		{
			"claude at its turn cap", "claude",
			Output{Stdout: []byte(`{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":17,"session_id":"s-2","errors":["Reached maximum number of turns (16)"]}`), ExitCode: 1},
			SessionEnd{ID: "s-2", MaxTurns: true, Worked: true},
		},
		{
			"claude not logged in", "claude",
			Output{Stdout: []byte(`{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login","session_id":"s-3"}`), ExitCode: 1},
			SessionEnd{ID: "s-3"},
		},
		{"claude printed nothing", "claude", Output{ExitCode: 1}, SessionEnd{}},
		{
			"codex answered", "codex",
			Output{Stdout: []byte("{\"type\":\"thread.started\",\"thread_id\":\"t-1\"}\n{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"ok\"}}\n")},
			SessionEnd{ID: "t-1", Worked: true},
		},
		{
			"codex unauthorized", "codex",
			Output{Stdout: []byte("{\"type\":\"thread.started\",\"thread_id\":\"t-2\"}\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"401\"}}\n"), ExitCode: 1},
			SessionEnd{ID: "t-2"},
		},
		{
			"gemini answered", "gemini",
			Output{Stdout: []byte("{\"type\":\"init\",\"session_id\":\"g-1\"}\n{\"type\":\"message\",\"role\":\"user\",\"content\":\"hi\"}\n{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"ok\",\"delta\":true}\n{\"type\":\"result\",\"status\":\"success\"}\n")},
			SessionEnd{ID: "g-1", Worked: true},
		},
		{
			"gemini refused before any answer", "gemini",
			Output{Stdout: []byte("{\"type\":\"init\",\"session_id\":\"g-2\"}\n{\"type\":\"message\",\"role\":\"user\",\"content\":\"hi\"}\n{\"type\":\"result\",\"status\":\"error\",\"error\":{\"type\":\"Error\",\"message\":\"429\"}}\n"), ExitCode: 1},
			SessionEnd{ID: "g-2"},
		},
		{"gemini without auth", "gemini", Output{Stderr: []byte(`{"error":{"message":"auth"}}`), ExitCode: 41}, SessionEnd{}},
		{
			"opencode answered", "opencode",
			Output{Stdout: []byte("{\"type\":\"step_start\",\"sessionID\":\"ses_1\"}\n{\"type\":\"text\",\"sessionID\":\"ses_1\",\"part\":{\"text\":\"ok\"}}\n")},
			SessionEnd{ID: "ses_1", Worked: true},
		},
		{
			"opencode server error", "opencode",
			Output{Stdout: []byte("{\"type\":\"error\",\"sessionID\":\"ses_2\",\"error\":{\"name\":\"UnknownError\"}}\n"), ExitCode: 1},
			SessionEnd{ID: "ses_2"},
		},
		{"custom printed", "mybot", Output{Stdout: []byte("done\n")}, SessionEnd{Worked: true}},
		{"custom silent", "mybot", Output{ExitCode: 1, Stderr: []byte("no key\n")}, SessionEnd{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := r.Lookup(tc.harness)
			got := h.SessionEnd(tc.out)
			// usage_test.go reads the usage.
			got.Usage, got.Total = ir.Usage{}, ir.Usage{}
			if got != tc.want {
				t.Errorf("SessionEnd() = %+v; want %+v", got, tc.want)
			}
		})
	}
}

func TestCanResume(t *testing.T) {
	r := testRegistry()
	for name, want := range map[string]bool{"claude": true, "codex": true, "opencode": true, "gemini": true, "mybot": false} {
		h, _ := r.Lookup(name)
		if got := h.CanResume(); got != want {
			t.Errorf("%s: CanResume() = %v; want %v", name, got, want)
		}
	}
}
