package catalogue

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/ir"
)

// selfMerge runs a self-merge action (docs/design.md §7.8): it merges the branch's pull
// request (squashed, and only at the head cairn delivered) when the
// command line or the config asked for a merge, and otherwise holds it:
// when no merge was asked, when the file says self_merge = false, when the
// change touches a protected path, or when the pull request is not ready
// and green. A held self-merge succeeds and leaves the pull request ready
// for review; its reason is in the progress, the result and the action's
// cause. cairn posts nothing on the pull request either way.
func selfMerge(ctx context.Context, r Run, s *Step) Result {
	b, err := issueBranchOf(r, s, "self-merge")
	if err != nil {
		return failure("%v", err)
	}
	pr, err := b.gh.OpenPullRequest(ctx, b.branch)
	if err != nil {
		return failure("%v", err)
	}
	if pr == nil {
		return failure("branch %q has no open pull request to merge; a delivery step opens it", b.branch)
	}
	r.SetPullRequest(pr.URL)
	reason, err := holdReason(ctx, r.Plan().Limits, b, pr)
	if err != nil {
		return failure("pull request %s: %v", pr.URL, err)
	}
	if reason != "" {
		r.Note(fmt.Sprintf("%s: self-merge held: %s; pull request %s is left ready for review", s.Name, reason, pr.URL))
		return Result{
			Result: fmt.Sprintf("Pull request: %s\nSelf-merge held: %s.\nThe pull request is left ready for review.\n", pr.URL, reason),
			Cause:  "self-merge held: " + reason,
		}
	}
	head := b.git.Head(ctx, b.dir)
	if err := b.gh.Merge(ctx, pr.Number, head); err != nil {
		return failure("pull request %s: %v", pr.URL, err)
	}
	r.Note(fmt.Sprintf("%s: merged pull request %s", s.Name, pr.URL))
	return Result{Result: fmt.Sprintf("Pull request: %s\nMerged (squashed) at %s.\n", pr.URL, head)}
}

// holdReason says why the pull request pr of branch b must not be merged
// now under the limits l, "" when it may be. The limits come first: no merge asked, the file
// forbidding one, a protected path touched; then the pull request itself:
// a draft, a head other than the worktree's, checks not green.
func holdReason(ctx context.Context, l ir.PlanLimits, b *issueBranch, pr *forge.PullRequest) (string, error) {
	switch {
	case !l.SelfMerge:
		return "the process file forbids it (self_merge = false)", nil
	case l.Merge.Value != "true":
		return "no merge was asked (run with --merge, or set merge_always = true in the config)", nil
	}
	if err := b.fetchBase(ctx); err != nil {
		return "", err
	}
	out, err := b.git.Run(ctx, b.dir, "diff", "--name-only", "-z", b.originBase()+"...HEAD")
	if err != nil {
		return "", err
	}
	var touched []string
	for _, f := range strings.Split(out, "\x00") {
		if f == "" {
			continue
		}
		for _, g := range l.ProtectedPaths {
			match, err := protects(g, f)
			if err != nil {
				return fmt.Sprintf("protected path %q is not a valid glob (%v)", g, err), nil
			}
			if match {
				touched = append(touched, fmt.Sprintf("%q (protected by %q)", f, g))
				break
			}
		}
	}
	if len(touched) > 0 {
		return "the change touches protected paths: " + strings.Join(touched, ", "), nil
	}
	view, err := b.gh.ViewPullRequest(ctx, pr.Number)
	if err != nil {
		return "", err
	}
	head := b.git.Head(ctx, b.dir)
	switch {
	case view.IsDraft:
		return "the pull request is a draft", nil
	case view.HeadRefOid != head:
		return fmt.Sprintf("the pull request's head is %s, not the delivered %s", view.HeadRefOid, head), nil
	}
	checks, err := b.gh.Checks(ctx, pr.Number)
	if err != nil && !errors.Is(err, forge.ErrNoChecks) {
		return "", err
	}
	if bad := forge.Failing(checks); len(bad) > 0 {
		return fmt.Sprintf("checks %s fail", forge.CheckNames(bad)), nil
	}
	if forge.Pending(checks) {
		return "checks are still pending", nil
	}
	return "", nil
}

// protects reports whether the protected-path glob g matches the path p
// (slash-separated, relative to the repository) or a folder holding it.
// A glob's segments match as path.Match's, one path segment each; a "**"
// segment matches any number of segments, none included. So
// "migrations/**" protects everything under migrations/, and "infra"
// everything under infra/.
func protects(g, p string) (bool, error) {
	pat := strings.Split(strings.Trim(g, "/"), "/")
	segs := strings.Split(p, "/")
	for n := len(segs); n > 0; n-- {
		ok, err := matchSegments(pat, segs[:n])
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// matchSegments matches path segments against glob segments.
func matchSegments(pat, segs []string) (bool, error) {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if ok, err := matchSegments(pat[1:], segs[i:]); err != nil || ok {
					return ok, err
				}
			}
			return false, nil
		}
		if len(segs) == 0 {
			return false, nil
		}
		ok, err := path.Match(pat[0], segs[0])
		if err != nil || !ok {
			return false, err
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0, nil
}
