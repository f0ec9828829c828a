// Command gen writes the benchmark corpus of bench/ (see bench/README.md):
// FILES process files of STEPS command steps each, OUT/processes/p-NNNN.toml,
// and as many GitHub workflow files running the same scripts,
// OUT/.github/workflows/wf-N.yml. The output is deterministic.
//
//	go run ./bench/gen -out DIR -files 200 -steps 50
//	go run ./bench/gen -out DIR -files 1 -steps 10000
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/bench/corpus"
)

func main() {
	out := flag.String("out", "", "folder to write the corpus into (required)")
	files := flag.Int("files", 200, "number of process files (and workflow files)")
	steps := flag.Int("steps", 50, "command steps per file")
	flag.Parse()
	if *out == "" || *files < 1 || *steps < 1 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gen -out DIR [-files N] [-steps M]")
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
		write(filepath.Join(procs, corpus.ProcessName(i)+".toml"), corpus.Process(i, *steps))
		write(filepath.Join(wfs, corpus.WorkflowName(i)+".yml"), corpus.Workflow(i, *steps))
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
