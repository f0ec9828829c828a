package harness

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// TestCustomAccess holds a custom harness's {{.Access}}: the session's
// access level, as its argv template writes it.
func TestCustomAccess(t *testing.T) {
	r := NewRegistry([]ir.CustomHarness{
		{Name: "guarded", Command: []string{"guarded", "--access={{.Access}}", `{{if eq .Access "read"}}--read-only{{end}}`, "--dir", "{{.Worktree}}"}},
	})
	h, _ := r.Lookup("guarded")
	for _, tc := range []struct {
		access, want string
	}{
		{ir.AccessRead, "guarded|--access=read|--read-only|--dir|/w"},
		{ir.AccessWrite, "guarded|--access=write|--dir|/w"},
		{ir.AccessFull, "guarded|--access=full|--dir|/w"},
		{"", "guarded|--access=write|--dir|/w"},
	} {
		c, err := h.Command(Invocation{Prompt: "p", Access: tc.access, Worktree: "/w"})
		if err != nil {
			t.Fatalf("Command(access %s): %v", tc.access, err)
		}
		if len(c.Env) > 0 || len(c.Files) > 0 {
			t.Errorf("access %s: a custom harness got env %q and files %v; want none", tc.access, c.Env, c.Files)
		}
		if got := strings.Join(c.Argv, "|"); got != tc.want {
			t.Errorf("access %s: argv %s; want %s", tc.access, got, tc.want)
		}
	}
}
