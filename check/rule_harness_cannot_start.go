package check

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
)

// RuleHarnessCannotStart is the ID of the rule about harnesses whose preflight
// fails.
const RuleHarnessCannotStart = "harness-cannot-start"

// ruleHarnessCannotStart refuses a harness the process starts whose binary
// is missing or whose version command fails. It runs only when the Env asks
// for preflight; each harness is asked once per invocation, however many
// files use it.
var ruleHarnessCannotStart = &Rule{
	ID:       RuleHarnessCannotStart,
	Doc:      "a harness whose binary is missing or whose preflight fails",
	Severity: ir.Error,
	Run: func(pass *Pass) {
		if pass.Resolution == nil || pass.Env == nil || !pass.Env.Preflight {
			return
		}
		uses := pass.Resolution.Harnesses
		statuses := preflightAll(pass.ctx, pass.Env, uses)
		for i, u := range uses {
			if u.Adapter == nil || statuses[i].OK {
				continue
			}
			pass.Report(u.At, "harness %q cannot start: %s", u.Name, statuses[i].Detail)
		}
	},
}

// preflight asks h whether it can start, once per Env: two hundred files
// on claude run one `claude --version`.
func preflight(ctx context.Context, env *Env, h *harness.Harness) ir.HarnessStatus {
	return lookupOnce(env, "preflight:"+h.Name, func() ir.HarnessStatus {
		return h.Preflight(ctx, harness.PreflightOptions{Env: env.Environ, Dir: env.Dir, Timeout: env.preflightTimeout()})
	})
}

// preflightTimeout is the config's preflight_timeout; zero (the harness
// package's default) when unset or not a duration, which the config's own
// check refuses.
func (env *Env) preflightTimeout() time.Duration {
	if env.Config == nil || !env.Config.PreflightTimeout.Set || env.Config.PreflightTimeout.Bad {
		return 0
	}
	d, err := ir.ParseDuration(env.Config.PreflightTimeout.Value)
	if err != nil {
		return 0
	}
	return d
}

// preflightAll preflights the harnesses of uses concurrently and returns
// their statuses in the same order. A harness the registry does not know
// cannot start.
func preflightAll(ctx context.Context, env *Env, uses []HarnessUse) []ir.HarnessStatus {
	out := make([]ir.HarnessStatus, len(uses))
	var wg sync.WaitGroup
	for i, u := range uses {
		if u.Adapter == nil {
			out[i] = ir.HarnessStatus{Name: u.Name, Checked: true, Detail: fmt.Sprintf("unknown harness %q", u.Name)}
			continue
		}
		wg.Go(func() { out[i] = preflight(ctx, env, u.Adapter) })
	}
	wg.Wait()
	return out
}

// Preflight asks h whether it can start, as check does (once per Env, under
// the config's preflight_timeout), for `cairn doctor`.
func Preflight(ctx context.Context, env *Env, h *harness.Harness) ir.HarnessStatus {
	return preflight(ctx, env, h)
}
