package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
	"github.com/cairn-dev/cairn/worktree"
)

// preparing is the readying of one worktree (docs/design.md §7.4), done by
// the first step that needs it; the others wait for it.
type preparing struct {
	once sync.Once
	// cause is why the worktree could not be readied ("" when it was);
	// tail, the last lines of its setup's output.
	cause string
	tail  []string
	// excluded are the paths copy and setup left, which no commit takes.
	excluded []string
}

// prepare readies wt for its first step, once per run: the files its copy
// selects copied in from the user's checkout, then its setup run there,
// its output kept as worktrees/NAME.setup.log. What they leave that was not
// so before is listed as worktrees/NAME.prepared (with what a resumed
// run's first start listed) and left out of the worktree's patch and of
// every commit made in it. A worktree that could not be readied fails
// every step in it, with the cause and the last lines of its setup.
func (r *run) prepare(ctx context.Context, wt worktree.Worktree) *preparing {
	r.mu.Lock()
	if r.preparings == nil {
		r.preparings = map[string]*preparing{}
	}
	p := r.preparings[wt.Name]
	if p == nil {
		p = &preparing{}
		r.preparings[wt.Name] = p
	}
	r.mu.Unlock()
	p.once.Do(func() { r.ready(ctx, wt, p) })
	return p
}

// ready does prepare's work for p.
func (r *run) ready(ctx context.Context, wt worktree.Worktree, p *preparing) {
	var pw *ir.PlanWorktree
	name := wt.Name
	r.mu.Lock()
	if like, ok := r.itemWorktrees[name]; ok {
		// An item's throwaway is readied as the worktree it was made like.
		name = like
	}
	r.mu.Unlock()
	for i := range r.o.Plan.Worktrees {
		if r.o.Plan.Worktrees[i].Name == name {
			pw = &r.o.Plan.Worktrees[i]
		}
	}
	if pw == nil || len(pw.Copy) == 0 && pw.Setup == "" {
		return
	}
	g := r.o.Repo.Git
	list := filepath.Join(r.folder.Dir, record.WorktreesDir, wt.Name+".prepared")
	before, err := worktree.Changed(ctx, g, wt.Path)
	if err != nil {
		p.cause = fmt.Sprintf("worktree setup failed: git status: %v", err)
		return
	}
	defer func() {
		after, err := worktree.Changed(context.WithoutCancel(ctx), g, wt.Path)
		if err != nil {
			r.warn(fmt.Errorf("list what worktree %q was readied with: %w; patches and commits may carry it", wt.Name, err))
			return
		}
		paths := worktree.Prepared(before, after)
		if saved, err := os.ReadFile(list); err == nil {
			// A resumed run's worktree: what its first start readied
			// holds too, though it is there again before the copy.
			for s := range strings.SplitSeq(string(saved), "\x00") {
				if s != "" {
					paths = append(paths, s)
				}
			}
		}
		paths = unique(paths)
		r.mu.Lock()
		p.excluded = paths
		r.mu.Unlock()
		r.wts.SetExcluded(wt.Name, paths)
		if len(paths) > 0 {
			r.warn(os.WriteFile(list, []byte(strings.Join(paths, "\x00")+"\x00"), 0o600))
		}
	}()
	copied, err := worktree.Copy(ctx, g, r.o.Repo.Root, wt, pw.Copy)
	for _, w := range copied.Warnings {
		r.warn(errors.New(w))
	}
	if err != nil {
		p.cause = "worktree setup failed: " + err.Error()
		return
	}
	if pw.Setup == "" {
		return
	}
	p.cause, p.tail = r.setup(ctx, wt, pw)
}

// setup runs pw's setup in wt, and returns why it failed, with the last
// lines of its output ("" when it succeeded).
func (r *run) setup(ctx context.Context, wt worktree.Worktree, pw *ir.PlanWorktree) (string, []string) {
	log := filepath.Join(r.folder.Dir, record.WorktreesDir, wt.Name+".setup.log")
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Sprintf("worktree setup failed: %v", err), nil
	}
	defer f.Close()
	if r.resumed != nil {
		if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
			fmt.Fprintln(f, "--- setup again on resume")
		}
	}
	timeout, err := ir.ParseDuration(pw.SetupTimeout)
	if err != nil || timeout <= 0 {
		timeout, _ = ir.ParseDuration(ir.DefaultSetupTimeout)
	}
	sc := &step.Context{
		RunDir:       r.folder.Dir,
		Worktree:     wt.Path,
		WorktreeKind: wt.Kind,
		Branch:       wt.Branch,
		Directive:    r.o.Directive,
		Timeout:      timeout,
		Groups:       r.groups,
		Git:          r.o.Repo.Git,
	}
	if r.issue != nil {
		sc.IssueURL = r.issue.URL
	}
	sc.Env = step.Env(r.base, sc, filepath.Join(r.folder.Dir, record.ResultsDir), nil)
	r.prog.Note("setup worktree " + wt.Name)
	t0 := time.Now()
	run := step.RunSetup(ctx, sc, pw.Setup, f)
	if run.OK() {
		r.prog.Note(fmt.Sprintf("setup worktree %s: done in %s", wt.Name, time.Since(t0).Round(100*time.Millisecond)))
		return "", nil
	}
	cause := run.Cause
	if run.Proc.TimedOut {
		cause = "timed out after " + pw.SetupTimeout
	}
	r.prog.Note(fmt.Sprintf("setup worktree %s: failed: %s", wt.Name, cause))
	var tail []string
	if len(run.Output) > 0 {
		tail = strings.Split(string(run.Output), "\n")
	}
	return "worktree setup failed: " + cause, tail
}

// unique is paths sorted, each once.
func unique(paths []string) []string {
	slices.Sort(paths)
	return slices.Compact(paths)
}

// excluded are the paths of worktree name that copy and setup left (none
// before its first step, or without either).
func (r *run) excluded(name string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.preparings[name]; p != nil {
		return p.excluded
	}
	return nil
}

// excludedAt is excluded for the worktree at dir, for the committer.
func (r *run) excludedAt(dir string) []string {
	if r.wts == nil {
		return nil
	}
	for _, wt := range r.wts.All() {
		if wt.Path == dir {
			return r.excluded(wt.Name)
		}
	}
	return nil
}
