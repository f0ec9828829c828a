package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

// fakePath makes a temporary folder holding executable shell scripts, one per
// name, and returns it with an environment whose whole PATH it is (and
// /bin, for the scripts' own commands), and whose HOME is empty.
func fakePath(t *testing.T, scripts map[string]string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	return dir, []string{"PATH=" + dir + ":/bin:/usr/bin", "HOME=" + home}
}

func TestPreflight(t *testing.T) {
	t.Parallel()
	dir, env := fakePath(t, map[string]string{
		"claude":   `echo; echo "2.1.328 (Claude Code)"; echo more`,
		"codex":    `echo "starting" >&2; echo "error: not logged in" >&2; exit 1`,
		"opencode": `exit 0`,
		"mybot":    `[ "$1" = "-V" ] && echo "mybot 1.0"`,
		"plainbot": `exit 1`,
		"badbot":   `echo "mybot: broken" >&2; exit 2`,
	})
	r := NewRegistry([]ir.CustomHarness{
		{Name: "mybot", Command: []string{"mybot", "{{.Model}}"}, Preflight: []string{"mybot", "-V"}},
		{Name: "plainbot", Command: []string{"plainbot"}},
		{Name: "badbot", Command: []string{"badbot"}, Preflight: []string{"badbot", "--version"}},
		{Name: "ghost", Command: []string{"ghost"}},
		{Name: "typo", Command: []string{"typo", "{{.Model"}},
	})
	for _, tc := range []struct {
		harness string
		ok      bool
		detail  string
	}{
		{"claude", true, "2.1.328 (Claude Code)"},
		{"codex", false, `"codex --version" exited 1: error: not logged in`},
		{"gemini", false, `"gemini" not found on PATH`},
		{"opencode", true, ""},
		{"mybot", true, "mybot 1.0"},
		{"plainbot", true, filepath.Join(dir, "plainbot")},
		{"badbot", false, `"badbot --version" exited 2: mybot: broken`},
		{"ghost", false, `"ghost" not found on PATH`},
		{"typo", false, `harness "typo": template: command[1]:1: unclosed action`},
	} {
		h, _ := r.Lookup(tc.harness)
		st := h.Preflight(context.Background(), PreflightOptions{Env: env})
		if st.Name != tc.harness || !st.Checked || st.OK != tc.ok || st.Detail != tc.detail {
			t.Errorf("%s: Preflight() = %+v; want ok=%v detail %q", tc.harness, st, tc.ok, tc.detail)
		}
	}
}

func TestPreflightTimeout(t *testing.T) {
	t.Parallel()
	_, env := fakePath(t, map[string]string{"claude": `exec sleep 30`})
	h, _ := NewRegistry(nil).Lookup("claude")
	st := h.Preflight(context.Background(), PreflightOptions{Env: env, Timeout: 50 * time.Millisecond})
	if st.OK || !strings.Contains(st.Detail, `"claude --version" did not exit within 50ms`) {
		t.Errorf("Preflight() = %+v; want a timeout", st)
	}
}
