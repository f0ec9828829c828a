package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testwait"
)

// rawLSP is `cairn lsp --stdio` spoken to byte for byte, so that a test can
// send what no client library would: messages that are no JSON, or no
// JSON-RPC.
type rawLSP struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	// messages are what the server sends, read as they come.
	messages chan map[string]any
}

// startRawLSP starts `cairn lsp --stdio` in dir.
func startRawLSP(t *testing.T, dir string) *rawLSP {
	t.Helper()
	cmd := exec.Command("cairn", "lsp", "--stdio")
	cmd.Dir = dir
	cmd.Env = environ(t, dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rawLSP{t: t, cmd: cmd, in: in, messages: make(chan map[string]any, 64)}
	go c.read(bufio.NewReader(out))
	t.Cleanup(func() {
		_ = in.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() {
			t.Logf("cairn lsp stderr:\n%s", stderr.String())
		}
	})
	return c
}

// read reads the server's messages until its stdout closes.
func (c *rawLSP) read(r *bufio.Reader) {
	defer close(c.messages)
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("the server sent a message that is no JSON: %q", body)
			return
		}
		c.messages <- m
	}
}

// send writes body as one message, framed as the protocol frames it.
func (c *rawLSP) send(body string) {
	c.t.Helper()
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatalf("send %q: %v", body, err)
	}
}

// request sends a request of id and returns the response to it.
func (c *rawLSP) request(id int, method string, params any) map[string]any {
	c.t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(string(b))
	return c.response(fmt.Sprintf("to %s", method))
}

// notify sends a notification.
func (c *rawLSP) notify(method string, params any) {
	c.t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(string(b))
}

// response returns the next response the server sends, passing its
// notifications by; it fails the test when none comes within
// testwait.Patience or the server ends.
func (c *rawLSP) response(what string) map[string]any {
	c.t.Helper()
	deadline := testwait.After()
	for {
		select {
		case m, ok := <-c.messages:
			if !ok {
				c.t.Fatalf("no response %s: the server closed its output", what)
			}
			if _, notification := m["method"]; !notification {
				return m
			}
		case <-deadline:
			c.t.Fatalf("no response %s within %s", what, testwait.Patience)
		}
	}
}

// openRaw starts `cairn lsp` on a repository holding p.toml, initialized,
// with p.toml open; it returns the server and the document's identifier.
func openRaw(t *testing.T) (*rawLSP, map[string]any) {
	t.Helper()
	dir := t.TempDir()
	text := "version = 1\n\n[[steps]]\nname = \"a\"\ncommand = \"true\"\neffort = \"high\""
	writeFiles(t, dir, map[string]string{"p.toml": text})
	gitRepo(t, dir)
	uri := "file://" + filepath.ToSlash(filepath.Join(dir, "p.toml"))
	c := startRawLSP(t, dir)
	c.request(1, "initialize", map[string]any{"processId": nil, "rootUri": "file://" + dir, "capabilities": map[string]any{}})
	c.notify("initialized", map[string]any{})
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "toml", "version": 1, "text": text,
	}})
	return c, map[string]any{"uri": uri}
}

// shutdown asks the server to shut down and exit, and waits for it.
func (c *rawLSP) shutdown(id int) {
	c.t.Helper()
	if m := c.request(id, "shutdown", nil); m["error"] != nil {
		c.t.Errorf("shutdown: %v", m)
	}
	c.notify("exit", nil)
	if err := c.cmd.Wait(); err != nil {
		c.t.Errorf("cairn lsp after exit: %v", err)
	}
}

// TestLSPFarPosition: a position two billion lines down is read as the end
// of the document, at once, where the server walked two billion lines (40
// s) to answer null.
func TestLSPFarPosition(t *testing.T) {
	t.Parallel()
	c, doc := openRaw(t)
	far := map[string]any{"line": 2_000_000_000, "character": 2_000_000_000}
	hover := c.request(2, "textDocument/hover", map[string]any{"textDocument": doc, "position": far})
	result, _ := hover["result"].(map[string]any)
	contents, _ := result["contents"].(map[string]any)
	if value, _ := contents["value"].(string); !strings.Contains(value, "**`effort`**") {
		t.Errorf("hover at line 2e9: %v; want the hover at the end of the document, on effort's value", hover)
	}
	completion := c.request(3, "textDocument/completion", map[string]any{"textDocument": doc, "position": far})
	if items, _ := completion["result"].([]any); len(items) == 0 {
		t.Errorf("completion at line 2e9: %v; want effort's values", completion)
	}
	c.shutdown(4)
}

// checkError asserts that m is an error response of code to id (nil for
// null).
func checkError(t *testing.T, what string, m map[string]any, code int, id any) {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != float64(code) || m["id"] != id || m["jsonrpc"] != "2.0" {
		t.Errorf("%s: %v; want error %d with id %v", what, m, code, id)
	}
}

// TestLSPMalformed: a message that is no JSON is answered -32700 and one
// that is no JSON-RPC request, notification or response -32600, with its
// id when it has one, and the server goes on serving, where it ended on the
// first.
func TestLSPMalformed(t *testing.T) {
	t.Parallel()
	c, doc := openRaw(t)
	c.send(`{not json`)
	checkError(t, "a message that is no JSON", c.response("to {not json"), -32700, nil)
	for _, tc := range []struct {
		body string
		id   any
	}{
		{`{"jsonrpc":"2.0","id":7}`, float64(7)},
		{`{"jsonrpc":"2.0","id":"x","method":"textDocument/hover","result":1}`, "x"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"textDocument/hover"}`, nil},
		{`{"jsonrpc":"1.0","id":8,"method":"shutdown"}`, float64(8)},
		{`{"jsonrpc":"2.0","id":9,"method":9}`, float64(9)},
		{`{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}`, 1.5},
		{`[]`, nil},
		{`42`, nil},
	} {
		c.send(tc.body)
		checkError(t, tc.body, c.response("to "+tc.body), -32600, tc.id)
	}

	hover := c.request(4, "textDocument/hover", map[string]any{"textDocument": doc, "position": map[string]any{"line": 5, "character": 2}})
	if result, _ := hover["result"].(map[string]any); result == nil {
		t.Errorf("hover after the malformed messages: %v; want it answered", hover)
	}
	c.shutdown(5)
}
