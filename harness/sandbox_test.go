package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// TestSandbox holds what the plan says of each harness's sandbox at each
// access: codex confines read and write itself, claude write only where
// bubblewrap and socat are on PATH, gemini and opencode never.
func TestSandbox(t *testing.T) {
	both, one, none := t.TempDir(), t.TempDir(), t.TempDir()
	for dir, bins := range map[string][]string{both: {"bwrap", "socat"}, one: {"bwrap"}} {
		for _, b := range bins {
			if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := func(dir string) []string { return []string{"PATH=" + dir} }
	r := testRegistry()
	for _, tc := range []struct {
		harness, access string
		env             []string
		checked         bool
		want            ir.PlanSandbox
	}{
		{"claude", "write", env(both), true, ir.PlanSandbox{Active: true, Detail: "claude's sandbox (bwrap and socat on PATH)"}},
		{"claude", "", env(both), true, ir.PlanSandbox{Active: true, Detail: "claude's sandbox (bwrap and socat on PATH)"}},
		{"claude", "write", env(one), true, ir.PlanSandbox{Detail: "none: claude's sandbox needs bwrap and socat, and socat is not on PATH"}},
		{"claude", "write", env(none), true, ir.PlanSandbox{Detail: "none: claude's sandbox needs bwrap and socat, and bwrap and socat are not on PATH"}},
		{"claude", "write", env(both), false, ir.PlanSandbox{Detail: "not checked: claude's sandbox needs bwrap and socat on PATH"}},
		{"claude", "read", env(both), true, ir.PlanSandbox{Detail: "none: claude has no sandbox for read access"}},
		{"claude", "full", env(both), true, ir.PlanSandbox{Detail: "none: full access is not confined"}},
		{"codex", "read", nil, false, ir.PlanSandbox{Active: true, Detail: "codex's read-only sandbox"}},
		{"codex", "write", env(none), true, ir.PlanSandbox{Active: true, Detail: "codex's workspace-write sandbox"}},
		{"codex", "full", nil, false, ir.PlanSandbox{Detail: "none: full access is not confined"}},
		{"gemini", "write", env(both), true, ir.PlanSandbox{Detail: "none: gemini has no sandbox for write access"}},
		{"opencode", "read", env(both), true, ir.PlanSandbox{Detail: "none: opencode has no sandbox for read access"}},
		{"mybot", "write", env(both), true, ir.PlanSandbox{Detail: `unknown: custom harness "mybot" maps the access itself`}},
	} {
		h, _ := r.Lookup(tc.harness)
		if got := h.Sandbox(tc.access, tc.env, tc.checked); got != tc.want {
			t.Errorf("%s %s (checked %v): %+v; want %+v", tc.harness, tc.access, tc.checked, got, tc.want)
		}
	}
}
