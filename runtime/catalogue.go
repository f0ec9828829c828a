package runtime

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/step"
)

// catalogue runs a catalogue action (§7.8): a step whose rules are cairn's,
// not the process file's.
func (r *run) catalogue(ctx context.Context, sc *step.Context, wt Worktree, a *ir.PlanAction) step.Result {
	switch a.Catalogue {
	case ir.Delivery:
		return r.deliver(ctx, sc, wt)
	case ir.SelfMerge:
		return r.selfMerge(ctx, sc, wt)
	case ir.RunPublishedIssue:
		return r.runPublishedIssue(ctx, sc, wt, a)
	}
	return step.Failed("unknown catalogue step %q", a.Catalogue)
}

// setPullRequest records the URL of the run's pull request, which the
// notification names (§7.9).
func (r *run) setPullRequest(url string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pullRequest = url
}

// pullRequestURL is the URL of the run's pull request, "" when it has none.
func (r *run) pullRequestURL() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pullRequest
}

// issueBranch is what delivery and self-merge work on: the step's
// issue-branch worktree, its branch, the base branch its pull request
// goes into, and the forge of origin's repository in the step's
// environment.
type issueBranch struct {
	wt     Worktree
	branch string
	base   string
	gh     forge.Forge
}

// issueBranchOf is the issue branch of the step sc runs in wt, for the
// catalogue step what; an error says why there is none.
func (r *run) issueBranchOf(sc *step.Context, wt Worktree, what string) (*issueBranch, error) {
	if wt.Kind != ir.IssueBranch {
		return nil, fmt.Errorf("%s works on an issue-branch worktree, and worktree %q is a %s worktree", what, wt.Name, wt.Kind)
	}
	if r.issue == nil {
		return nil, fmt.Errorf("%s needs the run's issue; run the process on one (issue NUMBER)", what)
	}
	if wt.Branch == "" {
		return nil, fmt.Errorf("%s: worktree %q has no branch", what, wt.Name)
	}
	base := ""
	for _, p := range r.o.Plan.Worktrees {
		if p.Name == wt.Name {
			base = p.Base
		}
	}
	if base == "" || base == "HEAD" {
		return nil, fmt.Errorf("%s: worktree %q has no base branch for the pull request to go into; set base_branch in the config", what, wt.Name)
	}
	return &issueBranch{wt: wt, branch: wt.Branch, base: base, gh: &forge.GH{Dir: wt.Path, Env: sc.Env, Repo: r.issue.Repo}}, nil
}
