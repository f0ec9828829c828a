package load

import (
	"context"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/ir"
)

// initHarnesses are the built-in harnesses `cairn init` tries for a first
// process's session, in order.
var initHarnesses = []string{ir.DefaultHarness, "codex", "gemini", "opencode"}

// FirstHarness is the harness a first process's session names (`cairn
// init`): none when the config names one, or when the default, claude,
// can start (found: a harness can); else the first other built-in
// harness that can start; none, not found, when no harness can.
func (ws *Workspace) FirstHarness(ctx context.Context) (name string, found bool) {
	if cfg := ws.Env.Config; cfg != nil && cfg.Harness.Set && !cfg.Harness.Bad {
		return "", true
	}
	for _, n := range initHarnesses {
		h, ok := ws.Env.Harnesses.Lookup(n)
		if !ok || !check.Preflight(ctx, ws.Env, h).OK {
			continue
		}
		if n == ir.DefaultHarness {
			return "", true
		}
		return n, true
	}
	return "", false
}
