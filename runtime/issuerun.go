package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/worktree"
)

// releaseTimeout bounds the release of a Claim at a run's end, which runs
// even when the run was interrupted.
const releaseTimeout = 30 * time.Second

// openIssue reads the issue o's plan names through gh (docs/design.md §7.8), with the
// config's trusted accounts, and returns it with a copy of the plan whose
// issue-branch worktrees name their branch: one of the issue's that
// exists, else cairn/NUMBER-slug.
func openIssue(ctx context.Context, o Options) (*forge.Issue, *ir.Plan, error) {
	is, err := forge.OpenIssue(ctx, o.Repo, o.Plan.Issue, o.Plan.Trusted, o.Env)
	if err != nil {
		return nil, nil, err
	}
	plan := *o.Plan
	plan.Worktrees = append([]ir.PlanWorktree(nil), o.Plan.Worktrees...)
	for i := range plan.Worktrees {
		if plan.Worktrees[i].Kind != ir.IssueBranch {
			continue
		}
		branch, err := is.Branch(ctx, o.Repo)
		if err != nil {
			return nil, nil, fmt.Errorf("issue %s: name its branch: %w", is, err)
		}
		plan.Worktrees[i].Branch = branch
	}
	return is, &plan, nil
}

// takeClaim takes the Claim on the run's issue (docs/design.md §7.8), when it has one and
// an issue-branch worktree: a run of another live cairn holding it refuses
// this one, and says whose it is.
func (r *run) takeClaim(ctx context.Context) error {
	if r.issue == nil || !hasIssueBranch(r.o.Plan) || r.o.Stubs != nil {
		// A stubbed run claims nothing: it delivers nothing.
		return nil
	}
	host, _ := os.Hostname()
	holder := forge.Holder{Host: host, Run: r.folder.Name(), PID: os.Getpid(), Folder: r.folder.Dir}
	claim, err := forge.TakeClaim(ctx, r.o.Repo, r.issue.Number, holder, r.o.Flags.TakeOver, claimStaleness)
	if err != nil {
		return err
	}
	r.claim = claim
	return nil
}

// claimStaleness tells whether the holder of a Claim ran on this host, and
// if so whether it has stopped: its run folder's lock is free, or, with no
// folder to look at, its process is gone.
func claimStaleness(h forge.Holder) (local, stale bool) {
	local, stale = forge.ProcessStaleness(h)
	if !local || h.Folder == "" || !filepath.IsAbs(h.Folder) {
		return local, stale
	}
	if _, err := os.Stat(h.Folder); err == nil {
		if held, err := proc.Held(filepath.Join(h.Folder, record.LockFile)); err == nil {
			return true, !held
		}
	}
	return local, stale
}

// hasIssueBranch reports whether p has an issue-branch worktree.
func hasIssueBranch(p *ir.Plan) bool {
	for _, w := range p.Worktrees {
		if w.Kind == ir.IssueBranch {
			return true
		}
	}
	return false
}

// writeIssue writes the issue's file, with the trusted accounts' comments
// only, into every worktree of the run.
func (r *run) writeIssue(ctx context.Context) error {
	if r.issue == nil {
		return nil
	}
	for _, wt := range r.wts.All() {
		if _, err := writeIssueFile(ctx, r.o.Repo.Git, r.issue, wt.Path); err != nil {
			return fmt.Errorf("issue %s: write it into worktree %q: %w", r.issue, wt.Name, err)
		}
	}
	return nil
}

// writeIssueFile writes is as the issue file of the worktree at dir,
// excluded from git first, so that it never makes the tree dirty.
func writeIssueFile(ctx context.Context, g *git.Git, is *forge.Issue, dir string) (string, error) {
	if err := worktree.ExcludeCairnFiles(ctx, g, dir); err != nil {
		return "", fmt.Errorf("write issue %s: %w", is, err)
	}
	return is.WriteFile(dir)
}

// releaseClaim releases the run's Claim at its end, whatever happened,
// with a context of its own that ctx's end does not end: an interrupted
// run lets go of its issue too.
func (r *run) releaseClaim(ctx context.Context) {
	if r.claim == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	r.warn(r.claim.Release(ctx))
	r.claim = nil
}
