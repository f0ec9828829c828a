package modeldouble

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealAgentsUsage runs each real CLI for a session of two turns (a
// shell command, then a text), then resumes it for one more, and keeps
// what it printed: with CAIRN_USAGE_SAMPLES=DIR, in DIR/NAME-usage.stdout
// and DIR/NAME-resumed.stdout, the samples the harness tests read usage
// from (some CLIs count a resumed session's usage from its first start).
func TestRealAgentsUsage(t *testing.T) {
	bin := realAgentsBin(t)
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			d := New(Shell("echo used"), Text("all done"), Text("resumed"))
			defer d.Close()
			s := newSession(t, "write", "Run echo used, then say all done.")
			r := a.run(t, bin, d, s)
			if r.exit != 0 || r.message != "all done" {
				t.Errorf("exit %d, message %q; want 0 and the script's last text", r.exit, r.message)
			}
			save(t, a.name+"-usage.stdout", r.stdout)
			s.resume, s.prompt = r.id, "Say resumed."
			r = a.run(t, bin, d, s)
			if r.exit != 0 || r.message != "resumed" {
				t.Errorf("resumed: exit %d, message %q; want 0 and the script's last text", r.exit, r.message)
			}
			save(t, a.name+"-resumed.stdout", r.stdout)
		})
	}
}

// TestRealAgentsBudget runs claude with a budget its first turn spends:
// the session stops with subtype error_max_budget_usd.
func TestRealAgentsBudget(t *testing.T) {
	bin := realAgentsBin(t)
	a := agents[0]
	argv := a.argv
	a.argv = func(d *Server, s session) []string {
		return append(argv(d, s), "--max-budget-usd", "0.0001")
	}
	d := New(Forever(Shell("echo again")))
	defer d.Close()
	s := newSession(t, "write", "Loop.")
	r := a.run(t, bin, d, s)
	if r.exit == 0 {
		t.Errorf("exit 0 for a session past its budget")
	}
	save(t, "claude-budget.stdout", r.stdout)
}

// save writes out as DIR/name when CAIRN_USAGE_SAMPLES=DIR is set.
func save(t *testing.T, name, out string) {
	t.Helper()
	dir := os.Getenv("CAIRN_USAGE_SAMPLES")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRealAgentsUnpriced runs opencode with a model its config gives no
// prices: it reports the session's tokens and a cost of 0, which is no
// measurement (opencode-unpriced.stdout, with CAIRN_USAGE_SAMPLES=DIR).
func TestRealAgentsUnpriced(t *testing.T) {
	bin := realAgentsBin(t)
	var a agent
	for _, x := range agents {
		if x.name == "opencode" {
			a = x
		}
	}
	env := a.env
	a.env = func(t *testing.T, d *Server, s session) []string {
		config, _ := json.Marshal(map[string]any{"provider": map[string]any{"double": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "double",
			"options": map[string]any{"baseURL": d.URL + "/v1", "apiKey": "sk-modeldouble"},
			"models":  map[string]any{"double-model": map[string]any{"name": "double-model", "tool_call": true}},
		}}})
		out := env(t, d, s)
		for i, v := range out {
			if strings.HasPrefix(v, "OPENCODE_CONFIG_CONTENT=") {
				out[i] = "OPENCODE_CONFIG_CONTENT=" + string(config)
			}
		}
		return out
	}
	d := New(Shell("echo used"), Text("all done"))
	defer d.Close()
	s := newSession(t, "write", "Run echo used, then say all done.")
	r := a.run(t, bin, d, s)
	if r.exit != 0 || r.message != "all done" {
		t.Errorf("exit %d, message %q; want 0 and the script's last text", r.exit, r.message)
	}
	if !strings.Contains(r.stdout, `"cost":0}`) {
		t.Errorf("opencode reported a cost for a model without prices:\n%s", r.stdout)
	}
	save(t, "opencode-unpriced.stdout", r.stdout)
}
