package views

import (
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// DescribeStep says what a step runs and where, for its progress line:
// "session, claude opus high, worktree claude". `cairn run` and compiled
// scripts say it alike.
func DescribeStep(st *ir.PlanStep) string {
	var parts []string
	for _, a := range st.Actions {
		switch a.Kind {
		case ir.Session:
			words := []string{"session"}
			var settings []string
			for _, s := range []*ir.Setting{a.Harness, a.Model, a.Effort} {
				if s != nil && s.Value != "" {
					settings = append(settings, s.Value)
				}
			}
			if len(settings) > 0 {
				words = append(words, strings.Join(settings, " "))
			}
			parts = append(parts, strings.Join(words, ", "))
		case ir.Catalogue:
			parts = append(parts, "catalogue "+a.Catalogue)
		default:
			parts = append(parts, string(a.Kind))
		}
	}
	if len(parts) == 0 {
		// A step with no run phase only checks.
		parts = append(parts, "checks")
	}
	return strings.Join(parts, " + ") + ", worktree " + st.Worktree
}
