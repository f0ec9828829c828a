package check

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// RuleFullAccessCheckout is the ID of the rule about full access in a
// checkout worktree.
const RuleFullAccessCheckout = "full-access-checkout"

// ruleFullAccessCheckout warns about a session that runs with access
// "full" in a checkout worktree: an agent under no restriction, in the
// user's own working tree, can touch the user's own files. It points at the
// key that asked for "full", the step's or the process's; a process key
// that several such sessions take is warned about once, naming them all.
// With a resolution (not under --lint) a session that --access lowered is
// left alone: it will not run with "full".
var ruleFullAccessCheckout = &Rule{
	ID:       RuleFullAccessCheckout,
	Doc:      `access = "full" on a session step whose worktree is a checkout: its agent can touch the user's own files`,
	Severity: ir.Warning,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		var order []ir.Range
		found := map[ir.Range]*fullAccess{}
		for i := range p.Steps {
			s := &p.Steps[i]
			wt, ok := worktreeOf(p, s)
			if !ok {
				continue
			}
			if kind, ok := kindOf(p, wt); !ok || kind != ir.Checkout {
				continue
			}
			for j, a := range s.Actions {
				key := askedAccess(p, a)
				if a.Kind != ir.Session || key.Value != ir.AccessFull || lowered(pass, i, j) {
					continue
				}
				at := valueRange(key)
				f := found[at]
				if f == nil {
					f = &fullAccess{worktree: wt}
					found[at] = f
					order = append(order, at)
				}
				if ref := stepRef(p, i); len(f.steps) == 0 || f.steps[len(f.steps)-1] != ref {
					f.steps = append(f.steps, ref)
				}
				if f.worktree != wt {
					f.worktree = ""
				}
			}
		}
		for _, at := range order {
			f := found[at]
			where := "checkout worktrees"
			switch {
			case f.worktree == ir.ImplicitWorktree && declared(p, f.worktree) == nil:
				// A card's steps run in the checkout, which it names
				// nowhere.
				where = "the checkout"
			case f.worktree != "":
				where = fmt.Sprintf("checkout worktree %q", f.worktree)
			}
			pass.Report(at, "access %q leaves %s unrestricted in %s, your own working tree: it can touch your own files; use %q, or a throwaway worktree",
				ir.AccessFull, agentsOf(f.steps), where, ir.AccessWrite)
		}
	},
}

// fullAccess is what one "full" key gives full access to: the steps, and
// their one worktree ("" when they run in several).
type fullAccess struct {
	steps    []string
	worktree string
}

// askedAccess is the key a session action asks for its access with: its
// step's, else the process's; unset when neither names an access level.
func askedAccess(p *ir.Process, a ir.Action) ir.Field[string] {
	switch {
	case knownAccess(a.Keys().Access):
		return a.Keys().Access
	case knownAccess(p.Access):
		return p.Access
	}
	return ir.Field[string]{}
}

// lowered reports whether the resolution of action j of step i runs with
// less than "full": the config or --access lowered it.
func lowered(pass *Pass, i, j int) bool {
	res := pass.Resolution
	if res == nil || i >= len(res.Steps) || j >= len(res.Steps[i].Actions) || res.Steps[i].Actions[j] == nil {
		return false
	}
	return res.Steps[i].Actions[j].Access.Value != ir.AccessFull
}

// agentsOf words the agents of steps: `the agent of step "a"`, `the agents
// of step "a" and step "b"`.
func agentsOf(steps []string) string {
	if len(steps) == 1 {
		return "the agent of " + steps[0]
	}
	return "the agents of " + strings.Join(steps[:len(steps)-1], ", ") + " and " + steps[len(steps)-1]
}
