package bench

import (
	"io"
	"testing"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/views"
)

// BenchmarkRender renders the report of bench/check.sh's corpus short (200
// files x 50 steps), checked once, in each format of `cairn check`: what a
// format costs beyond the check. It reports ns/step besides ns/op.
func BenchmarkRender(b *testing.B) {
	dir, files := setup(b, corpus.Short, 200, 50)
	r := pipeline(b, dir, files, io.Discard)
	for _, f := range []struct {
		name  string
		write func() error
	}{
		{"json", func() error { return r.WriteJSON(io.Discard, false) }},
		{"text", func() error { return r.WriteText(io.Discard, views.Style{}) }},
		{"sarif", func() error { return r.WriteSARIF(io.Discard, views.Tool{Version: "bench"}, false) }},
		{"github", func() error { return r.WriteGitHub(io.Discard) }},
		{"mermaid", func() error { return r.WriteGraphs(io.Discard, io.Discard, "mermaid", views.Style{}) }},
		{"dot", func() error { return r.WriteGraphs(io.Discard, io.Discard, "dot", views.Style{}) }},
	} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := f.write(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(files)*50), "ns/step")
		})
	}
}
