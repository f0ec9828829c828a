package worktree

import (
	"context"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
)

// Commit is a commit cairn makes unattended in a working tree: what a step
// left uncommitted there, a run folder, or both. Hooks are not run: the
// commit is cairn's bookkeeping.
type Commit struct {
	// Subject is the message's first line; Trailers its last paragraph
	// (step.Trailers).
	Subject  string
	Trailers string
	// Work stages everything left in the tree outside every run folder.
	// cairn's own files (the issue file, copied skills) are excluded from
	// git (ExcludeCairnFiles), so they are not swept in.
	Work bool
	// Folder, when set, is a run folder (slash-separated, relative to the
	// tree) staged too. Without Work the commit holds it alone: whatever
	// else is staged in the tree (a user's) stays staged.
	Folder string
	// Exclude are paths Work leaves out: what a worktree's copy and setup
	// left, which is not the agents' work.
	Exclude []string
}

// Make makes c in the working tree at dir through g, when anything is
// staged for it, and reports whether it made one.
func (c Commit) Make(ctx context.Context, g *git.Git, dir string) (bool, error) {
	if c.Work {
		if err := addAll(ctx, g, dir, c.Exclude, ":(exclude)"+ir.RunsInRepo); err != nil {
			return false, err
		}
	}
	only := !c.Work && c.Folder != ""
	staged := []string{"diff", "--cached", "--quiet"}
	if c.Folder != "" {
		if _, err := g.Run(ctx, dir, "add", "--all", "--", c.Folder); err != nil {
			return false, err
		}
		if only {
			staged = append(staged, "--", c.Folder)
		}
	}
	// diff --cached --quiet exits 1 when something is staged.
	if _, err := g.Run(ctx, dir, staged...); err == nil {
		return false, nil
	} else if git.ExitCode(err) != 1 {
		return false, err
	}
	args := []string{"commit", "--quiet", "--no-verify", "-m", c.Subject, "-m", c.Trailers}
	if only {
		args = append(args, "--only", "--", c.Folder)
	}
	if _, err := g.Run(ctx, dir, args...); err != nil {
		return false, err
	}
	return true, nil
}
