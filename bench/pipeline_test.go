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
	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/parse"
	"github.com/cairn-dev/cairn/templates"
)

// setup writes n process files of steps command steps into a new git
// repository, points CAIRN_HOME at an empty folder, and returns the
// repository and the files' paths.
func setup(b testing.TB, n, steps int) (string, []string) {
	dir := b.TempDir()
	var files []string
	for i := range n {
		f := filepath.Join(dir, corpus.ProcessName(i)+".toml")
		if err := os.WriteFile(f, corpus.Process(i, steps), 0o644); err != nil {
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

// newEnv is the check environment `cairn check --no-preflight` has in dir.
func newEnv(dir string) *check.Env {
	return load.Open(dir, load.Options{NoPreflight: true}).Env
}

// pipeline checks files as `cairn check --no-preflight --format json` does
// in dir (load's pipeline, GOMAXPROCS files at a time), then renders the JSON
// report.
func pipeline(b testing.TB, dir string, files []string, w io.Writer) *templates.Report {
	r := load.Open(dir, load.Options{NoPreflight: true}).Check(context.Background(), files, "")
	if r.Failed() || len(r.Plans) != len(files) {
		b.Fatalf("cairn refused the corpus: %d plans of %d files, %d diagnostics", len(r.Plans), len(files), len(r.Diagnostics))
	}
	if err := r.WriteJSON(w, false); err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkPipeline200Files is the body of `cairn check --no-preflight
// --format json` on bench/check.sh's 200 files x 50 steps: opening the
// workspace, checking, rendering. With -cpu 1 it checks file after file.
func BenchmarkPipeline200Files(b *testing.B) {
	dir, files := setup(b, 200, 50)
	b.ReportAllocs()
	for b.Loop() {
		pipeline(b, dir, files, io.Discard)
	}
}

// BenchmarkPipelineStages splits the pipeline of 200 files into its parts.
func BenchmarkPipelineStages(b *testing.B) {
	dir, files := setup(b, 200, 50)
	srcs := make([][]byte, len(files))
	for i, f := range files {
		srcs[i], _ = os.ReadFile(f)
	}
	procs := make([]*ir.Process, len(files))
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i, f := range files {
				procs[i], _ = parse.TOML(f, srcs[i])
			}
		}
	})
	r := &templates.Report{Sources: map[string][]byte{}, Plans: []*ir.Plan{}}
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			env := newEnv(dir)
			r.Plans = r.Plans[:0]
			for _, p := range procs {
				plan, _ := check.Check(context.Background(), p, nil, env)
				r.Plans = append(r.Plans, plan)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := r.WriteJSON(io.Discard, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPipelineConcurrent checks files four at a time on one Env, however
// many CPUs there are: run it with -race.
func TestPipelineConcurrent(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	dir, files := setup(t, 8, 20)
	pipeline(t, dir, files, io.Discard)
}
