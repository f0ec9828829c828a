// Package bench holds the benchmark corpus (bench/corpus), its generator
// (bench/gen), bench/check.sh, and this benchmark of the whole check
// pipeline, for profiling what bench/check.sh times.
package bench

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
	"github.com/cairn-dev/cairn/templates"
)

// setup writes n process files of steps command steps into a new git
// repository and returns their paths and a check environment like
// `cairn check --no-preflight` has there, with an empty CAIRN_HOME.
func setup(b testing.TB, n, steps int) ([]string, func() *check.Env) {
	dir := b.TempDir()
	var files []string
	for i := range n {
		f := filepath.Join(dir, corpus.ProcessName(i)+".toml")
		if err := os.WriteFile(f, corpus.Process(i, steps), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "corpus"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com",
			"GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	home := b.TempDir()
	return files, func() *check.Env {
		repo, err := check.OpenRepo(dir)
		if err != nil {
			b.Fatal(err)
		}
		cfg := &config.Config{}
		return &check.Env{Home: home, Config: cfg, Repo: repo, Harnesses: harness.NewRegistry(cfg)}
	}
}

// checkOne is what cmd/cairn/internal/workspace does for one file.
func checkOne(file string, env *check.Env) ([]byte, *ir.Plan, []ir.Diagnostic) {
	src, err := os.ReadFile(file)
	if err != nil {
		panic(err)
	}
	p, fe := parse.TOML(file, src)
	plan, ds := check.Check(p, fe, env)
	return src, plan, ds
}

// pipeline checks files as `cairn check --no-preflight --format json` does:
// one by one (or, with workers > 1, that many at a time, keeping the order),
// then renders the JSON report.
func pipeline(b testing.TB, files []string, env *check.Env, workers int, w io.Writer) *templates.Report {
	r := &templates.Report{Sources: map[string][]byte{}, Plans: []*ir.Plan{}}
	srcs := make([][]byte, len(files))
	plans := make([]*ir.Plan, len(files))
	diags := make([][]ir.Diagnostic, len(files))
	if workers <= 1 {
		for i, f := range files {
			srcs[i], plans[i], diags[i] = checkOne(f, env)
		}
	} else {
		var wg sync.WaitGroup
		next := make(chan int)
		for range workers {
			wg.Go(func() {
				for i := range next {
					srcs[i], plans[i], diags[i] = checkOne(files[i], env)
				}
			})
		}
		for i := range files {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	for i, f := range files {
		r.Files++
		r.Sources[f] = srcs[i]
		if plans[i] != nil {
			r.Plans = append(r.Plans, plans[i])
		}
		r.Diagnostics = append(r.Diagnostics, diags[i]...)
	}
	ir.SortDiagnostics(r.Diagnostics)
	if r.Failed() || len(r.Plans) != len(files) {
		b.Fatalf("cairn refused the corpus: %d plans of %d files, %d diagnostics", len(r.Plans), len(files), len(r.Diagnostics))
	}
	if err := r.WriteJSON(w, false); err != nil {
		b.Fatal(err)
	}
	return r
}

func benchPipeline(b *testing.B, n, steps, workers int) {
	files, newEnv := setup(b, n, steps)
	b.ReportAllocs()
	for b.Loop() {
		pipeline(b, files, newEnv(), workers, io.Discard)
	}
}

// BenchmarkPipeline200Files is the body of `cairn check --no-preflight
// --format json` on bench/check.sh's 200 files x 50 steps, file after file
// as the CLI does now.
func BenchmarkPipeline200Files(b *testing.B) { benchPipeline(b, 200, 50, 1) }

// BenchmarkPipeline200FilesParallel is the same with GOMAXPROCS files
// checked at a time: what checking files concurrently would gain.
func BenchmarkPipeline200FilesParallel(b *testing.B) {
	benchPipeline(b, 200, 50, runtime.GOMAXPROCS(0))
}

// BenchmarkPipelineStages splits the pipeline of 200 files into its parts.
func BenchmarkPipelineStages(b *testing.B) {
	files, newEnv := setup(b, 200, 50)
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
			env := newEnv()
			r.Plans = r.Plans[:0]
			for _, p := range procs {
				plan, _ := check.Check(p, nil, env)
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

// TestPipelineConcurrent checks files concurrently on one Env: run it with
// -race before trusting BenchmarkPipeline200FilesParallel.
func TestPipelineConcurrent(t *testing.T) {
	files, newEnv := setup(t, 8, 20)
	pipeline(t, files, newEnv(), 4, io.Discard)
}
