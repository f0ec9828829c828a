package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

// BenchmarkReadSession reads a session's output as cairn run does once the
// session ends, its final message and how it ended, from a captured output
// of each CLI (testdata/output/NAME-usage.stdout, a session of two model
// requests), and from a long codex session: the events of the tool calls
// of codex-capped.stdout 500 times over, 2,500 events, 430 KiB.
func BenchmarkReadSession(b *testing.B) {
	r := NewRegistry(nil)
	read := func(name string) []byte {
		out, err := os.ReadFile(filepath.Join("testdata", "output", name))
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	var calls strings.Builder
	for line := range strings.Lines(string(read("codex-capped.stdout"))) {
		if strings.Contains(line, `"item.`) {
			calls.WriteString(line)
		}
	}
	cases := []struct {
		name, cli string
		out       []byte
	}{
		{"claude", "claude", read("claude-usage.stdout")},
		{"codex", "codex", read("codex-usage.stdout")},
		{"gemini", "gemini", read("gemini-usage.stdout")},
		{"opencode", "opencode", read("opencode-usage.stdout")},
		{"codex-long", "codex", []byte(strings.Repeat(calls.String(), 500) + `{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}` + "\n")},
	}
	for _, c := range cases {
		h, _ := r.Lookup(c.cli)
		o := Output{Stdout: c.out}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.out)))
			for b.Loop() {
				h.Final(o)
				h.SessionEnd(o)
			}
		})
	}
}

// BenchmarkTurnWatch counts the turns of an opencode session as they come,
// line by line (testdata/output/opencode-usage.stdout).
func BenchmarkTurnWatch(b *testing.B) {
	out, err := os.ReadFile(filepath.Join("testdata", "output", "opencode-usage.stdout"))
	if err != nil {
		b.Fatal(err)
	}
	h, _ := NewRegistry(nil).Lookup("opencode")
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		w := h.WatchTurns(100, func() {})
		w.Write(out)
	}
}

// BenchmarkCompileJQ compiles the jq of a harness's final message, which
// cairn run does once per query and process (compileJQ keeps it).
func BenchmarkCompileJQ(b *testing.B) {
	for b.Loop() {
		q, err := gojq.Parse(FinalJQDefs() + "\nclaude")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := gojq.Compile(q, gojq.WithVariables(jqVars)); err != nil {
			b.Fatal(err)
		}
	}
}
