package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/parse"
)

// TestCheckDeepNesting: files of 16 MiB, the most cairn reads, nested
// millions of levels deep, in HCL or in a card's front matter, right away or
// after 16 MiB of lines, are refused at the token that goes too deep, in
// JSON, with exit 1, where hclsyntax overflowed its stack (exit 2, no JSON),
// and the parsers took up to 40 s and 6.5 GB before the refusal (see
// parse.TestDeepRefusalAllocations and BenchmarkDeepRefusal for what the
// refusal costs now).
func TestCheckDeepNesting(t *testing.T) {
	t.Parallel()
	const size = source.MaxFileSize
	lines := strings.Repeat("\n", size-1_000)
	dir := t.TempDir()
	files := map[string]string{
		"deep.hcl":            "a = " + strings.Repeat("[", size-5) + "\n",
		"strings.hcl":         "a = \"" + strings.Repeat(`${"`, (size-10)/3) + "\n",
		"late.hcl":            lines + "a = " + strings.Repeat("[", 500) + "\n",
		"deep.procedure.card": "---\na: " + strings.Repeat("[", size-12) + "\n---\n",
		"late.procedure.card": "---\n" + lines + "a: " + strings.Repeat("{", 500) + "\n---\n",
	}
	writeFiles(t, dir, files)
	gitRepo(t, dir)
	late := strings.Count(lines, "\n") + 1
	for _, tc := range []struct {
		file         string
		line, column int
	}{
		{"deep.hcl", 1, 5 + parse.MaxNesting},
		{"strings.hcl", 1, 5 + 3*(parse.MaxNesting/2)},
		{"late.hcl", late, 5 + parse.MaxNesting},
		{"deep.procedure.card", 2, 3 + parse.MaxNesting},
		{"late.procedure.card", late + 1, 3 + parse.MaxNesting},
	} {
		if len(files[tc.file]) > size {
			t.Fatalf("%s is %d bytes, more than cairn reads", tc.file, len(files[tc.file]))
		}
		cmd := exec.Command("cairn", "check", "--no-preflight", "--format", "json", tc.file)
		cmd.Dir, cmd.Env = dir, environ(t, dir)
		stdout, err := cmd.Output()
		if code := cmd.ProcessState.ExitCode(); code != exitFailed {
			t.Errorf("%s: exit %d (%v); want %d", tc.file, code, err, exitFailed)
		}
		var report struct {
			Diagnostics []struct {
				File         string
				Line, Column int
				Rule         string
				Message      string
			}
		}
		if err := json.Unmarshal(stdout, &report); err != nil {
			t.Fatalf("%s: stdout is not JSON: %v\n%.300s", tc.file, err, stdout)
		}
		ds := report.Diagnostics
		if len(ds) != 1 || ds[0].File != tc.file || ds[0].Line != tc.line || ds[0].Column != tc.column ||
			ds[0].Rule != "syntax" || !strings.Contains(ds[0].Message, "nested more than 100 levels deep") {
			t.Errorf("%s: diagnostics %+v; want one syntax error at %d:%d", tc.file, ds, tc.line, tc.column)
		}
	}
}

// TestLSPDeepEdits: a 4 MB HCL document nested four million brackets deep,
// and each of five edits of it, are refused at the bracket that goes too
// deep, as cairn check refuses the file, where the server took 134 s and
// 8.6 GB. The edits insert a bracket each (the document goes over the wire
// once: under the race detector, reading JSON costs most of the test). The
// server's peak memory is asserted with a wide margin: the pre-scan
// allocates nothing for the document, while the document and the message
// that carries it cost tens of MiB (more under the race detector).
func TestLSPDeepEdits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gitRepo(t, dir)
	file := filepath.Join(dir, "deep.hcl")
	uri := "file://" + filepath.ToSlash(file)

	c := startLSP(t, dir)
	c.call("initialize", map[string]any{"processId": nil, "rootUri": "file://" + dir, "capabilities": map[string]any{}}, nil)
	c.notify("initialized", map[string]any{})
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "hcl", "version": 1, "text": "version = 1\na = " + strings.Repeat("[", 4_000_000) + "\n",
	}})
	at := lspRange{Start: lspPos{Line: 1, Character: 4}, End: lspPos{Line: 1, Character: 4}}
	for version := 1; version <= 6; version++ {
		if version > 1 {
			c.notify("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": version},
				"contentChanges": []any{map[string]any{"range": at, "text": "["}},
			})
		}
		got := c.waitDiags(fmt.Sprintf("of version %d", version), func(p publishedDiags) bool { return p.URI == uri && p.Version == version })
		if len(got.Diagnostics) != 1 || got.Diagnostics[0].Code != "syntax" ||
			got.Diagnostics[0].Range.Start != (lspPos{Line: 1, Character: 104}) ||
			!strings.Contains(got.Diagnostics[0].Message, "nested more than 100 levels deep") {
			t.Errorf("version %d: %+v; want the one refusal of nesting at 1:104", version, got.Diagnostics)
		}
	}
	// The server's peak memory, read while it runs: a child's rusage
	// counts the memory of the test that started it.
	const most = 1 << 30
	if peak, ok := peakMemory(c.cmd.Process.Pid); ok {
		t.Logf("cairn lsp's peak memory: %d MiB", peak>>20)
		if peak > most {
			t.Errorf("cairn lsp's peak memory was %d MiB; want under %d MiB", peak>>20, most>>20)
		}
	}
	c.call("shutdown", nil, nil)
	c.notify("exit", nil)
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("cairn lsp after exit: %v", err)
	}
}

// peakMemory is the most memory process pid has held (VmHWM in
// /proc/PID/status), and false where there is no such file.
func peakMemory(pid int) (int64, bool) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kib << 10, err == nil
		}
	}
	return 0, false
}
