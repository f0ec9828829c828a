package harness

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/internal/lookpath"
	"github.com/cairn-dev/cairn/ir"
)

// Sandbox says whether a sandbox confines h's sessions at access (empty:
// the default, write) to their worktree, with what confines them or why
// nothing does, for the plan (not known of a custom harness). A sandbox that needs programs on PATH is
// active only when they are on env's PATH; when checked is false (no
// preflight) they are not looked for and it is not said to be active.
func (h *Harness) Sandbox(access string, env []string, checked bool) ir.PlanSandbox {
	if access == "" {
		access = ir.DefaultAccess
	}
	sb, ok := h.spec.Sandboxes[access]
	switch {
	case !h.Builtin:
		return ir.PlanSandbox{Detail: fmt.Sprintf("unknown: custom harness %q maps the access itself", h.Name)}
	case ok:
	case access == ir.AccessFull:
		return ir.PlanSandbox{Detail: "none: full access is not confined"}
	default:
		return ir.PlanSandbox{Detail: fmt.Sprintf("none: %s has no sandbox for %s access", h.Name, access)}
	}
	if len(sb.Needs) == 0 {
		return ir.PlanSandbox{Active: true, Detail: sb.Name}
	}
	needs := strings.Join(sb.Needs, " and ")
	if !checked {
		return ir.PlanSandbox{Detail: fmt.Sprintf("not checked: %s needs %s on PATH", sb.Name, needs)}
	}
	var missing []string
	for _, bin := range sb.Needs {
		if _, err := lookpath.In(env, "", bin); err != nil {
			missing = append(missing, bin)
		}
	}
	if len(missing) > 0 {
		return ir.PlanSandbox{Detail: fmt.Sprintf("none: %s needs %s, and %s not on PATH", sb.Name, needs, isAre(missing))}
	}
	return ir.PlanSandbox{Active: true, Detail: fmt.Sprintf("%s (%s on PATH)", sb.Name, needs)}
}

// isAre words the missing programs: "socat is", "bwrap and socat are".
func isAre(missing []string) string {
	if len(missing) == 1 {
		return missing[0] + " is"
	}
	return strings.Join(missing, " and ") + " are"
}
