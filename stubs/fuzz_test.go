package stubs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/source/sourcetest"
)

// fuzzSeeds are stubs and test files in each shape the readers take.
var fuzzSeeds = []string{
	"[stubs.hunt-claude]\nresult = \"found two bugs\"\noutcome = \"succeeded\"\nusage = { turns = 12, cost_usd = 0.84 }\nverdict = \"pass\"\n",
	"[[stubs.fix.attempts]]\nresult = \"first try\"\nverdict = \"fail\"\n[[stubs.fix.attempts]]\noutcome = \"failed\"\ncause = \"x\"\n",
	"[stubs.tests]\nexit = 1\nstdout = \"FAIL TestParse\"\n",
	"stubs.a = { result = 'x', usage = { input_tokens = 1, cache_read_tokens = 2 } }\nstubs.\"b.c\".exit = 0\n",
	"[stubs.x]\nresult_file = \"\"\ncause = 1\n[stubs.x.attempts]\n",
	"process = \"hunt\"\ndirective = \"d\"\njobs = 2\nbudget_usd = 1.5\nstubs = \"hunt.stubs.toml\"\n[expect]\nstatus = \"inconclusive\"\nexit = 3\noutput_contains = [\"v\"]\n[expect.steps]\njudge = \"succeeded\"\n",
	"process = \"p.toml\"\n[stubs.a]\nresult = \"\"\"\nmulti\n\"\"\"\n[expect.steps]\na = 1\n",
}

func FuzzStubs(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	if src, err := os.ReadFile(filepath.Join("..", "examples", "hunt.stubs.toml")); err == nil {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		const file = "fuzz.stubs.toml"
		s, diags := Read(file, src)
		text := source.Text(src)
		sourcetest.CheckDiagnostics(t, file, text, diags)
		if len(diags) > 0 {
			return
		}
		// A run's copy of clean stubs reads back as the same stubs.
		out := Format(s)
		back, diags := Read(file, out)
		if len(diags) > 0 {
			t.Fatalf("the copy of clean stubs is refused: %v\n%s", sourcetest.DiagLines(diags), out)
		}
		sameStubs(t, s, back)
	})
}

func FuzzTestFile(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	if src, err := os.ReadFile(filepath.Join("..", "examples", "hunt.test.toml")); err == nil {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		const file = "fuzz.test.toml"
		_, diags := ReadTest(file, src)
		sourcetest.CheckDiagnostics(t, file, source.Text(src), diags)
	})
}
