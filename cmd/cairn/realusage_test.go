package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/modeldouble"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// TestRealAgentsUsage runs `cairn run` on a process with one session step
// per real agent CLI (docs/design.md §11), every CLI pointed at the model double (issue
// 11), under a run budget: what each CLI reported its session used, read
// again here from the step's trace, must arrive in run.json, the log, show
// and status; claude takes the budget left (--max-budget-usd), and the
// run's cost is claude's and opencode's, the CLIs that report one. Then a
// budget claude's session passes stops the run there.
func TestRealAgentsUsage(t *testing.T) {
	bin := realAgentsBin(t)
	cairn, err := exec.LookPath("cairn")
	if err != nil {
		t.Fatal(err)
	}
	d := modeldouble.New(modeldouble.Forever(modeldouble.Text("all done")))
	defer d.Close()

	// A home outside the temporary folder: codex makes its sandbox's
	// helper links in CODEX_HOME, which it refuses to do under it.
	home, err := os.MkdirTemp("/var/tmp", "cairn-usage-home-")
	if err != nil {
		home = t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"),
		`{"security":{"auth":{"selectedType":"gemini-api-key"}},"general":{"maxAttempts":2}}`)
	writeFile(t, filepath.Join(home, ".codex", "config.toml"), fmt.Sprintf(`model_provider = "double"
allow_login_shell = false

[model_providers.double]
name = "double"
base_url = "%s/v1"
env_key = "MODELDOUBLE_API_KEY"
wire_api = "responses"
request_max_retries = 1
stream_max_retries = 1
`, d.URL))
	opencode, _ := json.Marshal(map[string]any{"provider": map[string]any{"double": map[string]any{
		"npm": "@ai-sdk/openai-compatible", "name": "double",
		"options": map[string]any{"baseURL": d.URL + "/v1", "apiKey": "sk-modeldouble"},
		"models": map[string]any{"double-model": map[string]any{"name": "double-model", "tool_call": true,
			"cost": map[string]any{"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}}},
	}}})

	repo := t.TempDir()
	path := []string{filepath.Dir(cairn), bin}
	for _, tool := range []string{"node", "git"} {
		if p, err := exec.LookPath(tool); err == nil {
			path = append(path, filepath.Dir(p))
		}
	}
	path = append(path, "/usr/local/bin", "/usr/bin", "/bin")
	env := []string{
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"HOME=" + home,
		"CAIRN_HOME=" + filepath.Join(home, "cairn"),
		"TMPDIR=" + t.TempDir(),
		"LANG=C.UTF-8",
		"NO_COLOR=1",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_AUTHOR_NAME=Cairn Test", "GIT_AUTHOR_EMAIL=test@cairn.invalid",
		"GIT_COMMITTER_NAME=Cairn Test", "GIT_COMMITTER_EMAIL=test@cairn.invalid",
		"ANTHROPIC_BASE_URL=" + d.URL,
		"ANTHROPIC_API_KEY=sk-modeldouble",
		"CLAUDE_CODE_MAX_RETRIES=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CODEX_API_KEY=sk-modeldouble",
		"MODELDOUBLE_API_KEY=sk-modeldouble",
		"GOOGLE_GEMINI_BASE_URL=" + d.URL,
		"GEMINI_API_KEY=sk-modeldouble",
		"OPENCODE_CONFIG_CONTENT=" + string(opencode),
		"OPENCODE_DISABLE_MODELS_FETCH=1",
	}
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		p := &proc.Proc{Argv: args, Dir: repo, Env: env, Stdout: &stdout, Stderr: &stderr, Timeout: 5 * time.Minute, Grace: time.Second}
		if args[0] == "cairn" {
			p.Argv = append([]string{cairn}, args[1:]...)
		}
		res, err := p.Run(context.Background())
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%q: exit %d, %v\n%s%s", args, res.ExitCode, err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	run("git", "init", "-q", "-b", "main")
	run("git", "commit", "-q", "--allow-empty", "-m", "init")
	writeFile(t, filepath.Join(repo, "usage.toml"), `version = 1

[limits]
budget_usd = 100

[[steps]]
name = "claude"
prompt = "Say all done."
harness = "claude"

[[steps]]
name = "codex"
prompt = "Say all done."
harness = "codex"
model = "gpt-5.5"

[[steps]]
name = "gemini"
prompt = "Say all done."
harness = "gemini"
model = "gemini-2.5-pro"

[[steps]]
name = "opencode"
prompt = "Say all done."
harness = "opencode"
model = "double/double-model"
`)
	run("cairn", "run", "usage.toml")

	dirs, _ := filepath.Glob(filepath.Join(home, "cairn", "runs", "usage_*"))
	if len(dirs) != 1 {
		t.Fatalf("run folders %q", dirs)
	}
	rec, err := record.Load(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	logText, err := os.ReadFile(filepath.Join(dirs[0], record.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	reg := harness.NewRegistry(nil)
	var total ir.Usage
	for _, s := range rec.Steps {
		h, _ := reg.Lookup(s.Name)
		trace, err := os.ReadFile(filepath.Join(dirs[0], s.Trace))
		if err != nil {
			t.Fatal(err)
		}
		// What its CLI reported, with the cost cairn estimates from its
		// price table for a CLI that reports tokens and none.
		model := ""
		if len(s.Actions) > 0 {
			model = s.Actions[0].Model
		}
		want := h.SessionEnd(harness.Output{Stdout: stdoutOf(trace)}).Estimated(harness.BuiltinPrices(), s.Name, model).Used(nil)
		got, _ := json.Marshal(s.Usage)
		wantJSON, _ := json.Marshal(want)
		t.Logf("%s: %s", s.Name, got)
		if string(got) != string(wantJSON) || want.Turns == nil || want.InputTokens == nil || *want.OutputTokens == 0 {
			t.Errorf("%s: usage %s; want what its CLI reported, %s", s.Name, got, wantJSON)
		}
		if h.ReportsCost() && (s.Usage.CostUSD == nil || s.Usage.CostEstimated) || !h.ReportsCost() && s.Usage.CostUSD != nil && !s.Usage.CostEstimated {
			t.Errorf("%s: cost %v (estimated: %v); its CLI reports a cost: %v", s.Name, s.Usage.CostUSD, s.Usage.CostEstimated, h.ReportsCost())
		}
		line := fmt.Sprintf(`(?m)^step=%s .* turns=%d tokens_in=%d tokens_out=%d `, s.Name, *want.Turns, *want.InputAll(), *want.OutputTokens)
		if !regexp.MustCompile(line).Match(logText) {
			t.Errorf("%s: no log line matching %s in\n%s", s.Name, line, logText)
		}
		total = total.Plus(want)
	}
	if !rec.Usage.Equal(total) || total.Cost() <= 0 {
		t.Errorf("run usage %+v; want the steps' total %+v", rec.Usage, total)
	}
	show := run("cairn", "show")
	if !strings.Contains(show, "\nusage\n") || !strings.Contains(show, ir.FormatCost(total.Cost())) {
		t.Errorf("show has no usage table with the run's cost %s:\n%s", ir.FormatCost(total.Cost()), show)
	}
	if status := run("cairn", "status"); !strings.Contains(status, ir.FormatCost(total.Cost())) {
		t.Errorf("status shows no cost %s:\n%s", ir.FormatCost(total.Cost()), status)
	}

	// A budget below what claude's session costs: claude, given it,
	// stops the session (error_max_budget_usd), which fails the step
	// with the run's budget as the cause, and the rest is cancelled.
	if err := os.RemoveAll(filepath.Join(home, "cairn", "runs")); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	p := &proc.Proc{Argv: []string{cairn, "run", "--budget", "0.001", "usage.toml"}, Dir: repo, Env: env, Stderr: &stderr, Timeout: 5 * time.Minute, Grace: time.Second}
	if res, err := p.Run(context.Background()); err != nil || res.ExitCode != 1 {
		t.Fatalf("run --budget 0.001: exit %d, %v\n%s", res.ExitCode, err, stderr.String())
	}
	t.Logf("run --budget 0.001:\n%s", stderr.String())
	if !regexp.MustCompile(`(?m)failed claude: budget spent: \$0\.\d+ of \$0\.001$`).Match(stderr.Bytes()) ||
		!strings.Contains(stderr.String(), "cancelled codex") {
		t.Errorf("claude's session past its budget did not stop the run")
	}
}

// stdoutOf is a session's stdout as its trace keeps it: the trace less its
// {"stderr": LINE} lines.
func stdoutOf(trace []byte) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(trace))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) == nil && len(e) == 1 && e["stderr"] != nil {
			continue
		}
		out.Write(sc.Bytes())
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// writeFile writes text to path, making its folder.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRealSessionsTurnCapUsage: a session stopped at its turn cap (max_turns
// = 2, a model that calls a tool at every turn) records what its CLI
// reported it used up to then: for claude and gemini, which stop at the cap
// themselves, all that the model double billed (see reported for codex and
// opencode). With CAIRN_USAGE_SAMPLES=DIR each CLI's output is kept as
// DIR/NAME-capped.stdout, the samples the harness tests read.
func TestRealSessionsTurnCapUsage(t *testing.T) {
	bin := realSessionsBin(t)
	t.Parallel()
	for _, cli := range realCLIs {
		t.Run(cli.name, func(t *testing.T) {
			t.Parallel()
			realSlots <- struct{}{}
			defer func() { <-realSlots }()
			d := modeldouble.New(modeldouble.Forever(modeldouble.Shell("echo again")))
			defer d.Close()
			home := realHome(t)
			w := newRealWork(t, bin, home, cli.endpoint(t, home, d.URL))
			r := w.run(t, "run", w.process(t, "capped", oneCLI{cli.name, cli.model}))
			logDouble(t, cli.name, d)

			s := r.step(t, "loop")
			if r.code != 1 || s.Outcome != record.Failed || !turnLimit.MatchString(s.Cause) {
				t.Errorf("exit %d, step %s, cause %q; want 1, failed at the turn limit", r.code, s.Outcome, s.Cause)
			}
			trace, err := os.ReadFile(filepath.Join(r.dir, s.Trace))
			if err != nil {
				t.Fatal(err)
			}
			save(t, cli.name+"-capped.stdout", stdoutOf(trace))
			if cli.name == "codex" {
				// Where codex keeps what it reported of the unfinished turn.
				rollouts, _ := filepath.Glob(filepath.Join(home, ".codex", "sessions", "*", "*", "*", "rollout-*.jsonl"))
				if len(rollouts) != 1 {
					t.Fatalf("codex session files: %q; want one", rollouts)
				}
				b, err := os.ReadFile(rollouts[0])
				if err != nil {
					t.Fatal(err)
				}
				save(t, "codex-capped.rollout.jsonl", b)
			}
			billed := reported(cli.name, d, 2)
			got, _ := json.Marshal(s.Usage)
			t.Logf("%s: usage %s; the double billed %+v, the CLI reported %+v, over %d turns", cli.name, got, d.Billed(), billed, len(d.Turns()))
			if s.Usage.Turns == nil || *s.Usage.Turns == 0 {
				t.Errorf("%s: no turns recorded", cli.name)
			}
			for _, f := range []struct {
				name string
				got  *int64
				want int64
			}{
				{"input", s.Usage.InputTokens, billed.InputTokens},
				{"output", s.Usage.OutputTokens, billed.OutputTokens},
				{"cache read", s.Usage.CacheReadTokens, billed.CacheReadTokens},
				{"cache write", s.Usage.CacheWriteTokens, billed.CacheWriteTokens},
			} {
				if got := valueOf(f.got); got != f.want {
					t.Errorf("%s: %s tokens %d recorded; the CLI was billed %d", cli.name, f.name, got, f.want)
				}
			}
		})
	}
}

// reported is what a CLI stopped at its turn cap of maxTurns had been
// billed for and reported: every answer of the double, but, for a CLI
// cairn stops itself (codex and opencode count no turns of their own), the
// answers of the first maxTurns turns only: cairn stops the CLI as the next
// answer's tool call starts, before the CLI records what that answer used
// (codex in its session file once the answer ends, opencode in its
// step_finish event). Opencode's events report none of its side requests
// (the session's title).
func reported(cli string, d *modeldouble.Server, maxTurns int) modeldouble.Usage {
	stopped := cli == "codex" || cli == "opencode"
	var u modeldouble.Usage
	turns := 0
	for _, r := range d.Requests() {
		if r.Turn >= 0 {
			turns++
		}
		if stopped && turns > maxTurns || cli == "opencode" && r.Turn < 0 {
			continue
		}
		u = u.Plus(r.Billed)
	}
	return u
}

// valueOf is *n, or 0 for a figure not reported.
func valueOf(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}
