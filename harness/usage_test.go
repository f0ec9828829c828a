package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// usageOf words u as its JSON, for comparisons that show every figure.
func usageOf(t *testing.T, u ir.Usage) string {
	t.Helper()
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUsage reads what sessions used from the real CLIs' output against the
// model double (testdata/output/*-usage.stdout, a session of two model
// requests, and *-resumed.stdout, the same session resumed for one more;
// internal/modeldouble's TestRealAgentsUsage captured them with Claude Code
// 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0 and opencode 1.18.33). Each of
// the double's answers reports 10 output tokens, 4 read from the cache and,
// for Anthropic's API, 2 written to it.
func TestUsage(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		harness string
		// resumed is the usage of the resumed run alone.
		first, resumed string
		id             string
	}{
		{
			// num_turns and .usage count this run; total_cost_usd and
			// .modelUsage the session from its start.
			"claude",
			`{"turns":2,"input_tokens":25014,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":4,"cost_usd":0.1004776}`,
			`{"turns":1,"input_tokens":12572,"output_tokens":10,"cache_read_tokens":4,"cache_write_tokens":2,"cost_usd":0.0504988}`,
			"",
		},
		{
			// turn.completed counts the thread from its start, the cached
			// input within input_tokens.
			"codex",
			`{"turns":1,"input_tokens":19621,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":0}`,
			`{"turns":1,"input_tokens":10110,"output_tokens":10,"cache_read_tokens":4,"cache_write_tokens":0}`,
			"",
		},
		{
			"gemini",
			`{"turns":2,"input_tokens":20660,"output_tokens":20,"cache_read_tokens":8}`,
			`{"turns":1,"input_tokens":10440,"output_tokens":10,"cache_read_tokens":4}`,
			"",
		},
		{
			"opencode",
			`{"turns":2,"input_tokens":15491,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":0,"cost_usd":0.0467754}`,
			`{"turns":1,"input_tokens":7800,"output_tokens":10,"cache_read_tokens":4,"cache_write_tokens":0,"cost_usd":0.0235512}`,
			"",
		},
	} {
		h, _ := r.Lookup(tc.harness)
		first := h.SessionEnd(Output{Stdout: captured(t, tc.harness+"-usage.stdout")})
		if got := usageOf(t, first.Used(nil)); got != tc.first {
			t.Errorf("%s: Used\n got %s\nwant %s", tc.harness, got, tc.first)
		}
		resumed := h.SessionEnd(Output{Stdout: captured(t, tc.harness+"-resumed.stdout")})
		if resumed.ID == "" || resumed.ID != first.ID {
			t.Errorf("%s: resumed session %q; want the first's, %q", tc.harness, resumed.ID, first.ID)
		}
		if got := usageOf(t, resumed.Used(&first)); got != tc.resumed {
			t.Errorf("%s: resumed Used\n got %s\nwant %s", tc.harness, got, tc.resumed)
		}
		if first.Budget || resumed.Budget {
			t.Errorf("%s: Budget set for a session that finished", tc.harness)
		}
	}
}

// TestUsageUnpriced: opencode run on a model its config gives no prices
// (real output, testdata/output/opencode-unpriced.stdout, which
// internal/modeldouble's TestRealAgentsUnpriced captured with opencode
// 1.18.33) reports its tokens and a cost of 0 for each request: the
// session's cost is unknown, so it is absent, never a measured 0.
func TestUsageUnpriced(t *testing.T) {
	h, _ := testRegistry().Lookup("opencode")
	end := h.SessionEnd(Output{Stdout: captured(t, "opencode-unpriced.stdout")})
	want := `{"turns":2,"input_tokens":15483,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":0}`
	if got := usageOf(t, end.Used(nil)); got != want || !end.Unpriced || !end.Worked {
		t.Errorf("Used %s, Unpriced %v, Worked %v; want %s, unpriced and worked", got, end.Unpriced, end.Worked, want)
	}
	if end := h.SessionEnd(Output{Stdout: captured(t, "opencode-usage.stdout")}); end.Unpriced || end.Usage.CostUSD == nil {
		t.Errorf("a priced session: Unpriced %v, cost %v", end.Unpriced, end.Usage.CostUSD)
	}
}

// TestUsageBudget: claude stopped at its --max-budget-usd (real output)
// ended for its budget, its usage all zero and its models' not.
func TestUsageBudget(t *testing.T) {
	h, _ := testRegistry().Lookup("claude")
	out := Output{Stdout: captured(t, "claude-budget.stdout"), ExitCode: 1}
	end := h.SessionEnd(out)
	if !end.Budget || !end.Worked || end.MaxTurns {
		t.Errorf("SessionEnd = %+v; want Budget and Worked", end)
	}
	want := `{"turns":1,"input_tokens":12478,"output_tokens":10,"cache_read_tokens":4,"cache_write_tokens":2,"cost_usd":0.0501228}`
	if got := usageOf(t, end.Used(nil)); got != want {
		t.Errorf("Used\n got %s\nwant %s", got, want)
	}
	if _, cause, failed := h.Final(out); !failed || cause != "Reached maximum budget ($0.0001)" {
		t.Errorf("Final: cause %q, failed %v", cause, failed)
	}
}

// TestUsageAbsent: a figure a CLI does not report is absent, never zero.
func TestUsageAbsent(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		harness, out, want string
	}{
		{"claude", `{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s"}`, `{}`},
		{"claude", `{"type":"result","subtype":"success","is_error":false,"result":"ok","num_turns":3,"total_cost_usd":0.0712,"usage":{"input_tokens":1520,"output_tokens":402}}`, `{"turns":3,"input_tokens":1520,"output_tokens":402,"cost_usd":0.0712}`},
		{"claude", `not json`, `{}`},
		{"codex", "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"401\"}}\n", `{}`},
		{"codex", "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":24763,\"output_tokens\":122}}\n", `{"turns":1,"input_tokens":24763,"output_tokens":122}`},
		{"gemini", "{\"type\":\"init\",\"session_id\":\"g\"}\n{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"ok\"}\n{\"type\":\"result\",\"status\":\"success\"}\n", `{}`},
		{"gemini", "{\"type\":\"result\",\"status\":\"error\",\"stats\":{\"input_tokens\":100,\"cached\":30,\"output_tokens\":5}}\n", `{"input_tokens":70,"output_tokens":5,"cache_read_tokens":30}`},
		{"opencode", "{\"type\":\"step_finish\",\"part\":{\"tokens\":{\"input\":5}}}\n", `{"turns":1,"input_tokens":5}`},
		{"opencode", "{\"type\":\"text\",\"part\":{\"text\":\"ok\"}}\n", `{}`},
		// A request that spent tokens at a cost of 0 or none: a model
		// opencode has no prices for, whatever the others cost.
		{"opencode", "{\"type\":\"step_finish\",\"part\":{\"cost\":0,\"tokens\":{\"input\":5}}}\n", `{"turns":1,"input_tokens":5}`},
		{"opencode", "{\"type\":\"step_finish\",\"part\":{\"cost\":0.1,\"tokens\":{\"input\":5}}}\n{\"type\":\"step_finish\",\"part\":{\"cost\":0,\"tokens\":{\"cache\":{\"read\":3}}}}\n", `{"turns":2,"input_tokens":5,"cache_read_tokens":3}`},
		// Nothing spent, nothing to price.
		{"opencode", "{\"type\":\"step_finish\",\"part\":{\"cost\":0,\"tokens\":{\"input\":0,\"output\":0}}}\n", `{"turns":1,"input_tokens":0,"output_tokens":0,"cost_usd":0}`},
		{"mybot", `{"cost":1}`, `{}`},
	} {
		h, _ := r.Lookup(tc.harness)
		if got := usageOf(t, h.SessionEnd(Output{Stdout: []byte(tc.out)}).Used(nil)); got != tc.want {
			t.Errorf("%s %s: Used\n got %s\nwant %s", tc.harness, tc.out, got, tc.want)
		}
	}
}

// TestUsageCustom reads a custom harness's usage by the paths of its
// [harnesses.NAME.usage]: from its stdout's JSON, or the last line of it
// that is JSON.
func TestUsageCustom(t *testing.T) {
	r := NewRegistry([]ir.CustomHarness{{
		Name:    "bot",
		Command: []string{"bot"},
		Usage: map[string]string{
			"turns":         ".turns",
			"input_tokens":  ".usage.in",
			"output_tokens": ".usage.out[1]",
			"cost_usd":      ".total_cost_usd",
		},
	}})
	h, _ := r.Lookup("bot")
	if !h.ReportsCost() {
		t.Errorf("ReportsCost() = false for a harness with a cost_usd path")
	}
	for _, tc := range []struct{ out, want string }{
		{`{"turns":3,"usage":{"in":100,"out":[1,20]},"total_cost_usd":0.25}`, `{"turns":3,"input_tokens":100,"output_tokens":20,"cost_usd":0.25}`},
		{"working…\n{\"turns\":1}\nnot json\n{\"turns\":2,\"total_cost_usd\":0}\n", `{"turns":2,"cost_usd":0}`},
		{`{"turns":1.5,"usage":{"in":-1,"out":"20"},"total_cost_usd":-2}`, `{}`},
		{`{"turns":"3"}`, `{}`},
		{`plain text`, `{}`},
	} {
		if got := usageOf(t, h.SessionEnd(Output{Stdout: []byte(tc.out)}).Used(nil)); got != tc.want {
			t.Errorf("%q: Used\n got %s\nwant %s", tc.out, got, tc.want)
		}
	}
}

// TestArgvBudget: claude takes the budget a session has left; the other
// CLIs have no such flag.
func TestArgvBudget(t *testing.T) {
	r := testRegistry()
	inv := Invocation{Prompt: "p", Worktree: "/w", OutputFile: "o", FilesDir: "/f", BudgetUSD: 1.2345}
	for _, name := range []string{"claude", "codex", "gemini", "opencode", "mybot"} {
		h, _ := r.Lookup(name)
		c, err := h.Command(inv)
		argv := c.Argv
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(argv, "--max-budget-usd")
		switch {
		case name == "claude" && (i < 0 || i+1 >= len(argv) || argv[i+1] != "1.2345"):
			t.Errorf("claude: %q; want --max-budget-usd 1.2345", argv)
		case name != "claude" && strings.Contains(strings.Join(argv, " "), "budget"):
			t.Errorf("%s: %q passes a budget", name, argv)
		}
		inv0 := inv
		inv0.BudgetUSD = 0
		c0, _ := h.Command(inv0)
		argv = c0.Argv
		if slices.Contains(argv, "--max-budget-usd") {
			t.Errorf("%s: %q passes a budget of 0", name, argv)
		}
	}
}

// TestUsageJQ holds what a compiled script reads with jq of a session's
// usage and whether its CLI stopped it at its budget (EndJQ) to what
// SessionEnd reads from the same output (Used, for a session that resumed
// none, and Budget).
func TestUsageJQ(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not on PATH")
	}
	r := NewRegistry([]ir.CustomHarness{{Name: "bot", Command: []string{"bot"}, Usage: map[string]string{
		"turns": ".turns", "input_tokens": ".usage.in", "output_tokens": ".usage.out[1]", "cost_usd": ".total_cost_usd",
	}}})
	cases := []struct{ harness, out string }{
		{"bot", `{"turns":3,"usage":{"in":100,"out":[1,20]},"total_cost_usd":0.25}`},
		{"bot", "working…\n{\"turns\":1}\nnot json\n{\"turns\":2,\"total_cost_usd\":0}\n"},
		{"bot", `{"turns":1.5,"usage":{"in":-1,"out":"20"},"total_cost_usd":-2}`},
		{"bot", `[1, 2]`},
		{"bot", `plain text`},
		{"claude", `{"type":"result","subtype":"success","is_error":false,"result":"ok","num_turns":3,"total_cost_usd":0.0712,"usage":{"input_tokens":1520,"output_tokens":402}}`},
		{"claude", `{"type":"result","subtype":"success","result":"ok"}`},
		{"claude", "not json"},
		{"codex", "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":24763,\"output_tokens\":122}}\n"},
		{"codex", "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n"},
		{"gemini", "{\"type\":\"init\",\"session_id\":\"g\"}\n{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"ok\"}\n"},
		{"gemini", "{\"type\":\"tool_use\"}\n{\"type\":\"tool_use\"}\n{\"type\":\"tool_result\"}\n{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"ok\"}\n{\"type\":\"result\",\"status\":\"success\",\"stats\":{\"total_tokens\":120,\"input_tokens\":100,\"cached\":30,\"output_tokens\":5}}\n"},
		{"gemini", "{\"type\":\"result\",\"status\":\"error\",\"stats\":{\"total_tokens\":107,\"input_tokens\":100,\"input\":90,\"cached\":10}}\n"},
		{"opencode", "{\"type\":\"step_finish\",\"part\":{\"tokens\":{\"input\":5}}}\n{\"type\":\"step_finish\",\"part\":{\"cost\":0.1,\"tokens\":{\"output\":1,\"reasoning\":2}}}\n{\"type\":\"step_finish\",\"part\":{\"cost\":0.2}}\n"},
		{"opencode", "{\"type\":\"text\",\"part\":{\"text\":\"ok\"}}\n"},
		{"opencode", "{\"type\":\"step_finish\",\"part\":{\"cost\":0.1,\"tokens\":{\"input\":5}}}\n{\"type\":\"step_finish\",\"part\":{\"cost\":0,\"tokens\":{\"cache\":{\"read\":3}}}}\n"},
		{"opencode", "{\"type\":\"step_finish\",\"part\":{\"cost\":0,\"tokens\":{\"input\":0,\"output\":0}}}\n"},
		{"opencode", string(captured(t, "opencode-unpriced.stdout"))},
	}
	for _, name := range []string{"claude", "codex", "gemini", "opencode"} {
		for _, sample := range []string{"-usage.stdout", "-resumed.stdout", "-capped.stdout"} {
			cases = append(cases, struct{ harness, out string }{name, string(captured(t, name+sample))})
		}
	}
	cases = append(cases, struct{ harness, out string }{"claude", string(captured(t, "claude-budget.stdout"))})
	defs := FinalJQDefs()
	dir := t.TempDir()
	for i, tc := range cases {
		h, _ := r.Lookup(tc.harness)
		out := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(out, []byte(tc.out), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := exec.Command("jq", "-n", "-c", "--rawfile", "out", out, "--rawfile", "err", os.DevNull, "--rawfile", "last", os.DevNull,
			"--argjson", "rc", "0", defs+" ("+h.EndJQ()+") as $e | ($e | session_used), $e.budget == true").Output()
		if err != nil {
			t.Errorf("%s %d: jq: %v", tc.harness, i, err)
			continue
		}
		end := h.SessionEnd(Output{Stdout: []byte(tc.out)})
		want := usageOf(t, end.Used(nil)) + "\n" + strconv.FormatBool(end.Budget)
		if string(bytes.TrimSpace(got)) != want {
			t.Errorf("%s %d: jq (usage, then budget)\n got %s\nwant %s", tc.harness, i, bytes.TrimSpace(got), want)
		}
	}
}

// TestUsageCapped reads the usage of sessions stopped at a turn cap of 2
// (real output, TestRealSessionsTurnCapUsage): all that each CLI reported
// up to then. Claude and gemini stop themselves and say so; cairn stops
// codex and opencode as a third turn starts. Codex printed no usage for
// its unfinished turn: it is read from its session file under CODEX_HOME
// (and is none without it); opencode's step_finish events are there.
func TestUsageCapped(t *testing.T) {
	codexHome := t.TempDir()
	thread := "01a2366f-2830-73a2-a66a-86de5493c9b7"
	rollout := filepath.Join(codexHome, "sessions", "2026", "12", "02", "rollout-2026-12-02T11-06-12-"+thread+".jsonl")
	if err := os.MkdirAll(filepath.Dir(rollout), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rollout, captured(t, "codex-capped.rollout.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := testRegistry()
	for _, tc := range []struct {
		harness  string
		env      []string
		maxTurns bool
		want     string
	}{
		{"claude", nil, true, `{"turns":3,"input_tokens":30401,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":4,"cost_usd":0.061012800000000006}`},
		{"gemini", nil, true, `{"turns":2,"input_tokens":21387,"output_tokens":20,"cache_read_tokens":8}`},
		{"codex", []string{"CODEX_HOME=" + codexHome}, false, `{"turns":1,"input_tokens":20547,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":0}`},
		{"codex", []string{"HOME=" + t.TempDir()}, false, `{}`},
		{"opencode", nil, false, `{"turns":2,"input_tokens":16200,"output_tokens":20,"cache_read_tokens":8,"cache_write_tokens":0}`},
	} {
		h, _ := r.Lookup(tc.harness)
		end := h.SessionEnd(Output{Stdout: captured(t, tc.harness+"-capped.stdout"), ExitCode: -1, Env: tc.env})
		if got := usageOf(t, end.Used(nil)); got != tc.want {
			t.Errorf("%s %q: Used\n got %s\nwant %s", tc.harness, tc.env, got, tc.want)
		}
		if end.MaxTurns != tc.maxTurns || !end.Worked || end.ID == "" {
			t.Errorf("%s: SessionEnd = %+v; want MaxTurns %v, Worked and an id", tc.harness, end, tc.maxTurns)
		}
	}
}
