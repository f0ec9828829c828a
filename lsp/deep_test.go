package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pipeClient talks to a server run in the test's process over pipes.
type pipeClient struct {
	t      *testing.T
	in     *io.PipeWriter
	bodies chan []byte
}

// servePipes runs Serve on pipes and returns a client of it, initialized.
func servePipes(t *testing.T) *pipeClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Serve(ctx, inR, outW, Options{Debounce: time.Millisecond})
		outW.Close()
	}()
	c := &pipeClient{t: t, in: inW, bodies: make(chan []byte, 64)}
	go func() {
		defer close(c.bodies)
		r := bufio.NewReader(outR)
		for {
			length := -1
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if line = strings.TrimRight(line, "\r\n"); line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
					length, _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
			body := make([]byte, max(length, 0))
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
			c.bodies <- body
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		<-done
	})
	c.write(c.encode(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}}))
	c.wait(func(m pipeMessage) bool { return string(m.ID) == "1" })
	c.write(c.encode(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}))
	return c
}

// pipeMessage is what the client reads of a message from the server.
type pipeMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// encode is v as a framed message.
func (c *pipeClient) encode(v any) []byte {
	c.t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	return append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(data))), data...)
}

func (c *pipeClient) write(msg []byte) {
	c.t.Helper()
	if _, err := c.in.Write(msg); err != nil {
		c.t.Fatal(err)
	}
}

// wait reads messages until one that ok accepts.
func (c *pipeClient) wait(ok func(pipeMessage) bool) pipeMessage {
	c.t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case body, open := <-c.bodies:
			if !open {
				c.t.Fatal("the server ended")
			}
			var m pipeMessage
			if err := json.Unmarshal(body, &m); err != nil {
				c.t.Fatalf("the server sent no JSON: %v", err)
			}
			if ok(m) {
				return m
			}
		case <-timeout:
			c.t.Fatal("no answer from the server in 2 minutes")
		}
	}
}

// TestDeepDocumentEdits: documents of 4 MiB nested millions of levels
// deep, HCL and cards, on one line or one bracket a line, opened and then
// changed whole and by a range, are refused at the bracket that goes too
// deep at each version, as cairn check refuses the file. For each the
// server allocates the message and the text once, and at most 2 MiB more,
// where jsonrpc2's and glsp's decoding of the message, the document's
// string for each line and the copy of the text for the front-ends took
// five to twenty times as much (bench/nesting.sh gives the time and the peak
// memory of the real server).
func TestDeepDocumentEdits(t *testing.T) {
	const size = 4 << 20
	c := servePipes(t)
	for _, tc := range []struct {
		name, text string
		at         [2]int // the bracket that goes too deep, as LSP counts
	}{
		{"line.hcl", "version = 1\na = " + strings.Repeat("[", size) + "\n", [2]int{1, 104}},
		{"lines.hcl", "version = 1\na = " + strings.Repeat("[\n", size/2), [2]int{101, 0}},
		{"line.procedure.card", "---\na: " + strings.Repeat("[", size) + "\n---\n", [2]int{1, 102}},
		{"lines.procedure.card", "---\na: " + strings.Repeat("[\n", size/2) + "---\n", [2]int{100, 0}},
	} {
		uri := "file:///nonexistent/" + tc.name
		end := map[string]any{"line": strings.Count(tc.text, "\n"), "character": 0}
		messages := [][]byte{
			c.encode(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
				"textDocument": map[string]any{"uri": uri, "languageId": "cairn", "version": 1, "text": tc.text}}}),
			c.encode(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": 2},
				"contentChanges": []any{map[string]any{"text": tc.text + " "}}}}),
			c.encode(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": 3},
				"contentChanges": []any{map[string]any{"range": map[string]any{"start": end, "end": end}, "text": " "}}}}),
		}
		for i, msg := range messages {
			version := i + 1
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			c.write(msg)
			m := c.wait(func(m pipeMessage) bool {
				var p struct {
					URI     string
					Version int
				}
				return m.Method == "textDocument/publishDiagnostics" && json.Unmarshal(m.Params, &p) == nil &&
					p.URI == uri && p.Version == version
			})
			runtime.ReadMemStats(&after)
			var p struct {
				Diagnostics []struct {
					Range struct {
						Start struct{ Line, Character int }
					}
					Code    string
					Message string
				}
			}
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			ds := p.Diagnostics
			if len(ds) != 1 || ds[0].Code != "syntax" || !strings.Contains(ds[0].Message, "nested more than 100 levels deep") ||
				[2]int{ds[0].Range.Start.Line, ds[0].Range.Start.Character} != tc.at {
				t.Errorf("%s, version %d: %+v; want the one refusal of its nesting at %d:%d", tc.name, version, ds, tc.at[0], tc.at[1])
			}
			if allocated, most := after.TotalAlloc-before.TotalAlloc, uint64(len(msg)+len(tc.text)+2<<20); allocated > most {
				t.Errorf("%s, version %d: the server allocated %d KiB for a message of %d KiB and a text of %d KiB; want at most %d KiB",
					tc.name, version, allocated>>10, len(msg)>>10, len(tc.text)>>10, most>>10)
			}
		}
	}
}
