package parse_test

import (
	"testing"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/parse"
)

// BenchmarkTOML reads one generated process file of 50 command steps (see
// bench/README.md), the unit of the 200-file check bar of SPEC §12.
func BenchmarkTOML(b *testing.B) {
	src := corpus.Process(corpus.Scripts, 0, 50)
	file := corpus.ProcessName(0) + ".toml"
	if p, diags := parse.TOML(file, src); p == nil || len(diags) > 0 {
		for _, d := range diags {
			b.Errorf("%s: %s [%s]", d.Range, d.Message, d.Rule)
		}
		b.Fatalf("the front-end refused the generated file")
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		parse.TOML(file, src)
	}
}
