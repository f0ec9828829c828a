package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/cairn-dev/cairn/internal/testwait"
)

// lspClient is an editor's side of `cairn lsp`: the real binary on a
// pipe, the diagnostics it publishes collected as they come.
type lspClient struct {
	t     *testing.T
	conn  *jsonrpc2.Conn
	cmd   *exec.Cmd
	diags chan publishedDiags
}

// publishedDiags is one textDocument/publishDiagnostics.
type publishedDiags struct {
	URI         string `json:"uri"`
	Version     int    `json:"version"`
	Diagnostics []struct {
		Range    lspRange `json:"range"`
		Severity int      `json:"severity"`
		Code     string   `json:"code"`
		Source   string   `json:"source"`
		Message  string   `json:"message"`
	} `json:"diagnostics"`
}

type lspPos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start lspPos `json:"start"`
	End   lspPos `json:"end"`
}

// stdio joins the binary's stdout (read) and stdin (write).
type stdio struct {
	r interface{ Read([]byte) (int, error) }
	w interface {
		Write([]byte) (int, error)
		Close() error
	}
}

func (s stdio) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s stdio) Close() error                { return s.w.Close() }

// startLSP starts `cairn lsp --stdio` in dir.
func startLSP(t *testing.T, dir string) *lspClient {
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
	c := &lspClient{t: t, cmd: cmd, diags: make(chan publishedDiags, 32)}
	handler := jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		if req.Method == "textDocument/publishDiagnostics" && req.Params != nil {
			var p publishedDiags
			if err := json.Unmarshal(*req.Params, &p); err != nil {
				t.Errorf("publishDiagnostics: %v", err)
			}
			c.diags <- p
		}
		return nil, nil
	})
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(stdio{out, in}, jsonrpc2.VSCodeObjectCodec{}), handler)
	t.Cleanup(func() {
		c.conn.Close()
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

// call sends a request and decodes its result into result.
func (c *lspClient) call(method string, params, result any) {
	c.t.Helper()
	ctx, cancel := testwait.Context(context.Background())
	defer cancel()
	if err := c.conn.Call(ctx, method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *lspClient) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// waitDiags waits for the first diagnostics published that ok accepts.
func (c *lspClient) waitDiags(what string, ok func(publishedDiags) bool) publishedDiags {
	c.t.Helper()
	deadline := testwait.After()
	for {
		select {
		case p := <-c.diags:
			if ok(p) {
				return p
			}
		case <-deadline:
			c.t.Fatalf("no diagnostics %s within %s", what, testwait.Patience)
		}
	}
}

// codes are the rules of published diagnostics, each with its start.
func (p publishedDiags) codes() map[string]lspPos {
	out := map[string]lspPos{}
	for _, d := range p.Diagnostics {
		out[d.Code] = d.Range.Start
	}
	return out
}

// lspDoc is a process file with mistakes: an item of the wrong type after
// a character outside the BMP (two UTF-16 units, one column), an effort
// and a key misspelt.
const lspDoc = `version = 1
description = "hunt for bugs"

[limits]
protected_paths = ["😀/**", 3]

[worktrees.judge]
kind = "throwaway"

[[steps]]
name = "hunt"
skill = "bug-hunt"
effort = "hgh"
worktree = "judge"
commnd = "x"
`

// TestLSPClient drives the real `cairn lsp` as an editor would: it opens a
// process file with errors, edits it, saves it, and asks for a hover, a
// completion, a definition, symbols and a quick fix.
func TestLSPClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".agents/skills/bug-hunt/SKILL.md": "Hunt for bugs.\n",
		"hunt.toml":                        lspDoc,
	})
	gitRepo(t, dir)
	file := filepath.Join(dir, "hunt.toml")
	uri := "file://" + filepath.ToSlash(file)

	c := startLSP(t, dir)
	var init struct {
		Capabilities map[string]any        `json:"capabilities"`
		ServerInfo   struct{ Name string } `json:"serverInfo"`
	}
	c.call("initialize", map[string]any{"processId": nil, "rootUri": "file://" + dir, "capabilities": map[string]any{}}, &init)
	if init.ServerInfo.Name != "cairn" || init.Capabilities["hoverProvider"] != true {
		t.Fatalf("initialize: %+v", init)
	}
	c.notify("initialized", map[string]any{})
	doc := map[string]any{"uri": uri}

	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "toml", "version": 1, "text": lspDoc,
	}})
	opened := c.waitDiags("on open", func(p publishedDiags) bool { return p.URI == uri && p.Version == 1 })
	got := opened.codes()
	// "😀" is one column to cairn and two UTF-16 units to LSP: the 3
	// after it is at character 28, not 27.
	want := map[string]lspPos{
		"type":          {Line: 4, Character: 28},
		"invalid-value": {Line: 12, Character: 9},
		"unknown-key":   {Line: 14, Character: 0},
	}
	for code, at := range want {
		if got[code] != at {
			t.Errorf("on open: %s at %+v; want %+v (all: %+v)", code, got[code], at, opened.Diagnostics)
		}
	}
	if len(opened.Diagnostics) != len(want) {
		t.Errorf("on open: %d diagnostics; want %d: %+v", len(opened.Diagnostics), len(want), opened.Diagnostics)
	}
	for _, d := range opened.Diagnostics {
		if d.Source != "cairn" || d.Severity != 1 {
			t.Errorf("diagnostic %+v: want source cairn, severity error", d)
		}
	}

	// The edit fixes the type and the effort and names a harness no one
	// has: a rule --lint leaves out, so it shows only once saved.
	edited := strings.Replace(strings.Replace(lspDoc, `, 3]`, `]`, 1), `"hgh"`, `"high"`, 1)
	edited = strings.Replace(edited, `skill = "bug-hunt"`, "skill = \"bug-hunt\"\nharness = \"claudee\"", 1)
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": edited}},
	})
	changed := c.waitDiags("after the edit", func(p publishedDiags) bool { return p.URI == uri && p.Version == 2 })
	if codes := changed.codes(); len(codes) != 1 || codes["unknown-key"] != (lspPos{Line: 15, Character: 0}) {
		t.Errorf("after the edit: %+v; want unknown-key at 15:0 only", changed.Diagnostics)
	}
	writeFiles(t, dir, map[string]string{"hunt.toml": edited})
	c.notify("textDocument/didSave", map[string]any{"textDocument": doc})
	saved := c.waitDiags("after saving", func(p publishedDiags) bool { _, ok := p.codes()["unknown-harness"]; return ok })
	if at := saved.codes()["unknown-harness"]; at.Line != 12 {
		t.Errorf("after saving: unknown-harness at %+v; want line 12", at)
	}

	var hover struct {
		Contents struct{ Kind, Value string } `json:"contents"`
		Range    *lspRange                    `json:"range"`
	}
	c.call("textDocument/hover", map[string]any{"textDocument": doc, "position": lspPos{Line: 13, Character: 2}}, &hover)
	if !strings.Contains(hover.Contents.Value, "**`effort`**") || !strings.Contains(hover.Contents.Value, "`xhigh`") || hover.Contents.Kind != "markdown" ||
		hover.Range == nil || *hover.Range != (lspRange{Start: lspPos{13, 0}, End: lspPos{13, 6}}) {
		t.Errorf("hover on effort: %+v", hover)
	}
	c.call("textDocument/hover", map[string]any{"textDocument": doc, "position": lspPos{Line: 15, Character: 3}}, &hover)
	if !strings.Contains(hover.Contents.Value, "**`unknown-key`**") {
		t.Errorf("hover on a refused key: %+v", hover)
	}

	var items []struct {
		Label      string `json:"label"`
		InsertText string `json:"insertText"`
	}
	labels := func() []string {
		var out []string
		for _, it := range items {
			out = append(out, it.Label)
		}
		return out
	}
	c.call("textDocument/completion", map[string]any{"textDocument": doc, "position": lspPos{Line: 13, Character: 10}}, &items)
	if l := labels(); !slices.Equal(l, []string{"low", "medium", "high", "xhigh", "max"}) {
		t.Errorf("completion of effort: %v", l)
	}
	c.call("textDocument/completion", map[string]any{"textDocument": doc, "position": lspPos{Line: 14, Character: 12}}, &items)
	if l := labels(); !slices.Equal(l, []string{"judge"}) {
		t.Errorf("completion of worktree: %v", l)
	}
	c.call("textDocument/completion", map[string]any{"textDocument": doc, "position": lspPos{Line: 11, Character: 9}}, &items)
	if l := labels(); !slices.Contains(l, "bug-hunt") || !slices.Contains(l, "cairn-repair") {
		t.Errorf("completion of skill: %v", l)
	}

	var loc struct {
		URI   string   `json:"uri"`
		Range lspRange `json:"range"`
	}
	c.call("textDocument/definition", map[string]any{"textDocument": doc, "position": lspPos{Line: 14, Character: 13}}, &loc)
	if loc.URI != uri || loc.Range != (lspRange{Start: lspPos{6, 11}, End: lspPos{6, 16}}) {
		t.Errorf("definition of worktree: %+v", loc)
	}
	c.call("textDocument/definition", map[string]any{"textDocument": doc, "position": lspPos{Line: 11, Character: 10}}, &loc)
	if !strings.HasSuffix(loc.URI, "/.agents/skills/bug-hunt/SKILL.md") {
		t.Errorf("definition of skill: %+v", loc)
	}

	var symbols []struct {
		Name string `json:"name"`
		Kind int    `json:"kind"`
	}
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": doc}, &symbols)
	if len(symbols) != 2 || symbols[0].Name != "judge" || symbols[1].Name != "hunt" {
		t.Errorf("symbols: %+v", symbols)
	}

	// The quick fixes are the diagnostics' fixes: the misspelt key
	// renamed, the harness's name changed between its quotes.
	type textEdit struct {
		Range   lspRange `json:"range"`
		NewText string   `json:"newText"`
	}
	var fix []struct {
		Title string `json:"title"`
		Edit  struct {
			Changes map[string][]textEdit `json:"changes"`
		} `json:"edit"`
	}
	for _, tc := range []struct {
		code, title string
		diags       publishedDiags
		edit        textEdit
	}{
		{"unknown-key", `Change "commnd" to "command"`, changed, textEdit{lspRange{lspPos{15, 0}, lspPos{15, 6}}, "command"}},
		{"unknown-harness", `Change "claudee" to "claude"`, saved, textEdit{lspRange{lspPos{12, 11}, lspPos{12, 18}}, "claude"}},
	} {
		var x any
		for _, d := range tc.diags.Diagnostics {
			if d.Code == tc.code {
				x = d
			}
		}
		c.call("textDocument/codeAction", map[string]any{
			"textDocument": doc, "range": tc.edit.Range,
			"context": map[string]any{"diagnostics": []any{x}},
		}, &fix)
		if len(fix) != 1 || fix[0].Title != tc.title || len(fix[0].Edit.Changes[uri]) != 1 || fix[0].Edit.Changes[uri][0] != tc.edit {
			t.Errorf("quick fix of %s: %+v; want %q, %+v", tc.code, fix, tc.title, tc.edit)
		}
	}

	c.call("shutdown", nil, nil)
	c.notify("exit", nil)
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("cairn lsp after exit: %v", err)
	}
}
