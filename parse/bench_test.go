package parse_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// BenchmarkTOML reads one generated process file of 50 command steps (see
// bench/README.md), the unit of the 200-file check bar of docs/design.md §12.
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

// BenchmarkDeepRefusal refuses files of 16 MiB, the most cairn reads,
// nested millions of levels deep: a bracket after another all along, or
// 16 MiB of blank lines, heredocs or scalars before the brackets. Each is
// read once by the pre-scan, which stops at the first token too deep.
func BenchmarkDeepRefusal(b *testing.B) {
	const size = 16 << 20
	lines := strings.Repeat("\n", size-1_000)
	for _, tc := range []struct {
		file string
		src  string
		read func(string, []byte) (*ir.Process, []ir.Diagnostic)
	}{
		{"deep.hcl", "a = " + strings.Repeat("[", size-5) + "\n", parse.HCL},
		{"late.hcl", lines + "a = " + strings.Repeat("[", 500) + "\n", parse.HCL},
		{"heredocs.hcl", strings.Repeat("a = <<EOT\n${[1]} %{ if x }[{(%{ endif }\nEOT\n", size/48) + "b = " + strings.Repeat("[", 500), parse.HCL},
		{"deep.procedure.card", "---\na: " + strings.Repeat("[", size-12) + "\n---\n", parse.Card},
		{"late.procedure.card", "---\n" + lines + "a: " + strings.Repeat("{", 500) + "\n---\n", parse.Card},
		{"scalars.procedure.card", "---\n" + strings.Repeat("k: \"[{\" # [{\nl: |\n  [{\n", size/32) + "a: " + strings.Repeat("[", 500) + "\n---\n", parse.Card},
	} {
		src := []byte(tc.src)
		b.Run(tc.file, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, diags := tc.read(tc.file, src); len(diags) != 1 {
					b.Fatalf("%v; want the one refusal of its nesting", diags)
				}
			}
		})
	}
}
