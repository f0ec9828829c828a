package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/cairn-dev/cairn/internal/testwait"
)

// receiver is an OTLP/HTTP collector in the test's process: it keeps the
// spans every POST /v1/traces brings.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []*tracepb.Span
	// service is the service.name of the last export.
	service string
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
			http.Error(w, "not here", http.StatusNotFound)
			return
		}
		body, err := io.ReadAll(req.Body)
		var ex coltrace.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &ex)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		for _, rs := range ex.ResourceSpans {
			if v, ok := attrs(rs.GetResource().GetAttributes())["service.name"]; ok {
				rc.service = v
			}
			for _, ss := range rs.ScopeSpans {
				rc.spans = append(rc.spans, ss.Spans...)
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// received are the spans received so far, by name; a name two spans have
// maps to the last.
func (rc *receiver) received() ([]*tracepb.Span, map[string]*tracepb.Span) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	by := map[string]*tracepb.Span{}
	for _, s := range rc.spans {
		by[s.Name] = s
	}
	return append([]*tracepb.Span(nil), rc.spans...), by
}

// attrs are a span's (or a resource's) attributes, each value as text.
func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.GetValue().Value.(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = strconv.FormatInt(v.IntValue, 10)
		case *commonpb.AnyValue_DoubleValue:
			m[kv.Key] = strconv.FormatFloat(v.DoubleValue, 'g', -1, 64)
		case *commonpb.AnyValue_BoolValue:
			m[kv.Key] = strconv.FormatBool(v.BoolValue)
		}
	}
	return m
}

// tracedProcess is a process with a command step that echoes the trace
// context it was given, a parallel group of two commands, and a session
// step its stubs answer.
var tracedProcess = map[string]string{
	"traced.toml": `version = 1

[worktrees.l]
kind = "throwaway"

[worktrees.r]
kind = "throwaway"

[[steps]]
name = "probe"
command = 'echo "tp=${TRACEPARENT:-}"'

[[steps]]
name = "left"
command = "echo left"
worktree = "l"
parallel = "pair"

[[steps]]
name = "right"
command = "echo right"
worktree = "r"
parallel = "pair"

[[steps]]
name = "ask"
prompt = "Say something."
`,
	"traced.stubs.toml": `[stubs.ask]
result = "said"
usage = { turns = 3, input_tokens = 1200, output_tokens = 80, cache_read_tokens = 500, cost_usd = 0.25 }
`,
}

// cairnWith runs the cairn binary with args in dir, its environment the
// test's with extra set over it.
func cairnWith(t *testing.T, dir string, extra []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("cairn", args...)
	cmd.Dir, cmd.Env = dir, append(environ(t, dir), extra...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("cairn %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// probeResult is what step probe of the one run in dir's CAIRN_HOME wrote.
func probeResult(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "home", "runs", "traced_*", "results", "probe.md"))
	if err != nil || len(files) != 1 {
		t.Fatalf("want one result of step probe, found %v (%v)", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestTracesOfARun runs a process against an OTLP receiver and checks the
// tree of spans it sent: one run span, the steps under it, a shell under
// the command step, a session under the session step, their outcomes and
// usage, and the command given the trace context of its shell's span.
func TestTracesOfARun(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	dir := t.TempDir()
	writeFiles(t, dir, tracedProcess)
	gitRepo(t, dir)
	_, stderr, code := cairnWith(t, dir, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rc.URL, "OTEL_RESOURCE_ATTRIBUTES=team=tools"},
		"run", "traced.toml", "--stubs", "traced.stubs.toml")
	if code != 0 {
		t.Fatalf("cairn run: exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, "traces") {
		t.Errorf("stderr speaks of traces:\n%s", stderr)
	}
	spans, by := rc.received()
	var runs []*tracepb.Span
	for _, s := range spans {
		if len(s.ParentSpanId) == 0 {
			runs = append(runs, s)
		}
	}
	if len(runs) != 1 || runs[0].Name != "run traced" {
		t.Fatalf("want one root span, run traced; got %d: %v", len(runs), names(runs))
	}
	run := runs[0]
	ra := attrs(run.Attributes)
	if ra["cairn.process"] != "traced" || ra["cairn.outcome"] != "succeeded" || !strings.HasPrefix(ra["cairn.run"], "traced_") {
		t.Errorf("run span attributes: %v", ra)
	}
	// The run's span carries what the run used in all, as its record
	// says: here, the one session's.
	for k, want := range map[string]string{
		"cairn.turns": "3", "gen_ai.usage.input_tokens": "1200", "gen_ai.usage.output_tokens": "80",
		"cairn.cost_usd": "0.25", "cairn.cost_estimated": "false",
	} {
		if ra[k] != want {
			t.Errorf("run span: %s = %q, want %q (all: %v)", k, ra[k], want, ra)
		}
	}
	if rc.service != "cairn" {
		t.Errorf("service.name = %q, want cairn", rc.service)
	}
	for _, name := range []string{"probe", "left", "right", "ask"} {
		s := by["step "+name]
		if s == nil {
			t.Fatalf("no span step %s among %v", name, names(spans))
		}
		if !bytes.Equal(s.ParentSpanId, run.SpanId) || !bytes.Equal(s.TraceId, run.TraceId) {
			t.Errorf("step %s is not a child of the run span", name)
		}
		if a := attrs(s.Attributes); a["cairn.step"] != name || a["cairn.outcome"] != "succeeded" {
			t.Errorf("step %s attributes: %v", name, a)
		}
		if s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
			t.Errorf("step %s has status error", name)
		}
	}
	// Each command step has its shell under it.
	shells := 0
	for _, s := range spans {
		if s.Name == "shell command" {
			shells++
		}
	}
	if shells != 3 {
		t.Errorf("%d shell spans, want 3 (probe, left, right)", shells)
	}
	var shell *tracepb.Span
	for _, s := range spans {
		if s.Name == "shell command" && bytes.Equal(s.ParentSpanId, by["step probe"].SpanId) {
			shell = s
		}
	}
	if shell == nil {
		t.Fatalf("no shell span under step probe among %v", names(spans))
	}
	if a := attrs(shell.Attributes); a["cairn.shell"] != "command" || a["process.exit.code"] != "0" || a["cairn.outcome"] != "succeeded" {
		t.Errorf("shell span attributes: %v", a)
	}
	session := by["session claude"]
	if session == nil || !bytes.Equal(session.ParentSpanId, by["step ask"].SpanId) {
		t.Fatalf("no session span under step ask among %v", names(spans))
	}
	sa := attrs(session.Attributes)
	for k, want := range map[string]string{
		"cairn.step": "ask", "cairn.harness": "claude", "cairn.session.role": "session", "cairn.outcome": "succeeded",
		"cairn.turns": "3", "gen_ai.usage.input_tokens": "1200", "gen_ai.usage.output_tokens": "80",
		"gen_ai.usage.cache_read.input_tokens": "500", "cairn.cost_usd": "0.25", "cairn.cost_estimated": "false",
	} {
		if sa[k] != want {
			t.Errorf("session span: %s = %q, want %q (all: %v)", k, sa[k], want, sa)
		}
	}
	if a := attrs(by["step ask"].Attributes); a["cairn.cost_usd"] != "0.25" {
		t.Errorf("step ask attributes: %v", a)
	}
	// The command saw its shell's span as its parent: same trace as the
	// run's, the shell span's id.
	want := "tp=00-" + hex.EncodeToString(run.TraceId) + "-" + hex.EncodeToString(shell.SpanId) + "-01"
	if got := probeResult(t, dir); got != want {
		t.Errorf("step probe saw %q, want %q", got, want)
	}
}

// TestTracesOfATest runs cairn test over two test files, one whose
// expectations hold and one whose do not: one root span, test, with a case
// span per file under it, each with its outcome, and the run of each
// case's process under its case.
func TestTracesOfATest(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	dir := t.TempDir()
	files := map[string]string{
		"good.test.toml": "process = \"traced.toml\"\nstubs = \"traced.stubs.toml\"\n[expect]\nstatus = \"succeeded\"\n",
		"bad.test.toml":  "process = \"traced.toml\"\nstubs = \"traced.stubs.toml\"\n[expect]\nstatus = \"failed\"\n",
	}
	maps.Copy(files, tracedProcess)
	writeFiles(t, dir, files)
	gitRepo(t, dir)
	_, stderr, code := cairnWith(t, dir, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rc.URL}, "test", "good.test.toml", "bad.test.toml")
	if code != 1 {
		t.Fatalf("cairn test: exit %d, want 1 (one case fails)\n%s", code, stderr)
	}
	spans, by := rc.received()
	var roots []*tracepb.Span
	for _, s := range spans {
		if len(s.ParentSpanId) == 0 {
			roots = append(roots, s)
		}
	}
	if len(roots) != 1 || roots[0].Name != "test" {
		t.Fatalf("want one root span, test; got %d: %v", len(roots), names(roots))
	}
	test := roots[0]
	if a := attrs(test.Attributes); a["cairn.test.files"] != "2" || a["cairn.outcome"] != "failed" {
		t.Errorf("test span attributes: %v", a)
	}
	for file, outcome := range map[string]string{"good.test.toml": "passed", "bad.test.toml": "failed"} {
		c := by["case "+file]
		if c == nil {
			t.Fatalf("no span case %s among %v", file, names(spans))
		}
		if !bytes.Equal(c.ParentSpanId, test.SpanId) {
			t.Errorf("case %s is not a child of the test span", file)
		}
		if a := attrs(c.Attributes); a["cairn.test.file"] != file || a["cairn.outcome"] != outcome {
			t.Errorf("case %s attributes: %v", file, a)
		}
		runs := 0
		for _, s := range spans {
			if s.Name == "run traced" && bytes.Equal(s.ParentSpanId, c.SpanId) {
				runs++
				if a := attrs(s.Attributes); a["cairn.outcome"] != "succeeded" || a["cairn.cost_usd"] != "0.25" {
					t.Errorf("run of case %s attributes: %v", file, a)
				}
			}
		}
		if runs != 1 {
			t.Errorf("case %s has %d run spans under it, want 1", file, runs)
		}
	}
}

// TestTracesOff runs the process with no OTEL variable, and with an
// endpoint that OTEL_SDK_DISABLED turns off: nothing is sent, no step is
// given a trace context, and the run ends as it does without them.
func TestTracesOff(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	for _, extra := range [][]string{nil, {"OTEL_EXPORTER_OTLP_ENDPOINT=" + rc.URL, "OTEL_SDK_DISABLED=true"}} {
		dir := t.TempDir()
		writeFiles(t, dir, tracedProcess)
		gitRepo(t, dir)
		stdout, stderr, code := cairnWith(t, dir, extra, "run", "traced.toml", "--stubs", "traced.stubs.toml")
		if code != 0 || stdout != "said\n" {
			t.Fatalf("%v: cairn run: exit %d, stdout %q\n%s", extra, code, stdout, stderr)
		}
		if got := probeResult(t, dir); got != "tp=" {
			t.Errorf("%v: step probe saw %q, want no TRACEPARENT", extra, got)
		}
	}
	if spans, _ := rc.received(); len(spans) > 0 {
		t.Errorf("traces off, yet %d spans were sent: %v", len(spans), names(spans))
	}
}

// TestTracesOfAnInterruptedRun interrupts a run during a step that sleeps
// (SIGINT, as Ctrl-C sends): the spans still reach the collector before
// cairn exits, the run's outcome interrupted.
func TestTracesOfAnInterruptedRun(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	dir := t.TempDir()
	// The step runs in a worktree of its own: it says it started in dir.
	mark := filepath.Join(dir, "started")
	writeFiles(t, dir, map[string]string{"nap.toml": `version = 1

[[steps]]
name = "nap"
command = "touch '` + mark + `' && sleep 600"
`})
	gitRepo(t, dir)
	cmd := exec.Command("cairn", "run", "nap.toml")
	cmd.Dir, cmd.Env = dir, append(environ(t, dir), "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="+rc.URL+"/v1/traces")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := testwait.Until(func() bool {
		_, err := os.Stat(mark)
		return err == nil
	})
	if !started {
		_ = cmd.Process.Kill()
		t.Fatalf("step nap did not start\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Fatalf("cairn run: %v, want exit %d\n%s", err, exitInterrupted, stderr.String())
	}
	spans, by := rc.received()
	run := by["run nap"]
	if run == nil {
		t.Fatalf("no run span among %v", names(spans))
	}
	if a := attrs(run.Attributes); a["cairn.outcome"] != "interrupted" || run.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("run span: attributes %v, status %v; want outcome interrupted, status error", a, run.Status)
	}
	step := by["step nap"]
	if step == nil || !bytes.Equal(step.ParentSpanId, run.SpanId) {
		t.Fatalf("no span step nap under the run among %v", names(spans))
	}
	if a := attrs(step.Attributes); a["cairn.outcome"] != "interrupted" {
		t.Errorf("step span attributes: %v", a)
	}
	if shell := by["shell command"]; shell == nil || !bytes.Equal(shell.ParentSpanId, step.SpanId) {
		t.Errorf("no shell span under step nap among %v", names(spans))
	}
}

// names are the names of spans, for a failure to show.
func names(spans []*tracepb.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}
