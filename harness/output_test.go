package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// captured reads an output the real CLIs printed, run with no credentials
// and no network (testdata/output, captured with Claude Code 2.1.332, Codex
// 0.171.0, Gemini CLI 0.61.0 and opencode 1.18.33).
func captured(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "output", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// finalCase is one session output and what Final reads from it.
type finalCase struct {
	name    string
	harness string
	out     Output
	message string
	cause   string
	failed  bool
}

// finalCases are the outputs TestFinal and TestFinalJQ read.
func finalCases(t *testing.T) []finalCase {
	dir := t.TempDir()
	lastMessage := filepath.Join(dir, "last.md")
	if err := os.WriteFile(lastMessage, []byte("No bugs found in parse/.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	emptyFile := filepath.Join(dir, "empty.md")
	if err := os.WriteFile(emptyFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 500)

	return []finalCase{
		{
			name:    "claude success",
			harness: "claude",
			out:     Output{Stdout: []byte(`{"type":"result","subtype":"success","is_error":false,"duration_ms":5120,"duration_api_ms":4980,"num_turns":4,"result":"Found 2 bugs:\n1. parse/toml.go:88 ...\n","stop_reason":"end_turn","session_id":"0b6c2f4e-1f7a-4f0e-9d2e-3c1f5a9e7b21","total_cost_usd":0.0712,"usage":{"input_tokens":1520,"output_tokens":402},"permission_denials":[],"uuid":"6c1c8f0e-2a8e-4b7c-9a55-0c7d1f2b3e44"}` + "\n")},
			message: "Found 2 bugs:\n1. parse/toml.go:88 ...",
		},
		{
			name:    "claude not logged in (real output)",
			harness: "claude",
			out:     Output{Stdout: captured(t, "claude-notloggedin.stdout"), ExitCode: 1},
			cause:   "Not logged in · Please run /login",
			failed:  true,
		},
		{
			name:    "claude max turns",
			harness: "claude",
			out:     Output{Stdout: []byte(`{"type":"result","subtype":"error_max_turns","is_error":false,"duration_ms":90210,"num_turns":31,"session_id":"a","total_cost_usd":1.2}`), ExitCode: 1},
			cause:   "reached its max turns (error_max_turns)",
			failed:  true,
		},
		{
			name:    "claude error during execution with errors",
			harness: "claude",
			out:     Output{Stdout: []byte(`{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["API Error: 529 Overloaded"],"session_id":"a"}`), ExitCode: 1},
			cause:   "API Error: 529 Overloaded",
			failed:  true,
		},
		{
			name:    "claude unknown option",
			harness: "claude",
			out:     Output{Stderr: []byte("error: unknown option '--bogus'\n"), ExitCode: 1},
			cause:   "exit status 1: error: unknown option '--bogus'",
			failed:  true,
		},
		{
			name:    "claude text instead of JSON",
			harness: "claude",
			out:     Output{Stdout: []byte("Hello! How can I help?\nmore\n")},
			cause:   `claude printed "Hello! How can I help?", not its JSON result`,
			failed:  true,
		},
		{
			name:    "claude nothing",
			harness: "claude",
			out:     Output{},
			cause:   "claude printed nothing, not its JSON result",
			failed:  true,
		},
		{
			name:    "claude long cause is clipped",
			harness: "claude",
			out:     Output{Stdout: []byte(`{"type":"result","subtype":"success","is_error":true,"result":"` + long + `"}`), ExitCode: 1},
			cause:   long[:maxCause-1] + "…",
			failed:  true,
		},
		{
			name:    "codex success",
			harness: "codex",
			out: Output{Stdout: []byte(`{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Scanning the parser**"}}
{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"go.mod\nparse\n","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"No bugs found in parse/."}}
{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}
`), OutputFile: lastMessage},
			message: "No bugs found in parse/.",
		},
		{
			name:    "codex without its -o file uses the last agent message",
			harness: "codex",
			out: Output{Stdout: []byte(`{"type":"thread.started","thread_id":"t"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"first"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"second"}}
{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}
`), OutputFile: emptyFile},
			message: "second",
		},
		{
			name:    "codex reconnects then succeeds",
			harness: "codex",
			out: Output{Stdout: []byte(`{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion)"}
{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}
`), OutputFile: lastMessage},
			message: "No bugs found in parse/.",
		},
		{
			name:    "codex unauthorized",
			harness: "codex",
			out: Output{Stdout: []byte(`{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"error","message":"unexpected status 401 Unauthorized: Missing bearer or basic authentication in header"}
{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Missing bearer or basic authentication in header"}}
`), ExitCode: 1, OutputFile: emptyFile},
			cause:  "unexpected status 401 Unauthorized: Missing bearer or basic authentication in header",
			failed: true,
		},
		{
			name:    "codex offline, killed (real output)",
			harness: "codex",
			out:     Output{Stdout: captured(t, "codex-offline.stdout"), ExitCode: -1, OutputFile: emptyFile},
			cause:   "Reconnecting... waiting for network (Connection failed: error sending request)",
			failed:  true,
		},
		{
			name:    "codex unexpected argument",
			harness: "codex",
			out:     Output{Stderr: []byte("error: unexpected argument '--bogus' found\n\n  tip: to pass '--bogus' as a value, use '-- --bogus'\n\nUsage: codex exec [OPTIONS] [PROMPT]\n\nFor more information, try '--help'.\n"), ExitCode: 2},
			cause:   "exit status 2: For more information, try '--help'.",
			failed:  true,
		},
		{
			name:    "codex turn failed without a message",
			harness: "codex",
			out:     Output{Stdout: []byte(`{"type":"turn.failed","error":null}` + "\n")},
			cause:   "codex: the turn failed",
			failed:  true,
		},
		{
			name:    "codex text instead of events",
			harness: "codex",
			out:     Output{Stdout: []byte("Reading prompt from stdin...\n")},
			cause:   `codex printed "Reading prompt from stdin...", not its JSONL events`,
			failed:  true,
		},
		{
			// The model's text after its last tool call, as gemini's JSON
			// output gives it.
			name:    "gemini success",
			harness: "gemini",
			out: Output{Stdout: []byte(`{"type":"init","timestamp":"2026-12-02T10:57:22.996Z","session_id":"c1d0a1d4-8f3a-4a55-9e86-2f0f6f6a9b10","model":"gemini-2.5-pro"}
{"type":"message","timestamp":"2026-12-02T10:57:23.000Z","role":"user","content":"What is the capital of France?"}
{"type":"message","timestamp":"2026-12-02T10:57:23.100Z","role":"assistant","content":"Let me check.","delta":true}
{"type":"tool_use","timestamp":"2026-12-02T10:57:23.271Z","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"cat capitals.txt"}}
{"type":"tool_result","timestamp":"2026-12-02T10:57:23.970Z","tool_id":"t1","status":"success","output":"France: Paris"}
{"type":"message","timestamp":"2026-12-02T10:57:23.980Z","role":"assistant","content":"The capital of France ","delta":true}
{"type":"message","timestamp":"2026-12-02T10:57:23.981Z","role":"assistant","content":"is Paris.\n","delta":true}
{"type":"result","timestamp":"2026-12-02T10:57:23.982Z","status":"success","stats":{"total_tokens":8200,"input_tokens":8123,"output_tokens":9,"cached":0,"input":8123,"duration_ms":986,"tool_calls":1}}
`), Stderr: []byte("Loaded cached credentials.\n")},
			message: "The capital of France is Paris.",
		},
		{
			name:    "gemini no auth on stderr (real output)",
			harness: "gemini",
			out:     Output{Stderr: captured(t, "gemini-noauth.stderr"), ExitCode: 41},
			cause:   "exit status 41: Please set an Auth method in your /tmp/rt/home/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA",
			failed:  true,
		},
		{
			name:    "gemini at its turn cap (real output)",
			harness: "gemini",
			out:     Output{Stdout: captured(t, "gemini-capped.stdout"), ExitCode: 53},
			cause:   "reached its max turns (FatalTurnLimitedError)",
			failed:  true,
		},
		{
			name:    "claude rate limited (real output)",
			harness: "claude",
			out:     Output{Stdout: captured(t, "claude-ratelimited.stdout"), ExitCode: 1},
			cause:   "API Error: Request rejected (429) · RATE-LIMITED-by-double",
			failed:  true,
		},
		{
			name:    "claude at its turn cap (real output)",
			harness: "claude",
			out:     Output{Stdout: captured(t, "claude-capped.stdout"), ExitCode: 1},
			cause:   "Reached maximum number of turns (2)",
			failed:  true,
		},
		{
			name:    "gemini rate limited (real output)",
			harness: "gemini",
			out:     Output{Stdout: captured(t, "gemini-ratelimited.stdout"), ExitCode: 1},
			cause:   "[API Error: RATE-LIMITED-by-double Please retry in 30s. Suggested retry after 30s.] Please wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method",
			failed:  true,
		},
		{
			name:    "gemini stream ended by an error",
			harness: "gemini",
			out: Output{Stdout: []byte(`{"type":"init","session_id":"s"}
{"type":"error","severity":"warning","message":"slow"}
{"type":"error","severity":"error","message":"Model stream ended with an empty response."}
{"type":"result","status":"error","stats":{"total_tokens":10,"input_tokens":10,"output_tokens":0}}
`)},
			cause:  "Model stream ended with an empty response.",
			failed: true,
		},
		{
			name:    "gemini error with no message",
			harness: "gemini",
			out:     Output{Stderr: []byte(`{"error":{"type":"FatalAuthenticationError","message":"","code":41}}`), ExitCode: 41},
			cause:   "gemini: FatalAuthenticationError (code 41)",
			failed:  true,
		},
		{
			name:    "gemini unknown argument",
			harness: "gemini",
			out:     Output{Stderr: []byte("Unknown argument: bogus\n"), ExitCode: 1},
			cause:   "exit status 1: Unknown argument: bogus",
			failed:  true,
		},
		{
			name:    "gemini text instead of JSON",
			harness: "gemini",
			out:     Output{Stdout: []byte("Paris.\n")},
			cause:   `gemini printed "Paris.", not its JSON events`,
			failed:  true,
		},
		{
			name:    "opencode success",
			harness: "opencode",
			out: Output{Stdout: []byte(`{"type":"step_start","timestamp":1767036059338,"sessionID":"ses_494719016ffe85dkDMj0FPRbHK","part":{"id":"prt_b6b8e7a10001","sessionID":"ses_494719016ffe85dkDMj0FPRbHK","messageID":"msg_b6b8e6f1a001","type":"step-start","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"}}
{"type":"text","timestamp":1767036060120,"sessionID":"ses_494719016ffe85dkDMj0FPRbHK","part":{"id":"prt_b6b8e7a10002","sessionID":"ses_494719016ffe85dkDMj0FPRbHK","messageID":"msg_b6b8e6f1a001","type":"text","text":"Let me look at the parser.","time":{"start":1767036059900,"end":1767036060120}}}
{"type":"tool_use","timestamp":1767036061000,"sessionID":"ses_494719016ffe85dkDMj0FPRbHK","part":{"id":"prt_b6b8e7a10003","type":"tool","tool":"read","state":{"status":"completed"}}}
{"type":"text","timestamp":1767036062000,"sessionID":"ses_494719016ffe85dkDMj0FPRbHK","part":{"id":"prt_b6b8e7a10004","sessionID":"ses_494719016ffe85dkDMj0FPRbHK","messageID":"msg_b6b8e6f1a002","type":"text","text":"No bugs found.\n","time":{"start":1767036061500,"end":1767036062000}}}
{"type":"step_finish","timestamp":1767036062100,"sessionID":"ses_494719016ffe85dkDMj0FPRbHK","part":{"id":"prt_b6b8e7a10005","type":"step-finish","reason":"stop","cost":0,"tokens":{"input":812,"output":23,"reasoning":0,"cache":{"read":0,"write":0}}}}
`)},
			message: "No bugs found.",
		},
		{
			name:    "opencode server error (real output)",
			harness: "opencode",
			out:     Output{Stdout: captured(t, "opencode-error.stdout"), ExitCode: 1},
			cause:   "Unexpected server error. Check server logs for details.",
			failed:  true,
		},
		{
			name:    "opencode auth error",
			harness: "opencode",
			out:     Output{Stdout: []byte(`{"type":"error","timestamp":1,"sessionID":"ses_a","error":{"name":"ProviderAuthError","data":{"providerID":"anthropic","message":"No API key found for anthropic"}}}` + "\n")},
			cause:   "No API key found for anthropic",
			failed:  true,
		},
		{
			name:    "opencode error with only a name",
			harness: "opencode",
			out:     Output{Stdout: []byte(`{"type":"error","timestamp":1,"sessionID":"ses_a","error":{"name":"MessageAbortedError"}}` + "\n"), ExitCode: 1},
			cause:   "MessageAbortedError",
			failed:  true,
		},
		{
			name:    "opencode usage",
			harness: "opencode",
			out:     Output{Stderr: []byte("opencode run [message..]\n\nrun opencode with a message\n"), ExitCode: 1},
			cause:   "exit status 1: run opencode with a message",
			failed:  true,
		},
		{
			name:    "opencode text instead of events",
			harness: "opencode",
			out:     Output{Stdout: []byte("No bugs found.\n")},
			cause:   `opencode printed "No bugs found.", not its JSON events`,
			failed:  true,
		},
		{
			name:    "custom success",
			harness: "mybot",
			out:     Output{Stdout: []byte("all good\n\n"), Stderr: []byte("warming up\n")},
			message: "all good",
		},
		{
			name:    "custom failure",
			harness: "mybot",
			out:     Output{Stdout: []byte("partial\n"), Stderr: []byte("starting\nmodel \"x\" not found\n\n"), ExitCode: 3},
			message: "partial",
			cause:   `model "x" not found`,
			failed:  true,
		},
		{
			name:    "custom failure, silent",
			harness: "mybot",
			out:     Output{ExitCode: 4},
			cause:   "exit status 4",
			failed:  true,
		},
		{
			name:    "custom killed",
			harness: "mybot",
			out:     Output{ExitCode: -1},
			cause:   "killed by a signal",
			failed:  true,
		},
	}
}

func TestFinal(t *testing.T) {
	for _, tc := range finalCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			h, ok := testRegistry().Lookup(tc.harness)
			if !ok {
				t.Fatalf("Lookup(%q) found nothing", tc.harness)
			}
			message, cause, failed := h.Final(tc.out)
			if message != tc.message || cause != tc.cause || failed != tc.failed {
				t.Errorf("Final()\n got (%q, %q, %v)\nwant (%q, %q, %v)", message, cause, failed, tc.message, tc.cause, tc.failed)
			}
		})
	}
}

// TestCauseWithoutEscapes holds that a cause drops the colour codes a CLI
// printed into its pipe (opencode's "Error: Session not found").
func TestCauseWithoutEscapes(t *testing.T) {
	o := Output{Stderr: []byte("\x1b[91m\x1b[1mError: \x1b[0mSession not found\n"), ExitCode: 1}
	h, _ := NewRegistry(nil).Lookup("opencode")
	if _, got, _ := h.Final(o); got != "exit status 1: Error: Session not found" {
		t.Errorf("cause = %q, want %q", got, "exit status 1: Error: Session not found")
	}
}
