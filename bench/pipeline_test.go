// Package bench holds the benchmark corpus (bench/corpus), its generator
// (bench/gen), bench/check.sh, and this benchmark of the whole check
// pipeline, for profiling what bench/check.sh times.
package bench

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/views"
)

// setup writes n process files of corpus k of steps command steps into a
// new git repository, points CAIRN_HOME at an empty folder, and returns the
// repository and the files' paths.
func setup(b testing.TB, k corpus.Kind, n, steps int) (string, []string) {
	dir := b.TempDir()
	var files []string
	for i := range n {
		f := filepath.Join(dir, corpus.ProcessName(i)+".toml")
		if err := os.WriteFile(f, corpus.Process(k, i, steps), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	commit(b, dir)
	b.Setenv("CAIRN_HOME", b.TempDir())
	return dir, files
}

// commit makes dir a git repository of one commit holding its files.
func commit(b testing.TB, dir string) {
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "bench"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com",
			"GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// pipeline checks files as `cairn check --no-preflight --format json` does
// in dir (load's pipeline, GOMAXPROCS files at a time), then renders the JSON
// report.
func pipeline(b testing.TB, dir string, files []string, w io.Writer) *views.Report {
	r := load.Open(context.Background(), dir, load.Options{NoPreflight: true, Env: os.Environ()}).Check(context.Background(), files, "")
	if r.Failed() || len(r.Plans) != len(files) {
		b.Fatalf("cairn refused the corpus: %d plans of %d files, %d diagnostics", len(r.Plans), len(files), len(r.Diagnostics))
	}
	if err := r.WriteJSON(w, false); err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkPipeline is the body of `cairn check --no-preflight --format
// json` on bench/check.sh's corpora of 200 files x 50 steps, and on one file
// of 50 steps: opening the workspace, checking, rendering. With -cpu 1 it
// checks file after file. Besides ns/op, B/op and allocs/op it reports what
// one step costs: B/step and allocs/step.
func BenchmarkPipeline(b *testing.B) {
	for _, c := range []struct {
		name         string
		kind         corpus.Kind
		files, steps int
	}{
		{"short", corpus.Short, 200, 50},
		{"scripts", corpus.Scripts, 200, 50},
		{"one", corpus.Scripts, 1, 50},
		{"big", corpus.Scripts, 1, 10000},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir, files := setup(b, c.kind, c.files, c.steps)
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				pipeline(b, dir, files, io.Discard)
			}
			runtime.ReadMemStats(&after)
			steps := float64(b.N * c.files * c.steps)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/steps, "B/step")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/steps, "allocs/step")
		})
	}
}

// TestPipelineConcurrent checks files four at a time on one Env, however
// many CPUs there are: run it with -race.
func TestPipelineConcurrent(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	dir, files := setup(t, corpus.Scripts, 8, 20)
	pipeline(t, dir, files, io.Discard)
}
