package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

func TestCheckMessage(t *testing.T) {
	for _, tc := range []struct {
		body string
		code int64
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 0, `1`},
		{`{"jsonrpc":"2.0","method":"initialized"}`, 0, ``},
		{`{"jsonrpc":"2.0","id":"a","result":null}`, 0, `"a"`},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}`, 0, `2`},
		{`{not json`, jsonrpc2.CodeParseError, ``},
		{`{"id":1,"method":"x"`, jsonrpc2.CodeParseError, ``},
		{``, jsonrpc2.CodeParseError, ``},
		{`[]`, jsonrpc2.CodeInvalidRequest, ``},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, jsonrpc2.CodeInvalidRequest, ``},
		{`"x"`, jsonrpc2.CodeInvalidRequest, ``},
		{`null`, jsonrpc2.CodeInvalidRequest, ``},
		{`{"jsonrpc":"2.0","id":7}`, jsonrpc2.CodeInvalidRequest, `7`},
		{`{"jsonrpc":"1.0","id":8,"method":"x"}`, jsonrpc2.CodeInvalidRequest, `8`},
		{`{"jsonrpc":2,"id":8,"method":"x"}`, jsonrpc2.CodeInvalidRequest, ``},
		{`{"jsonrpc":"2.0","id":true,"method":"x"}`, jsonrpc2.CodeInvalidRequest, ``},
		{`{"jsonrpc":"2.0","id":3,"method":["x"]}`, jsonrpc2.CodeInvalidRequest, `3`},
		{`{"jsonrpc":"2.0","id":4,"method":"x","result":1}`, jsonrpc2.CodeInvalidRequest, `4`},
	} {
		id, code, msg, _ := checkMessage([]byte(tc.body))
		if code != tc.code || string(id) != tc.id || code != 0 && msg == "" {
			t.Errorf("%s: id %s, code %d (%s); want id %q, code %d", tc.body, id, code, msg, tc.id, tc.code)
		}
	}
}

// frame is body framed as the base protocol frames a message.
func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// TestMessageStream: the messages that are not JSON-RPC are answered and
// passed by; the next one is read; a message not framed ends the stream.
func TestMessageStream(t *testing.T) {
	in := frame(`{not json`) + frame(`{"jsonrpc":"2.0","id":5}`) +
		"Content-Length: 1025\r\n\r\n" + strings.Repeat(" ", 1025) +
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame(`{"jsonrpc":"2.0","id":6,"method":"shutdown"}`) +
		"no header\r\n\r\n"
	var out bytes.Buffer
	s := newMessageStream(strings.NewReader(in), &out)
	s.max = 1024
	var m struct {
		ID     int    `json:"id"`
		Method string `json:"method"`
	}
	if err := s.ReadObject(&m); err != nil || m.ID != 6 || m.Method != "shutdown" {
		t.Fatalf("ReadObject: %+v, %v; want the shutdown request", m, err)
	}
	if err := s.ReadObject(&m); err == nil || err == io.EOF {
		t.Errorf("a message without Content-Length: %v; want a framing error", err)
	}
	var answers []errorResponse
	for rest := out.String(); rest != ""; {
		header, body, _ := strings.Cut(rest, "\r\n\r\n")
		var n int
		fmt.Sscanf(header, "Content-Length: %d", &n)
		var a errorResponse
		if err := json.Unmarshal([]byte(body[:n]), &a); err != nil {
			t.Fatal(err)
		}
		answers = append(answers, a)
		rest = body[n:]
	}
	want := []struct {
		id   string
		code int64
	}{{"null", jsonrpc2.CodeParseError}, {"5", jsonrpc2.CodeInvalidRequest}, {"null", jsonrpc2.CodeInvalidRequest}}
	if len(answers) != len(want) {
		t.Fatalf("answers %+v; want %d", answers, len(want))
	}
	for i, a := range answers {
		if string(a.ID) != want[i].id || a.Error.Code != want[i].code || a.JSONRPC != "2.0" {
			t.Errorf("answer %d: %+v; want id %s, code %d", i, a, want[i].id, want[i].code)
		}
	}
}

// paramsBodies are messages whose params a paramsAside sets aside: params
// of every kind, with brackets and quotes in strings, an escaped key, a key
// twice (a decoder keeps the last), none.
var paramsBodies = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
	`{"jsonrpc":"2.0","method":"initialized"}`,
	`{ "params" : {"text":"a \\\" } ] {\"[","n":[1,{"x":null}]} , "method":"m","jsonrpc":"2.0"}`,
	`{"method":"m","params":[1,2,"]"],"id":"x"}`,
	`{"method":"m","params":"s","id":2}`,
	`{"method":"m","params":12.5e3}`,
	`{"method":"m","params":null}`,
	`{"method":"m","par\u0061ms":{"a":1}}`,
	`{"method":"m","params":{"a":1},"params":{"b":2}}`,
	`{"method":"m","params":{"a":1},"Params":{"b":2}}`,
	`{"params":true,"method":"m"}` + "\n\t ",
}

// TestParamsAside: the message handed on is the message with its params
// replaced by a key, and the key takes back the very params a decoder
// reads, once.
func TestParamsAside(t *testing.T) {
	for _, body := range paramsBodies {
		checkParamsAside(t, []byte(body))
	}
}

// FuzzParamsAside: TestParamsAside on any JSON object.
func FuzzParamsAside(f *testing.F) {
	for _, body := range paramsBodies {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &m) != nil {
			return
		}
		checkParamsAside(t, []byte(body))
	})
}

func checkParamsAside(t *testing.T, body []byte) {
	t.Helper()
	var want map[string]json.RawMessage
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	var a paramsAside
	handed, key := a.put(body)
	var got map[string]json.RawMessage
	if err := json.Unmarshal(handed, &got); err != nil {
		t.Fatalf("%s: handed on %s, no JSON: %v", body, handed, err)
	}
	params, ok := want["params"]
	if !ok {
		if key != nil || string(handed) != string(body) {
			t.Errorf("%s: no params, yet handed on %s under %s", body, handed, key)
		}
		return
	}
	if string(got["params"]) != string(key) {
		t.Errorf("%s: handed on %s; want the params replaced by %s", body, handed, key)
	}
	for k, v := range want {
		if k != "params" && string(got[k]) != string(v) {
			t.Errorf("%s: handed on %s; %q changed", body, handed, k)
		}
	}
	if taken := a.take(got["params"]); string(taken) != string(params) {
		t.Errorf("%s: took back %s; want %s", body, taken, params)
	}
	if again := a.take(got["params"]); string(again) != string(key) {
		t.Errorf("%s: took %s twice", body, again)
	}
}
