package runtime

import (
	"fmt"

	"github.com/cairn-dev/cairn/ir"
)

// Unsupported lists what in p this runtime cannot carry out yet, one message
// per thing, naming its step or worktree: catalogue steps and issue-branch
// worktrees. `cairn run` refuses such a plan before it starts, rather than
// run part of it.
func Unsupported(p *ir.Plan) []string {
	var out []string
	for _, w := range p.Worktrees {
		if w.Kind == ir.IssueBranch {
			out = append(out, fmt.Sprintf("worktree %q: issue-branch worktrees are not supported yet", w.Name))
		}
	}
	for _, stage := range p.Stages {
		for _, st := range stage {
			for _, a := range st.Actions {
				if a.Kind == ir.Catalogue {
					out = append(out, fmt.Sprintf("step %q: catalogue step %q is not supported yet", st.Name, a.Catalogue))
				}
			}
		}
	}
	return out
}
