package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
	"github.com/cairn-dev/cairn/worktree"
)

// committer makes the commits of a commit-mode run (docs/design.md §7.6) in the working
// tree its run folder lives in: `Start process: X` once the first step does
// something other than skip, what an agent step left uncommitted, `[cairn]
// Complete step: Y` after each step that did not skip, and `Complete
// process: X` at the end. Every commit carries the Cairn-Run trailer, a
// step's the Cairn-Step trailer too, a stubbed run's Cairn-Stubbed: true
// (step.Trailers). Commits are made one at a time.
type committer struct {
	git *git.Git
	// tree is the root of the working tree the run folder is in; folder is
	// the run folder relative to it, in git's slash form.
	tree    string
	folder  string
	run     string
	process string
	stubbed bool
	// exclude, when set, names the paths of the working tree at a folder
	// that its worktree's copy and setup left: no commit of work takes
	// them.
	exclude func(dir string) []string

	mu sync.Mutex
	// started is set once `Start process` is committed.
	started bool
	// failed is the first commit of a step's work or record that failed:
	// what the run committed lacks it, so the run must not end well.
	failed error
}

// Err is the first commit of a step's work or record that failed, nil when
// none has.
func (c *committer) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

// fail keeps err as the first failed commit, and returns it. The caller
// holds c.mu.
func (c *committer) fail(err error) error {
	if c.failed == nil {
		c.failed = err
	}
	return err
}

// IdentityError is why a repository cannot take commit mode's commits: git
// has no identity to commit as (docs/design.md §7.6). It is returned before the first step.
type IdentityError struct {
	Repo string
	Err  error
}

func (e *IdentityError) Error() string {
	return step.NoIdentity(e.Repo, e.Err.Error())
}

// CheckIdentity fails with an *IdentityError when git in repo has no
// author or committer identity.
func CheckIdentity(ctx context.Context, repo *git.Repo) error {
	for _, v := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		if _, err := repo.Run(ctx, "var", v); err != nil {
			return &IdentityError{Repo: repo.Root, Err: err}
		}
	}
	return nil
}

// newCommitter is the committer of the run folder dir, which lies in the
// working tree at tree of repo; stubbed is whether the run is.
func newCommitter(ctx context.Context, repo *git.Repo, dir, process string, stubbed bool) (*committer, error) {
	tree := repo.Root
	rel, err := filepath.Rel(tree, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("the run folder %s is not inside %s", dir, tree)
	}
	if err := worktree.ExcludeCairnFiles(ctx, repo.Git, tree); err != nil {
		return nil, err
	}
	return &committer{git: repo.Git, tree: tree, folder: filepath.ToSlash(rel), run: filepath.Base(dir), process: process, stubbed: stubbed}, nil
}

// trailers is the trailer paragraph of a commit of step (none: the run's).
func (c *committer) trailers(name string) string {
	return step.Trailers(c.run, name, c.stubbed)
}

// start commits `Start process: X` with the run folder as it stands, once:
// the first time a step does something other than skip.
func (c *committer) start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.startLocked(ctx)
}

func (c *committer) startLocked(ctx context.Context) error {
	if c.started {
		return nil
	}
	if err := c.commit(ctx, c.tree, step.StartSubject(c.process), "", false, true); err != nil {
		return fmt.Errorf("commit the start of the run: %w", err)
	}
	c.started = true
	return nil
}

// saveWork commits what a step left uncommitted in the working tree at dir
// (outside every run folder) as `[cairn] Save work of step: Y`, and returns
// the commit the step's work ends at: HEAD after it. dir is the committing
// tree or another worktree the step committed in.
func (c *committer) saveWork(ctx context.Context, dir, name string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.commit(ctx, dir, step.SaveWorkSubject(name), name, true, false); err != nil {
		return "", c.fail(fmt.Errorf("commit the work of step %q: %w", name, err))
	}
	return c.git.Head(context.WithoutCancel(ctx), dir), nil
}

// completeStep commits the run folder after a step ended: with the step's
// own work too when withWork is set (a step with no agent session commits
// once, docs/design.md §7.6). outcome words a step that did not succeed into the subject.
func (c *committer) completeStep(ctx context.Context, name string, outcome record.Outcome, withWork bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.startLocked(ctx); err != nil {
		return err
	}
	subject := step.CompleteStepSubject(name, string(outcome))
	if err := c.commit(ctx, c.tree, subject, name, withWork, true); err != nil {
		return c.fail(fmt.Errorf("commit the end of step %q: %w", name, err))
	}
	return nil
}

// finish commits `Complete process: X` with the run's final record, when
// the run was started in git; a status other than succeeded is in the
// subject. It reports whether the run committed anything.
func (c *committer) finish(ctx context.Context, status record.Status) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		return false, nil
	}
	subject := step.CompleteProcessSubject(c.process, string(status))
	if err := c.commit(ctx, c.tree, subject, "", false, true); err != nil {
		return true, fmt.Errorf("commit the end of the run: %w", err)
	}
	return true, nil
}

// commit commits, in the working tree at dir, what is staged of the work
// (everything outside the run folders) when work is set, and of the run
// folder when folder is set, if anything is (worktree.Commit). It runs to
// its end when ctx was interrupted: the run's record is committed however
// the run ends.
func (c *committer) commit(ctx context.Context, dir, subject, step string, work, folder bool) error {
	commit := worktree.Commit{Subject: subject, Trailers: c.trailers(step), Work: work}
	if work && c.exclude != nil {
		commit.Exclude = c.exclude(dir)
	}
	if folder {
		commit.Folder = c.folder
	}
	_, err := commit.Make(context.WithoutCancel(ctx), c.git, dir)
	return err
}

// removeRunFolder removes the folder of a run that committed nothing (every
// step skipped, docs/design.md §7.6), then .cairn/runs and .cairn when that left them
// empty.
func removeRunFolder(tree, dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the run folder of a run that did nothing: %w", err)
	}
	for d := filepath.Dir(dir); d != tree && strings.HasPrefix(d, tree); d = filepath.Dir(d) {
		if err := os.Remove(d); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				break
			}
		}
	}
	return nil
}
