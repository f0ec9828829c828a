package runtime

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/worktree"
)

// GC deletes the expired runs of home and of repo's .cairn/runs (repo nil
// outside a repository), as record.GC does (docs/design.md §7.7): what a
// crashed run left running is ended, and a deleted run's worktrees are
// pruned, with git run through g. A dry run deletes and ends nothing.
func GC(ctx context.Context, g *git.Git, home string, repo *git.Repo, now time.Time, dryRun bool) (record.GCReport, error) {
	return record.GC(ctx, home, repo, now, record.GCOptions{
		DryRun: dryRun,
		EndCrashed: func(dir string) error {
			_, err := EndOrphans(dir)
			return err
		},
		PruneWorktrees: func(home, name, repo string) error {
			return worktree.Prune(ctx, g, home, name, repo)
		},
	})
}
