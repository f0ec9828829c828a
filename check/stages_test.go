package check

import (
	"context"
	"io"
	"runtime"
	"testing"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
	"github.com/cairn-dev/cairn/views"
)

// BenchmarkStages times each stage `cairn check --no-preflight --format json`
// takes a file through, on bench/check.sh's corpora of 200 files x 50 steps
// (short commands; distinct multi-line scripts), file after file, so that a
// regression shows where it is:
//
//   - parse: parse.TOML, bytes to IR;
//   - rules: every rule but shell-syntax, with the resolution they read;
//   - shell: rule shell-syntax, every script parsed as bash;
//   - plan: resolution and the plan built from it;
//   - render: the report's JSON; render-text: its text.
//
// Each reports B/step and allocs/step besides the totals per op.
func BenchmarkStages(b *testing.B) {
	const files, steps = 200, 50
	for _, k := range corpus.Kinds {
		srcs := make([][]byte, files)
		names := make([]string, files)
		for i := range srcs {
			srcs[i] = corpus.Process(k, i, steps)
			names[i] = corpus.ProcessName(i) + ".toml"
		}
		procs := make([]*ir.Process, files)
		for i := range procs {
			procs[i], _ = parse.TOML(names[i], srcs[i])
		}
		home := b.TempDir()
		newEnv := func() *Env {
			cfg := &config.Config{}
			return &Env{Home: home, Config: cfg, Harnesses: harness.NewRegistry(cfg.CustomHarnesses())}
		}
		var rules []*Rule
		for _, r := range Rules() {
			if r.Run != nil && r != ruleShellSyntax {
				rules = append(rules, r)
			}
		}
		run := func(env *Env, p *ir.Process, res *Resolution, rules ...*Rule) {
			var diags []ir.Diagnostic
			pass := &Pass{Process: p, Env: env, Resolution: res, diags: &diags, ctx: context.Background()}
			for _, r := range rules {
				pass.rule = r
				r.Run(pass)
			}
			if ir.HasErrors(diags) {
				b.Fatalf("%s: %s", diags[0].Range, diags[0].Message)
			}
		}
		env := newEnv()
		resolutions := make([]*Resolution, files)
		report := &views.Report{Sources: map[string][]byte{}}
		for i, p := range procs {
			resolutions[i] = Resolve(context.Background(), p, env)
			report.Plans = append(report.Plans, BuildPlan(context.Background(), p, resolutions[i], env))
		}

		stage := func(name string, body func()) {
			b.Run(string(k)+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for b.Loop() {
					body()
				}
				runtime.ReadMemStats(&after)
				n := float64(b.N * files * steps)
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "B/step")
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/step")
			})
		}
		stage("parse", func() {
			for i := range srcs {
				parse.TOML(names[i], srcs[i])
			}
		})
		stage("rules", func() {
			env := newEnv()
			for i, p := range procs {
				run(env, p, resolutions[i], rules...)
			}
		})
		stage("shell", func() {
			env := newEnv()
			for _, p := range procs {
				run(env, p, nil, ruleShellSyntax)
			}
		})
		stage("plan", func() {
			env := newEnv()
			for _, p := range procs {
				BuildPlan(context.Background(), p, Resolve(context.Background(), p, env), env)
			}
		})
		stage("render", func() {
			if err := report.WriteJSON(io.Discard, false); err != nil {
				b.Fatal(err)
			}
		})
		stage("render-text", func() {
			if err := report.WriteText(io.Discard, views.Style{}); err != nil {
				b.Fatal(err)
			}
		})
	}
}
