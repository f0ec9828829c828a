package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/record"
	crt "github.com/cairn-dev/cairn/runtime"
)

// seqProcess is bench/run.sh's first process: n trivial command steps, one
// after the other, in the implicit default worktree.
func seqProcess(n int) []byte {
	var b strings.Builder
	b.WriteString("version = 1\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\n[[steps]]\nname = \"s-%04d\"\ncommand = \"echo step %d\"\n", i, i)
	}
	return []byte(b.String())
}

// parProcess is bench/run.sh's second process: n steps that sleep 1 s in
// one parallel group, each in its own throwaway worktree.
func parProcess(n int) []byte {
	var b strings.Builder
	b.WriteString("version = 1\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\n[worktrees.w%d]\nkind = \"throwaway\"\n", i)
	}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\n[[steps]]\nname = \"sleep-%d\"\ncommand = \"sleep 1\"\nworktree = \"w%d\"\nparallel = \"sleepers\"\n", i, i)
	}
	return []byte(b.String())
}

// runSetup commits src as p.toml in a new small git repository and returns
// what runtime.Run needs to run it, as `cairn run p.toml` would, with an
// empty CAIRN_HOME.
func runSetup(b testing.TB, src []byte) crt.Options {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# bench\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, "p.toml")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		b.Fatal(err)
	}
	commit(b, dir)
	b.Setenv("CAIRN_HOME", b.TempDir())
	rn, r, err := load.PrepareRun(context.Background(), dir, file, "", load.Options{Env: os.Environ()})
	if err != nil {
		var diags []ir.Diagnostic
		if r != nil {
			diags = r.Diagnostics
		}
		b.Fatalf("check refused the process: %v: %v", err, diags)
	}
	return crt.Options{Home: rn.Home, Repo: rn.Repo, Env: os.Environ(), Harnesses: rn.Harnesses, Plan: rn.Plan, Source: rn.Source}
}

// benchRun runs the plan b.N times; every run must succeed.
func benchRun(b *testing.B, o crt.Options, steps int) {
	b.ReportAllocs()
	for b.Loop() {
		status, err := crt.Run(context.Background(), o)
		if err != nil || status != record.StatusSucceeded {
			b.Fatalf("run ended %s: %v", status, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N)/float64(steps), "ms/step")
}

// BenchmarkRun500Commands is what `cairn run` does with bench/run.sh's 500
// command steps, after the check: for profiling the per-step cost.
func BenchmarkRun500Commands(b *testing.B) {
	benchRun(b, runSetup(b, seqProcess(500)), 500)
}

// BenchmarkRun100Commands is the same with 100 steps: a per-step cost
// that grows with the number of steps shows against BenchmarkRun500Commands.
func BenchmarkRun100Commands(b *testing.B) {
	benchRun(b, runSetup(b, seqProcess(100)), 100)
}

// BenchmarkRun8Sleepers is bench/run.sh's parallel group: 8 steps that sleep
// 1 s, each in its own throwaway worktree.
func BenchmarkRun8Sleepers(b *testing.B) {
	benchRun(b, runSetup(b, parProcess(8)), 8)
}

// BenchmarkSpawn500 is the floor the 500 steps are held to: 500 `bash
// -euo pipefail -c "echo step N"` from Go, each output written to a file.
func BenchmarkSpawn500(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		for i := 1; i <= 500; i++ {
			out, err := exec.Command("bash", "-euo", "pipefail", "-c", fmt.Sprintf("echo step %d", i)).CombinedOutput()
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.md", i)), out, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N)/500, "ms/step")
}
