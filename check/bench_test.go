package check_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// These benchmarks parse and check generated process files of command steps
// (bench/corpus, see bench/README.md), as `cairn check --no-preflight` and
// `cairn check --lint` do for each file: the unit of the bars of docs/design.md §12.

func lintEnv(string) *check.Env {
	return &check.Env{Lint: true, Config: &config.Config{}}
}

// checkEnv is `cairn check --no-preflight` with an empty CAIRN_HOME, no
// config file and no repository.
func checkEnv(home string) *check.Env {
	cfg := &config.Config{}
	return &check.Env{Home: home, Config: cfg, Harnesses: harness.NewRegistry(cfg.CustomHarnesses())}
}

// parseCheck is what cairn does for one file.
func parseCheck(file string, src []byte, env *check.Env) (*ir.Plan, []ir.Diagnostic) {
	p, fe := parse.TOML(file, src)
	return check.Check(context.Background(), p, fe, env)
}

func benchCheck(b *testing.B, steps int, newEnv func(home string) *check.Env) {
	src := corpus.Process(corpus.Scripts, 0, steps)
	file := corpus.ProcessName(0) + ".toml"
	home := b.TempDir()
	env := newEnv(home)
	plan, diags := parseCheck(file, src, env)
	for _, d := range diags {
		b.Logf("%s: %s: %s [%s]", d.Range, d.Severity, d.Message, d.Rule)
	}
	if ir.HasErrors(diags) || (!env.Lint && plan == nil) {
		b.Fatalf("cairn refused the generated file")
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		// A fresh environment each time, as each cairn invocation has: its
		// lookup cache must not carry over.
		plan, _ = parseCheck(file, src, newEnv(home))
	}
	// The heap still live while the result is held, for the memory bar.
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MiB")
	runtime.KeepAlive(plan)
}

// BenchmarkCheckLint is `cairn check --lint` of one 50-step file.
func BenchmarkCheckLint(b *testing.B) { benchCheck(b, 50, lintEnv) }

// BenchmarkCheck is `cairn check --no-preflight` of one 50-step file, without
// a repository.
func BenchmarkCheck(b *testing.B) { benchCheck(b, 50, checkEnv) }

// BenchmarkCheck10000Steps is `cairn check --no-preflight` of one 10,000-step
// file: its B/op (and live-MiB) bound the memory bar of < 100 MiB.
func BenchmarkCheck10000Steps(b *testing.B) { benchCheck(b, 10000, checkEnv) }
