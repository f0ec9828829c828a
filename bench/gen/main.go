// Command gen writes a benchmark corpus of bench/ (see bench/README.md):
// FILES process files of STEPS command steps each, OUT/processes/p-NNNN.toml,
// and as many GitHub workflow files running the same scripts,
// OUT/.github/workflows/wf-N.yml. KIND is short (one-line commands) or
// scripts (distinct multi-line scripts). The output is deterministic.
//
//	go run ./bench/gen -kind short -out DIR -files 200 -steps 50
//	go run ./bench/gen -kind scripts -out DIR -files 1 -steps 10000
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/cairn-dev/cairn/bench/corpus"
)

func main() {
	out := flag.String("out", "", "folder to write the corpus into (required)")
	files := flag.Int("files", 200, "number of process files (and workflow files)")
	steps := flag.Int("steps", 50, "command steps per file")
	kind := flag.String("kind", string(corpus.Scripts), "what the steps run: short or scripts")
	flag.Parse()
	k := corpus.Kind(*kind)
	if *out == "" || *files < 1 || *steps < 1 || flag.NArg() > 0 || !slices.Contains(corpus.Kinds, k) {
		fmt.Fprintln(os.Stderr, "usage: gen -out DIR [-kind short|scripts] [-files N] [-steps M]")
		os.Exit(2)
	}
	procs := filepath.Join(*out, "processes")
	wfs := filepath.Join(*out, ".github", "workflows")
	for _, d := range []string{procs, wfs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			fail(err)
		}
	}
	for i := 0; i < *files; i++ {
		write(filepath.Join(procs, corpus.ProcessName(i)+".toml"), corpus.Process(k, i, *steps))
		write(filepath.Join(wfs, corpus.WorkflowName(i)+".yml"), corpus.Workflow(k, i, *steps))
	}
}

func write(path string, data []byte) {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
