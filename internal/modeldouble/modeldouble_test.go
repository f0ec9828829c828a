package modeldouble

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
)

// post sends body as JSON to the double and returns the status, the
// response's content type and its body.
func post(t *testing.T, s *Server, path string, body any) (int, string, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), out
}

// event is one server-sent event.
type event struct {
	name string
	data map[string]any
}

// events parses a stream of server-sent events; "[DONE]" is kept as an
// event named "[DONE]".
func events(t *testing.T, body []byte) []event {
	t.Helper()
	var evs []event
	var name string
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case line == "data: [DONE]":
			evs = append(evs, event{name: "[DONE]"})
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data); err != nil {
				t.Fatalf("event data %q: %v", line, err)
			}
			evs = append(evs, event{name: name, data: data})
			name = ""
		}
	}
	return evs
}

// decode parses a JSON answer.
func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	return m
}

// at walks m by keys and indexes: at(m, "content", 0, "text").
func at(m any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m = object(m)[k]
		case int:
			l := list(m)
			if k >= len(l) {
				return nil
			}
			m = l[k]
		}
	}
	return m
}

func newServer(t *testing.T, script ...Turn) *Server {
	s := New(script...)
	t.Cleanup(s.Close)
	return s
}

var anthropicRequest = map[string]any{
	"model": "claude-test", "max_tokens": 100, "stream": true,
	"system":   "Working directory: /work/repo",
	"tools":    []any{map[string]any{"name": "Read"}, map[string]any{"name": "Bash"}, map[string]any{"name": "Write"}},
	"messages": []any{map[string]any{"role": "user", "content": "hi"}},
}

func TestAnthropicStream(t *testing.T) {
	s := newServer(t, Shell("go version"), WriteFile("hello.txt", "hi\n"), Text("all done"))

	status, ctype, body := post(t, s, "/v1/messages?beta=true", anthropicRequest)
	if status != http.StatusOK || !strings.HasPrefix(ctype, "text/event-stream") {
		t.Fatalf("status %d, content type %q", status, ctype)
	}
	evs := events(t, body)
	var names []string
	for _, e := range evs {
		names = append(names, e.name)
		if e.name != e.data["type"] {
			t.Errorf("event %q carries type %q", e.name, e.data["type"])
		}
	}
	want := "message_start content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	block := at(evs[1].data, "content_block")
	if at(block, "type") != "tool_use" || at(block, "name") != "Bash" {
		t.Errorf("content block %v, want a tool_use of Bash", block)
	}
	var input map[string]any
	if err := json.Unmarshal([]byte(at(evs[2].data, "delta", "partial_json").(string)), &input); err != nil {
		t.Fatal(err)
	}
	if input["command"] != "go version" {
		t.Errorf("input %v, want the command go version", input)
	}
	if got := at(evs[4].data, "delta", "stop_reason"); got != "tool_use" {
		t.Errorf("stop_reason %v, want tool_use", got)
	}

	// The write goes to the working directory the request names.
	_, _, body = post(t, s, "/v1/messages", anthropicRequest)
	evs = events(t, body)
	if err := json.Unmarshal([]byte(at(evs[2].data, "delta", "partial_json").(string)), &input); err != nil {
		t.Fatal(err)
	}
	if at(evs[1].data, "content_block", "name") != "Write" || input["file_path"] != "/work/repo/hello.txt" || input["content"] != "hi\n" {
		t.Errorf("write call %v %v", at(evs[1].data, "content_block"), input)
	}

	plain := map[string]any{}
	for k, v := range anthropicRequest {
		plain[k] = v
	}
	plain["stream"] = false
	status, ctype, body = post(t, s, "/v1/messages", plain)
	if status != http.StatusOK || !strings.HasPrefix(ctype, "application/json") {
		t.Fatalf("status %d, content type %q", status, ctype)
	}
	m := decode(t, body)
	if at(m, "content", 0, "text") != "all done" || m["stop_reason"] != "end_turn" {
		t.Errorf("answer %s, want the text all done", body)
	}
}

func TestSideRequestsSpendNoTurn(t *testing.T) {
	s := newServer(t, Text("the turn"))

	// A title request offers no tools: it is answered, but not from the
	// script.
	_, _, body := post(t, s, "/v1/messages", map[string]any{"model": "haiku", "messages": []any{}})
	if got := at(decode(t, body), "content", 0, "text"); got != "ok" {
		t.Errorf("side request answered %v, want ok", got)
	}
	_, _, body = post(t, s, "/v1/messages/count_tokens", map[string]any{"messages": []any{}})
	if decode(t, body)["input_tokens"] == nil {
		t.Errorf("count_tokens answered %s", body)
	}
	_, _, body = post(t, s, "/v1/messages", map[string]any{"tools": []any{map[string]any{"name": "Bash"}}})
	if got := at(decode(t, body), "content", 0, "text"); got != "the turn" {
		t.Errorf("turn answered %v, want the script's text", got)
	}
	// Past the end of the script every turn is answered "done.".
	_, _, body = post(t, s, "/v1/messages", map[string]any{"tools": []any{map[string]any{"name": "Bash"}}})
	if got := at(decode(t, body), "content", 0, "text"); got != "done." {
		t.Errorf("turn past the script answered %v, want done.", got)
	}

	if n := len(s.Requests()); n != 4 {
		t.Errorf("%d requests recorded, want 4", n)
	}
	turns := s.Turns()
	if len(turns) != 2 || turns[0].Turn != 0 || turns[1].Turn != 1 {
		t.Errorf("turns %+v", turns)
	}

	resp, err := http.Get(s.URL + "/v1/nowhere")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || len(s.Unknown()) != 1 || s.Unknown()[0].Path != "/v1/nowhere" {
		t.Errorf("unknown path: status %d, unknown %v", resp.StatusCode, s.Unknown())
	}
}

func TestResponsesStream(t *testing.T) {
	s := newServer(t, Shell("go version"), WriteFile("hello.txt", "a\nb\n"), Text("all done"))
	req := map[string]any{
		"model": "gpt-test", "stream": true,
		"tools": []any{
			map[string]any{"type": "function", "name": "exec_command"},
			map[string]any{"type": "custom", "name": "apply_patch"},
		},
		"input": []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "hi"}}}},
	}
	item := func() map[string]any {
		_, _, body := post(t, s, "/v1/responses", req)
		evs := events(t, body)
		last := evs[len(evs)-1]
		if last.name != "response.completed" || at(last.data, "response", "status") != "completed" {
			t.Fatalf("last event %v", last)
		}
		for _, e := range evs {
			if e.name == "response.output_item.done" {
				return object(e.data["item"])
			}
		}
		t.Fatalf("no output item in %s", body)
		return nil
	}

	call := item()
	if call["type"] != "function_call" || call["name"] != "exec_command" || call["arguments"] != `{"cmd":"go version"}` || call["call_id"] == "" {
		t.Errorf("shell call %v", call)
	}
	patch := item()
	want := "*** Begin Patch\n*** Add File: hello.txt\n+a\n+b\n*** End Patch\n"
	if patch["type"] != "custom_tool_call" || patch["name"] != "apply_patch" || patch["input"] != want {
		t.Errorf("write call %v, want a custom apply_patch adding hello.txt", patch)
	}
	msg := item()
	if msg["type"] != "message" || at(msg, "content", 0, "text") != "all done" {
		t.Errorf("message %v", msg)
	}
}

func TestChatStream(t *testing.T) {
	s := newServer(t, Shell("make -v"), Text("all done"))
	req := map[string]any{
		"model": "m", "stream": true, "stream_options": map[string]any{"include_usage": true},
		"tools":    []any{map[string]any{"type": "function", "function": map[string]any{"name": "bash"}}},
		"messages": []any{map[string]any{"role": "user", "content": "hi"}},
	}
	_, _, body := post(t, s, "/v1/chat/completions", req)
	evs := events(t, body)
	if evs[len(evs)-1].name != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %s", body)
	}
	var call any
	var finish any
	for _, e := range evs {
		if c := at(e.data, "choices", 0, "delta", "tool_calls", 0); c != nil {
			call = c
		}
		if f := at(e.data, "choices", 0, "finish_reason"); f != nil {
			finish = f
		}
	}
	if at(call, "function", "name") != "bash" || at(call, "function", "arguments") != `{"command":"make -v","description":"Run make -v"}` {
		t.Errorf("tool call %v", call)
	}
	if finish != "tool_calls" {
		t.Errorf("finish_reason %v, want tool_calls", finish)
	}
	if usage := at(evs[len(evs)-2].data, "usage"); usage == nil {
		t.Errorf("no usage chunk before [DONE] though include_usage asks for it")
	}

	req["stream"] = false
	_, _, body = post(t, s, "/v1/chat/completions", req)
	m := decode(t, body)
	if at(m, "choices", 0, "message", "content") != "all done" || at(m, "choices", 0, "finish_reason") != "stop" {
		t.Errorf("answer %s", body)
	}
}

func TestGeminiStream(t *testing.T) {
	s := newServer(t, Shell("python3 -c 'print(6*7)'"), WriteFile("/abs/hello.txt", "hi"), Text("all done"))
	req := map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "hi"}}}},
		"tools": []any{map[string]any{"functionDeclarations": []any{
			map[string]any{"name": "read_file"}, map[string]any{"name": "run_shell_command"}, map[string]any{"name": "write_file"},
		}}},
	}
	_, ctype, body := post(t, s, "/v1beta/models/gemini-test:streamGenerateContent?alt=sse", req)
	if !strings.HasPrefix(ctype, "text/event-stream") {
		t.Fatalf("content type %q", ctype)
	}
	evs := events(t, body)
	call := at(evs[0].data, "candidates", 0, "content", "parts", 0, "functionCall")
	if at(call, "name") != "run_shell_command" || at(call, "args", "command") != "python3 -c 'print(6*7)'" {
		t.Errorf("call %v", call)
	}
	_, _, body = post(t, s, "/v1beta/models/gemini-test:generateContent", req)
	call = at(decode(t, body), "candidates", 0, "content", "parts", 0, "functionCall")
	if at(call, "name") != "write_file" || at(call, "args", "file_path") != "/abs/hello.txt" {
		t.Errorf("call %v", call)
	}
	_, _, body = post(t, s, "/v1beta/models/gemini-test:streamGenerateContent?alt=sse", req)
	if got := at(events(t, body)[0].data, "candidates", 0, "content", "parts", 0, "text"); got != "all done" {
		t.Errorf("text %v", got)
	}
}

// TestToolNotOffered: a call of a tool the request withholds is made
// anyway, under the name the CLI would know, so that the CLI answers it.
func TestToolNotOffered(t *testing.T) {
	s := newServer(t, WriteFile("x.txt", "x"))
	req := map[string]any{
		"contents": []any{},
		"tools":    []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "read_file"}}}},
	}
	_, _, body := post(t, s, "/v1beta/models/m:generateContent", req)
	if got := at(decode(t, body), "candidates", 0, "content", "parts", 0, "functionCall", "name"); got != "write_file" {
		t.Errorf("called %v, want write_file", got)
	}
	if got := s.Requests()[0].Offered(); len(got) != 1 || got[0] != "read_file" {
		t.Errorf("offered %q", got)
	}
}

func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		path string
		body map[string]any
		want string // a key path's value in the error body
	}{
		{"/v1/messages", map[string]any{"tools": []any{map[string]any{"name": "Bash"}}}, "rate_limit_error"},
		{"/v1/responses", map[string]any{"tools": []any{map[string]any{"name": "exec_command"}}}, "rate_limit_exceeded"},
		{"/v1/chat/completions", map[string]any{"tools": []any{map[string]any{"function": map[string]any{"name": "bash"}}}}, "rate_limit_exceeded"},
		{"/v1beta/models/m:streamGenerateContent", map[string]any{"tools": []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "x"}}}}}, "RESOURCE_EXHAUSTED"},
	} {
		s := newServer(t, Forever(Status(http.StatusTooManyRequests, "slow down")), Text("never"))
		for range 3 {
			status, _, body := post(t, s, tc.path, tc.body)
			if status != http.StatusTooManyRequests || !bytes.Contains(body, []byte(tc.want)) || !bytes.Contains(body, []byte("slow down")) {
				t.Errorf("%s: status %d, body %s", tc.path, status, body)
			}
		}
		if turns := s.Turns(); len(turns) != 3 || turns[2].Turn != 0 {
			t.Errorf("%s: a forever turn moved the script on: %+v", tc.path, turns)
		}
	}

	s := newServer(t, Status(http.StatusInternalServerError, ""), Text("after"))
	status, _, body := post(t, s, "/v1/messages", map[string]any{"tools": []any{map[string]any{"name": "Bash"}}})
	if status != http.StatusInternalServerError || !bytes.Contains(body, []byte("api_error")) {
		t.Errorf("status %d, body %s", status, body)
	}
	_, _, body = post(t, s, "/v1/messages", map[string]any{"tools": []any{map[string]any{"name": "Bash"}}})
	if got := at(decode(t, body), "content", 0, "text"); got != "after" {
		t.Errorf("after one 500 the turn answered %v", got)
	}
}

// TestRetryAfter: a 429 says when to retry as each vendor's API does: a
// retry-after header (Anthropic, OpenAI, whose message says it too), a
// RetryInfo detail (Google); a 500 says nothing.
func TestRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		path   string
		body   map[string]any
		header string // the retry-after header
		text   string // in the body
	}{
		{"/v1/messages", map[string]any{"tools": []any{map[string]any{"name": "Bash"}}}, "30", `"rate_limit_error"`},
		{"/v1/responses", map[string]any{"tools": []any{map[string]any{"name": "exec_command"}}}, "30", "Please try again in 30s."},
		{"/v1/chat/completions", map[string]any{"tools": []any{map[string]any{"function": map[string]any{"name": "bash"}}}}, "30", "Please try again in 30s."},
		{"/v1beta/models/m:generateContent", map[string]any{"tools": []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "x"}}}}}, "",
			`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}`},
	} {
		s := newServer(t, RetryAfter(30*time.Second, Status(http.StatusTooManyRequests, "slow down")), Status(http.StatusInternalServerError, ""))
		b, _ := json.Marshal(tc.body)
		for i, want := range []struct {
			status int
			header string
		}{{http.StatusTooManyRequests, tc.header}, {http.StatusInternalServerError, ""}} {
			resp, err := http.Post(s.URL+tc.path, "application/json", bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want.status || resp.Header.Get("retry-after") != want.header {
				t.Errorf("%s answer %d: status %d, retry-after %q; want %d and %q", tc.path, i, resp.StatusCode, resp.Header.Get("retry-after"), want.status, want.header)
			}
			if hinted := bytes.Contains(out, []byte(tc.text)); i == 0 && !hinted || i == 1 && bytes.Contains(out, []byte("RetryInfo")) {
				t.Errorf("%s answer %d: body %s", tc.path, i, out)
			}
		}
	}
	s := newServer(t, Status(http.StatusTooManyRequests, ""))
	resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(`{"tools":[{"name":"Bash"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("retry-after"); got != "1" {
		t.Errorf("a 429 of Status: retry-after %q; want DefaultRetryAfter, 1", got)
	}
}

func TestSlow(t *testing.T) {
	s := newServer(t, Slow(time.Hour, Text("late")), Slow(50*time.Millisecond, Text("soon")))
	body, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "Bash"}}})

	// A CLI that gives up (its timeout) cuts an hour-long reply short: it
	// gives up here once the double has its request.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		testwait.Until(func() bool { return len(s.Turns()) > 0 })
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/messages", bytes.NewReader(body))
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("slow reply: %v, want the client's cancel", err)
	}

	start := time.Now()
	_, _, out := post(t, s, "/v1/messages", map[string]any{"tools": []any{map[string]any{"name": "Bash"}}})
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("slow reply came after %v, want at least 50ms", d)
	}
	if got := at(decode(t, out), "content", 0, "text"); got != "soon" {
		t.Errorf("slow reply %v", got)
	}

	// A slow stream sends its headers at once, its events after the wait.
	s = newServer(t, Slow(time.Hour, Text("late")))
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	body, _ = json.Marshal(map[string]any{"stream": true, "tools": []any{map[string]any{"name": "Bash"}}})
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/messages", bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("slow stream: status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func TestToolResults(t *testing.T) {
	s := newServer(t)
	post(t, s, "/v1/messages", map[string]any{"messages": []any{
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Bash"}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": "This command requires approval"}}},
	}})
	post(t, s, "/v1/responses", map[string]any{"input": []any{
		map[string]any{"type": "function_call", "call_id": "c1", "name": "exec_command"},
		map[string]any{"type": "function_call_output", "call_id": "c1", "output": "Process exited with code 0\nOutput:\ngo version go1.26"},
		map[string]any{"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch"},
		map[string]any{"type": "custom_tool_call_output", "call_id": "c2", "output": "Success."},
	}})
	post(t, s, "/v1/chat/completions", map[string]any{"messages": []any{
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "k1", "function": map[string]any{"name": "bash"}}}},
		map[string]any{"role": "tool", "tool_call_id": "k1", "content": []any{map[string]any{"type": "text", "text": "42\n"}}},
	}})
	contents := []any{map[string]any{"role": "user", "parts": []any{
		map[string]any{"functionResponse": map[string]any{"id": "g1", "name": "run_shell_command", "response": map[string]any{"output": "ok"}}},
		map[string]any{"functionResponse": map[string]any{"id": "g2", "name": "write_file", "response": map[string]any{"error": "Tool \"write_file\" not found"}}},
	}}}
	post(t, s, "/v1beta/models/m:generateContent", map[string]any{"contents": contents})
	// A resent conversation adds no result twice.
	post(t, s, "/v1beta/models/m:generateContent", map[string]any{"contents": contents})

	want := []ToolResult{
		{Anthropic, "t1", "Bash", "This command requires approval", true},
		{Responses, "c1", "exec_command", "Process exited with code 0\nOutput:\ngo version go1.26", false},
		{Responses, "c2", "apply_patch", "Success.", false},
		{Chat, "k1", "bash", "42\n", false},
		{Gemini, "g1", "run_shell_command", "ok", false},
		{Gemini, "g2", "write_file", `Tool "write_file" not found`, true},
	}
	got := s.ToolResults()
	if len(got) != len(want) {
		t.Fatalf("tool results %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("tool result %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if r := s.Requests()[1]; !r.Contains("go version go1.26") || r.Contains("not sent") {
		t.Errorf("Contains of %s", r.Raw)
	}
}

func TestModels(t *testing.T) {
	s := newServer(t)
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/v1/models", nil)
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if at(decode(t, body), "data", 0, "type") != "model" {
		t.Errorf("anthropic models %s", body)
	}
	resp, err = http.Get(s.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if m := decode(t, body); m["object"] != "list" || at(m, "data", 0, "object") != "model" {
		t.Errorf("openai models %s", body)
	}
}

func TestUserTexts(t *testing.T) {
	s := newServer(t)
	const prompt = `Reply with {"verdict": "pass"}`
	post(t, s, "/v1/messages", map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "<system-reminder>context</system-reminder>"},
			map[string]any{"type": "text", "text": prompt},
		}},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "not the user's"}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": "a result"}}},
	}})
	post(t, s, "/v1/responses", map[string]any{"input": []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "not the user's"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": prompt}}},
	}})
	post(t, s, "/v1/chat/completions", map[string]any{"messages": []any{
		map[string]any{"role": "system", "content": "not the user's"},
		map[string]any{"role": "user", "content": prompt},
	}})
	post(t, s, "/v1beta/models/m:generateContent", map[string]any{"contents": []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": prompt}}},
		map[string]any{"role": "model", "parts": []any{map[string]any{"text": "not the user's"}}},
	}})
	want := [][]string{{"<system-reminder>context</system-reminder>", prompt}, {prompt}, {prompt}, {prompt}}
	for i, r := range s.Requests() {
		if got := r.UserTexts(); !slices.Equal(got, want[i]) {
			t.Errorf("%s: UserTexts() = %q; want %q", r.API, got, want[i])
		}
	}
}

// TestBilled: the double sums the usage its answers reported, in cairn's
// terms, and bills neither an error nor a streamed chat completion that
// was not asked for its usage.
func TestBilled(t *testing.T) {
	s := newServer(t, Status(http.StatusTooManyRequests, ""), Text("one"), Text("two"), Text("three"))
	tools := map[string]any{"tools": []any{map[string]any{"name": "Bash"}}}
	post(t, s, "/v1/messages", tools)
	post(t, s, "/v1/messages", tools)
	gemini := map[string]any{"tools": []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "x"}}}}}
	post(t, s, "/v1beta/models/m:generateContent", gemini)
	post(t, s, "/v1/chat/completions", map[string]any{"stream": true, "tools": []any{map[string]any{"function": map[string]any{"name": "bash"}}}})
	reqs := s.Requests()
	want := Usage{
		InputTokens:      int64(approxTokens(reqs[1].Raw) + approxTokens(reqs[2].Raw)),
		OutputTokens:     2 * OutputTokens,
		CacheReadTokens:  2 * CacheReadTokens,
		CacheWriteTokens: CacheWriteTokens,
	}
	if got := s.Billed(); got != want {
		t.Errorf("billed %+v; want %+v", got, want)
	}
	if reqs[0].Billed != (Usage{}) || reqs[3].Billed != (Usage{}) {
		t.Errorf("billed the 429 (%+v) or the chat stream without usage (%+v)", reqs[0].Billed, reqs[3].Billed)
	}
}

// TestStructured: a request that offers claude's StructuredOutput tool gets
// a call of it with the value as its input; a Responses request (whose
// structured output is the text a json_schema format asks for) gets the
// value as its text.
func TestStructured(t *testing.T) {
	s := newServer(t, Structured(`{"severity":"high"}`), Structured(`{"severity":"low"}`))
	req := map[string]any{}
	for k, v := range anthropicRequest {
		req[k] = v
	}
	req["stream"] = false
	req["tools"] = []any{map[string]any{"name": "Bash"}, map[string]any{"name": StructuredOutputTool}}
	_, _, body := post(t, s, "/v1/messages", req)
	m := decode(t, body)
	if at(m, "content", 0, "type") != "tool_use" || at(m, "content", 0, "name") != StructuredOutputTool ||
		at(m, "content", 0, "input", "severity") != "high" || m["stop_reason"] != "tool_use" {
		t.Errorf("answer %s, want a StructuredOutput call with severity high", body)
	}
	_, _, body = post(t, s, "/v1/responses", map[string]any{"model": "gpt-test", "input": "hi", "tools": []any{map[string]any{"type": "function", "name": "exec_command"}},
		"text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "s", "schema": map[string]any{"type": "object"}}}})
	if !strings.Contains(string(body), `{\"severity\":\"low\"}`) {
		t.Errorf("responses answer %s, want the value as its text", body)
	}
}

// TestRoute: turns whose user texts hold a route's mark are answered from
// its script, each route in its own order whatever the order the turns
// arrive in; a turn holding two marks takes the first routed; the others
// from the main script. Side requests spend no turn of a route.
func TestRoute(t *testing.T) {
	s := newServer(t, Text("main 0"), Text("main 1"))
	s.Route("ITEM-a", Text("a 0"), Text("a 1"))
	s.Route("ITEM-b", Text("b 0"))
	ask := func(prompt string, tools bool) string {
		t.Helper()
		req := map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "<system-reminder>context</system-reminder>"},
			map[string]any{"type": "text", "text": prompt},
		}}}}
		if tools {
			req["tools"] = []any{map[string]any{"name": "Bash"}}
		}
		_, _, body := post(t, s, "/v1/messages", req)
		return at(decode(t, body), "content", 0, "text").(string)
	}
	got := []string{
		ask("fix ITEM-b", true),
		ask("fix ITEM-a", false),
		ask("plan", true),
		ask("fix ITEM-a", true),
		ask("fix ITEM-b", true),
		ask("fix ITEM-a and ITEM-b", true),
		ask("judge", true),
	}
	want := []string{"b 0", "ok", "main 0", "a 0", "done.", "a 1", "main 1"}
	if !slices.Equal(got, want) {
		t.Errorf("answers %q; want %q", got, want)
	}
	var routes []string
	for _, r := range s.Turns() {
		routes = append(routes, fmt.Sprintf("%s/%d", r.Route, r.Turn))
	}
	if want := []string{"ITEM-b/0", "/0", "ITEM-a/0", "ITEM-b/1", "ITEM-a/1", "/1"}; !slices.Equal(routes, want) {
		t.Errorf("turns' routes %q; want %q", routes, want)
	}
}

// send sends body as JSON to the double with header and returns the
// status and the body of the answer.
func send(t *testing.T, s *Server, method, path string, header http.Header, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// TestOAuth: the Anthropic API takes an OAuth token as Claude Code sends
// it, Authorization: Bearer with OAuthBeta among its betas, and refuses a
// bearer token without that beta as Anthropic's does (401,
// authentication_error), spending no turn; an API key in x-api-key is
// taken with no beta, and an OpenAI API's bearer key needs none. Each
// request records the credential it carried.
func TestOAuth(t *testing.T) {
	const token = "sk-ant-oat01-modeldouble"
	turn := map[string]any{"tools": []any{map[string]any{"name": "Bash"}}, "messages": []any{}}
	oauth := http.Header{
		"Content-Type":      {"application/json"},
		"Anthropic-Version": {"2023-06-01"},
		"Authorization":     {"Bearer " + token},
		"Anthropic-Beta":    {"claude-code-20250219, " + OAuthBeta + ",interleaved-thinking-2025-05-14"},
	}
	noBeta := oauth.Clone()
	noBeta.Set("Anthropic-Beta", "claude-code-20250219")
	noBetaAtAll := oauth.Clone()
	noBetaAtAll.Del("Anthropic-Beta")
	apiKey := http.Header{"Content-Type": {"application/json"}, "Anthropic-Version": {"2023-06-01"}, "X-Api-Key": {"sk-ant-api03-modeldouble"}}

	s := newServer(t, Text("first"), Text("second"), Text("third"))
	for _, tc := range []struct {
		method, path string
		header       http.Header
		body         any
	}{
		{http.MethodPost, "/v1/messages?beta=true", noBeta, turn},
		{http.MethodPost, "/v1/messages", noBetaAtAll, turn},
		{http.MethodPost, "/v1/messages/count_tokens", noBeta, map[string]any{"messages": []any{}}},
		{http.MethodGet, "/v1/models", noBeta, nil},
	} {
		status, body := send(t, s, tc.method, tc.path, tc.header, tc.body)
		m := decode(t, body)
		if status != http.StatusUnauthorized || m["type"] != "error" || at(m, "error", "type") != "authentication_error" ||
			at(m, "error", "message") != "OAuth authentication is currently not supported." {
			t.Errorf("%s %s, a bearer token without %s: status %d, body %s; want Anthropic's 401", tc.method, tc.path, OAuthBeta, status, body)
		}
	}
	if turns := s.Turns(); len(turns) != 0 {
		t.Errorf("refused requests spent %d turns", len(turns))
	}

	status, body := send(t, s, http.MethodPost, "/v1/messages?beta=true", oauth, turn)
	if got := at(decode(t, body), "content", 0, "text"); status != http.StatusOK || got != "first" {
		t.Errorf("an OAuth token with %s: status %d, answer %v; want the script's first turn", OAuthBeta, status, got)
	}
	status, body = send(t, s, http.MethodPost, "/v1/messages", apiKey, turn)
	if got := at(decode(t, body), "content", 0, "text"); status != http.StatusOK || got != "second" {
		t.Errorf("an API key: status %d, answer %v; want the script's second turn", status, got)
	}
	openai := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer sk-openai-modeldouble"}}
	status, body = send(t, s, http.MethodPost, "/v1/responses", openai, map[string]any{"tools": []any{map[string]any{"name": "exec_command"}}})
	if status != http.StatusOK || !bytes.Contains(body, []byte("third")) {
		t.Errorf("an OpenAI key as a bearer token: status %d, body %s; want the script's third turn", status, body)
	}

	turns := s.Turns()
	if len(turns) != 3 {
		t.Fatalf("%d turns; want 3", len(turns))
	}
	for i, want := range []struct{ bearer, key string }{{token, ""}, {"", "sk-ant-api03-modeldouble"}, {"sk-openai-modeldouble", ""}} {
		if got := turns[i]; got.BearerToken() != want.bearer || got.APIKey() != want.key {
			t.Errorf("turn %d recorded bearer %q and API key %q; want %q and %q", i, got.BearerToken(), got.APIKey(), want.bearer, want.key)
		}
	}
	if refused := s.Requests()[0]; refused.BearerToken() != token || refused.Turn != -1 {
		t.Errorf("the first refused request recorded bearer %q, turn %d; want the token and no turn", refused.BearerToken(), refused.Turn)
	}
}
