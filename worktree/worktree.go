// Package worktree keeps the git worktrees of a run: it creates them
// (throwaways, checkouts and issue branches), saves their changes as patches
// and applies them again, reads a step's diff, puts a working tree back as
// it was, and prunes what runs left.
package worktree

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
)

// Worktree is a worktree a run's steps work in (docs/design.md §7.4). Path is absolute.
// Base is the commit it started from: the resolved base branch of a
// throwaway or an issue branch, HEAD at the start for a checkout ("" in a
// repository with no commits). Branch is an issue-branch worktree's branch.
type Worktree struct {
	Name   string
	Kind   string
	Path   string
	Base   string
	Branch string
	// Excluded are the paths that copy and setup left (SetExcluded):
	// not the agents' work, so no patch holds them.
	Excluded []string
}

// Worktrees are the worktrees of one run, made while it starts (Start) and
// closed after its last step.
type Worktrees struct {
	repoRoot string
	// commonDir is the repository's git common dir, absolute.
	commonDir string
	// git runs git: the repository's, as Open was given it.
	git *git.Git
	// runDir is $CAIRN_HOME/worktrees/RUN, the parent of the throwaways.
	runDir string
	lock   string
	// list is every worktree of the plan, made or to be made, in the
	// order they are made.
	list []Worktree
	// ready holds, by name, a channel closed once the worktree is made or
	// could not be; stop ends the making, and done is closed once it has
	// ended, every worktree made or failed.
	ready map[string]chan struct{}
	stop  context.CancelFunc
	done  chan struct{}

	mu sync.Mutex
	// made holds the worktrees made and not removed since a failed
	// making; failed the error of each that could not be made, and
	// firstErr the first of those.
	made     map[string]bool
	failed   map[string]error
	firstErr error
	// removed holds the worktrees already gone, so a second Close only
	// retries what the first could not do.
	removed map[string]bool
	// releasing holds the throwaways Release is saving and removing;
	// releases are those under way, and releaseSlots bounds them.
	releasing map[string]bool
	// unpruned is set once Release has removed a throwaway whose record
	// git still holds.
	unpruned     bool
	releases     sync.WaitGroup
	releaseSlots chan struct{}
	// reopened holds the throwaways Reopen applied their saved changes to
	// and no step has run in since (Worked).
	reopened map[string]bool
	// succeeded is set by MarkSucceeded; kept lists the issue-branch
	// worktrees Close left in place (issue.go).
	succeeded bool
	kept      []KeptBranch
	// left lists what removeRunDir found in the run's folder of worktrees
	// that cairn did not make, and left there.
	left []string
	// running reports whether a run, by name, may still be running: the
	// branch it has checked out is never taken from it.
	running func(run string) bool
}

// dirtyNamed is how many uncommitted files a refused checkout names.
const dirtyNamed = 5

// Open is Start, then Wait: it returns once every worktree of plan is made.
// On an error, whatever was made is removed before returning.
func Open(ctx context.Context, repo *git.Repo, home, run string, plan []ir.PlanWorktree, running func(run string) bool) (*Worktrees, error) {
	w, err := Start(ctx, repo, home, run, plan, running)
	if err != nil {
		return nil, err
	}
	if err := w.Wait(ctx); err != nil {
		w.abort(ctx)
		return nil, err
	}
	return w, nil
}

// Start begins making the worktrees of the run named run in repo
// (docs/design.md §7.4), in plan order, and returns as soon as what can be
// refused without making anything has passed: names, kinds, branch names,
// bases, a clean checkout. The worktrees are made while the run's first
// steps run: Ready waits for one, Wait for all; each is made by make and
// ends in finish.
//
// Each base branch is resolved once, locally (nothing is fetched): a local
// branch of that name, else origin's, else any revision git understands;
// "" means HEAD. A throwaway is added detached at its base under
// home/worktrees/RUN/NAME; git worktree add and remove are serialised per
// repository across processes by a lock in home/locks, which is not held
// while a throwaway's files are checked out, so those of several are
// written side by side. A checkout is the repository's own working tree,
// refused when it has uncommitted changes. An issue-branch worktree is
// added like a throwaway, on the branch its plan entry names (the run sets
// it from the issue): continuing that branch, local or origin's, else
// starting it at the base. A branch a previous run left checked out is
// taken over only when running says that run is over (a nil running takes
// every run for running). Once one worktree cannot be made, no other is
// begun. ctx ends the git processes the making runs; a worktree half made
// when it ends is removed.
func Start(ctx context.Context, repo *git.Repo, home, run string, plan []ir.PlanWorktree, running func(run string) bool) (*Worktrees, error) {
	repoRoot, g := repo.Root, repo.Git
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("create worktrees: %w", err)
	}
	if !validRunName(run) {
		return nil, fmt.Errorf("create worktrees: invalid run name %q", run)
	}
	seen := map[string]bool{}
	var throwaways, checkouts, issueBranches int
	for _, p := range plan {
		if !ir.ValidName(p.Name) {
			return nil, fmt.Errorf("create worktree %q: worktree names match [a-z0-9][a-z0-9-]*", p.Name)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("create worktree %q: the plan names it twice", p.Name)
		}
		seen[p.Name] = true
		switch p.Kind {
		case ir.Throwaway:
			throwaways++
		case ir.Checkout:
			checkouts++
		case ir.IssueBranch:
			if err := checkBranchName(ctx, g, repoRoot, p.Branch); err != nil {
				return nil, fmt.Errorf("create worktree %q: %w", p.Name, err)
			}
			issueBranches++
		default:
			return nil, fmt.Errorf("create worktree %q: unknown kind %q; want %s", p.Name, p.Kind, ir.OneOf([]string{ir.Throwaway, ir.Checkout, ir.IssueBranch}))
		}
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		return nil, fmt.Errorf("create worktrees: %w", err)
	}
	home, err = filepath.Abs(home)
	if err != nil {
		return nil, fmt.Errorf("create worktrees: %w", err)
	}
	commonDir := repo.CommonDir
	if !filepath.IsAbs(commonDir) {
		commonDir = filepath.Join(root, commonDir)
	}
	w := &Worktrees{
		repoRoot:     root,
		commonDir:    commonDir,
		runDir:       filepath.Join(home, "worktrees", run),
		lock:         worktreeLockPath(home, repo.CommonDir),
		ready:        map[string]chan struct{}{},
		done:         make(chan struct{}),
		stop:         func() {},
		made:         map[string]bool{},
		failed:       map[string]error{},
		removed:      map[string]bool{},
		releasing:    map[string]bool{},
		releaseSlots: make(chan struct{}, makers()),
		reopened:     map[string]bool{},
		git:          g,
		running:      running,
	}
	if len(plan) == 0 {
		close(w.done)
		return w, nil
	}
	bases, err := resolveBases(ctx, g, root, plan)
	if err != nil {
		return nil, err
	}
	if checkouts > 0 {
		if err := checkClean(ctx, g, root, plan); err != nil {
			return nil, err
		}
	}
	if throwaways+issueBranches > 0 {
		if err := os.MkdirAll(w.runDir, 0o700); err != nil {
			return nil, fmt.Errorf("create worktrees: %w", err)
		}
		// git records the path it is given; a canonical one keeps `git
		// worktree list` and the steps' CAIRN_WORKTREE in agreement.
		runDir, err := filepath.EvalSymlinks(w.runDir)
		if err != nil {
			_ = w.removeRunDir()
			return nil, fmt.Errorf("create worktrees: %w", err)
		}
		w.runDir = runDir
	}
	w.list = make([]Worktree, 0, len(plan))
	for _, p := range plan {
		wt := Worktree{Name: p.Name, Kind: p.Kind, Path: filepath.Join(w.runDir, p.Name), Base: bases[p.Base], Branch: p.Branch}
		if p.Kind == ir.Checkout {
			wt.Path, wt.Base, wt.Branch = w.repoRoot, bases[""], ""
		}
		if p.Kind != ir.IssueBranch {
			wt.Branch = ""
		}
		w.list = append(w.list, wt)
		w.ready[p.Name] = make(chan struct{})
	}
	ctx, w.stop = context.WithCancel(ctx)
	go w.create(ctx)
	return w, nil
}

// validRunName accepts run-folder names (PROCESS_YYYY-MM-DDTHHMMSSZ[-N]):
// one path element of letters, digits, '-', '_' and '.', not starting with
// a dot.
func validRunName(run string) bool {
	if run == "" || run[0] == '.' {
		return false
	}
	for i := 0; i < len(run); i++ {
		c := run[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// resolveBases resolves the base of every worktree to a commit, with one git
// process: a base branch B is refs/heads/B, else refs/remotes/origin/B (as
// git.Repo.Base chose it), else whatever git makes of B; "" and "HEAD"
// are HEAD. A checkout's base is HEAD, and may be missing in a repository
// with no commits.
func resolveBases(ctx context.Context, g *git.Git, root string, plan []ir.PlanWorktree) (map[string]string, error) {
	candidates := func(base string) []string {
		if base == "" || base == "HEAD" {
			return []string{"HEAD"}
		}
		return []string{"refs/heads/" + base, "refs/remotes/origin/" + base, base}
	}
	// HEAD is always asked: when it names no commit either, the repository
	// has none, and the error says so.
	queries := []string{"HEAD"}
	asked := map[string]bool{"HEAD": true}
	for _, p := range plan {
		base := p.Base
		if p.Kind == ir.Checkout {
			base = ""
		}
		if strings.ContainsAny(base, "\n\x00") {
			return nil, fmt.Errorf("resolve the base of worktree %q: invalid branch name %q", p.Name, base)
		}
		for _, c := range candidates(base) {
			if !asked[c] {
				asked[c] = true
				queries = append(queries, c)
			}
		}
	}
	var in strings.Builder
	for _, q := range queries {
		in.WriteString(q + "^{commit}\n")
	}
	out, err := g.RunInput(ctx, root, in.String(), "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return nil, fmt.Errorf("resolve the worktrees' base branches: %w", err)
	}
	// One line per query, in order: "OID commit", or "QUERY missing" (or
	// "ambiguous") when it names no commit.
	found := map[string]string{}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i, q := range queries {
		if i < len(lines) {
			if f := strings.Fields(lines[i]); len(f) == 2 && f[1] == "commit" {
				found[q] = f[0]
			}
		}
	}
	bases := map[string]string{}
	for _, p := range plan {
		base := p.Base
		if p.Kind == ir.Checkout {
			base = ""
		}
		if _, done := bases[base]; done {
			continue
		}
		for _, c := range candidates(base) {
			if sha := found[c]; sha != "" {
				bases[base] = sha
				break
			}
		}
		if bases[base] != "" || p.Kind == ir.Checkout {
			continue
		}
		if found["HEAD"] == "" {
			return nil, fmt.Errorf("resolve the base of worktree %q: the repository at %s has no commits yet; cairn starts worktrees from a commit, so commit something first", p.Name, root)
		}
		return nil, fmt.Errorf("resolve the base of worktree %q: branch %q is neither a local branch nor %q (cairn never fetches)", p.Name, base, "origin/"+base)
	}
	return bases, nil
}

// checkClean refuses a working tree with uncommitted changes, tracked or
// not, for the checkout worktree in plan. cairn's own files are excluded
// first, so a previous run's copied skills never count.
func checkClean(ctx context.Context, g *git.Git, root string, plan []ir.PlanWorktree) error {
	name := ""
	for _, p := range plan {
		if p.Kind == ir.Checkout {
			name = p.Name
			break
		}
	}
	if err := ExcludeCairnFiles(ctx, g, root); err != nil {
		return fmt.Errorf("checkout worktree %q: %w", name, err)
	}
	// Run folders of commit-mode runs are cairn's: a resumed run's own,
	// or what a crashed one left, is never the user's work.
	out, err := g.Run(ctx, root, "status", "--porcelain", "-z", "--untracked-files=normal", "--", ".", ":(exclude)"+ir.RunsInRepo)
	if err != nil {
		return fmt.Errorf("checkout worktree %q: %w", name, err)
	}
	var files []string
	entries := strings.Split(out, "\x00")
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		if len(e) < 4 {
			continue
		}
		files = append(files, e[3:])
		if e[0] == 'R' || e[0] == 'C' {
			// A rename or copy is followed by its source.
			i++
		}
	}
	if len(files) == 0 {
		return nil
	}
	named := make([]string, 0, dirtyNamed)
	for _, f := range files[:min(len(files), dirtyNamed)] {
		named = append(named, fmt.Sprintf("%q", f))
	}
	list := strings.Join(named, ", ")
	if more := len(files) - len(named); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return fmt.Errorf("checkout worktree %q: the working tree at %s has uncommitted changes (%s); commit or stash them first", name, root, list)
}

// makers bounds how many throwaways have their files checked out at once,
// and how many are deleted at once.
func makers() int { return max(4, goruntime.GOMAXPROCS(0)) }

// create makes the run's worktrees in list order. The part of each that
// git must do alone in the repository (add) is done one after another,
// under the worktree lock; the rest (make), a few worktrees at a time
// beside it, in the same order. Once one has failed, or ctx is done, the
// others are not begun. It closes w.done at its end.
func (w *Worktrees) create(ctx context.Context) {
	defer close(w.done)
	defer w.stop()
	type added struct {
		wt  Worktree
		err error
	}
	queue := make(chan added, len(w.list))
	var wg sync.WaitGroup
	for range min(makers(), len(w.list)) {
		wg.Go(func() {
			for a := range queue {
				if a.err == nil {
					if a.err = w.make(ctx, a.wt); a.err != nil && a.wt.Kind == ir.Throwaway {
						// Nothing half made is left, even when ctx ended it.
						w.unmake(context.WithoutCancel(ctx), a.wt)
					}
				}
				w.finish(ctx, a.wt, a.err)
			}
		})
	}
	failed := ""
	for _, wt := range w.list {
		if err := ctx.Err(); err != nil {
			w.finish(ctx, wt, err)
			continue
		}
		if failed == "" && w.Err() != nil {
			failed = w.failedName()
		}
		if failed != "" {
			w.skip(wt, fmt.Errorf("not made once worktree %q could not be", failed))
			continue
		}
		made, err := w.add(ctx, wt)
		if err != nil {
			made, failed = wt, wt.Name
		}
		queue <- added{made, err}
	}
	close(queue)
	wg.Wait()
}

// add does what making wt needs the repository's worktree lock for: adding
// a throwaway without its files (make checks them out), or an issue
// branch's worktree. It returns wt as made (an issue branch's may be
// where a resumed run left it).
func (w *Worktrees) add(ctx context.Context, wt Worktree) (Worktree, error) {
	if wt.Kind == ir.Checkout {
		return wt, nil
	}
	unlock, err := lockWorktrees(w.lock)
	if err != nil {
		return wt, err
	}
	defer unlock()
	if wt.Kind == ir.IssueBranch {
		return w.addIssueBranch(ctx, wt)
	}
	// git adds into an empty folder; making it first gives it the
	// owner-only mode of everything under $CAIRN_HOME.
	if err := os.Mkdir(wt.Path, 0o700); err != nil {
		return wt, err
	}
	if _, err := w.git.Run(ctx, w.repoRoot, "worktree", "add", "--quiet", "--no-checkout", "--detach", wt.Path, wt.Base); err != nil {
		w.unadd(context.WithoutCancel(ctx), wt.Path)
		return wt, err
	}
	return wt, nil
}

// unadd removes the throwaway at path, made or half made (an add that was
// stopped), with git's record of it. The caller holds the worktree lock.
func (w *Worktrees) unadd(ctx context.Context, path string) {
	if _, err := w.git.Run(ctx, w.repoRoot, "worktree", "remove", "--force", "--force", path); err == nil {
		return
	}
	// An add stopped early leaves git's record locked, or without the
	// folder's .git file: neither git worktree remove nor prune takes it.
	dotGit := filepath.Join(path, ".git")
	entries, _ := os.ReadDir(filepath.Join(w.commonDir, "worktrees"))
	for _, e := range entries {
		admin := filepath.Join(w.commonDir, "worktrees", e.Name())
		if b, err := os.ReadFile(filepath.Join(admin, "gitdir")); err == nil && strings.TrimSpace(string(b)) == dotGit {
			_ = os.RemoveAll(admin)
		}
	}
	_ = os.RemoveAll(path)
}

// unmake removes the throwaway wt, added, whose making failed.
func (w *Worktrees) unmake(ctx context.Context, wt Worktree) {
	unlock, err := lockWorktrees(w.lock)
	if err != nil {
		return
	}
	defer unlock()
	w.unadd(ctx, wt.Path)
}

// make makes the worktree wt, added, ready for its steps: a throwaway's
// files are checked out, as git worktree add would have done, and the
// post-checkout hook is run, as it would have been too. A throwaway's
// index is written last: until it is there, the worktree was never whole
// (Salvage).
func (w *Worktrees) make(ctx context.Context, wt Worktree) error {
	if wt.Kind != ir.Throwaway {
		return nil
	}
	if _, err := w.git.Run(ctx, wt.Path, "reset", "--hard", "--quiet", "--no-recurse-submodules"); err != nil {
		return err
	}
	_, err := w.git.Run(ctx, wt.Path, "hook", "run", "--ignore-missing", "post-checkout", "--", strings.Repeat("0", len(wt.Base)), wt.Base, "1")
	return err
}

// finish ends the making of wt: made when err is nil, else its error is
// kept for Ready, Wait and Err.
func (w *Worktrees) finish(ctx context.Context, wt Worktree, err error) {
	defer close(w.ready[wt.Name])
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		w.made[wt.Name] = true
		return
	}
	w.failed[wt.Name] = fmt.Errorf("create worktree %q: %w", wt.Name, err)
	if w.firstErr == nil && ctx.Err() == nil {
		w.firstErr = w.failed[wt.Name]
	}
}

// skip ends the making of wt, not begun, with err, which is not Err: the
// failure that stopped it is.
func (w *Worktrees) skip(wt Worktree, err error) {
	defer close(w.ready[wt.Name])
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failed[wt.Name] = fmt.Errorf("create worktree %q: %w", wt.Name, err)
}

// failedName is the name of the worktree whose error Err is.
func (w *Worktrees) failedName() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, err := range w.failed {
		if err == w.firstErr {
			return name
		}
	}
	return ""
}

// Ready waits until the worktree name is made and returns it, or the error
// that kept it from being made; or ctx's error, when it ends first.
func (w *Worktrees) Ready(ctx context.Context, name string) (Worktree, error) {
	if w == nil {
		return Worktree{}, fmt.Errorf("worktree %q was not created", name)
	}
	w.mu.Lock()
	ready := w.ready[name]
	w.mu.Unlock()
	if ready == nil {
		return Worktree{}, fmt.Errorf("worktree %q was not created", name)
	}
	select {
	case <-ready:
	case <-ctx.Done():
		return Worktree{}, ctx.Err()
	}
	w.mu.Lock()
	err := w.failed[name]
	w.mu.Unlock()
	if err != nil {
		return Worktree{}, err
	}
	wt, _ := w.Get(name)
	return wt, nil
}

// Add makes a throwaway named name, now, at the base of the worktree like
// (docs/design.md §7.4): the worktree of one item of a step with for_each.
// It waits until the plan's worktrees are made, so that their making and
// Add never race. Release and Close save and remove it as they do the
// plan's throwaways. name is no name a plan may give (it holds a dot), so
// it never takes one of theirs.
func (w *Worktrees) Add(ctx context.Context, name, like string) (Worktree, error) {
	if err := w.Wait(ctx); err != nil {
		return Worktree{}, err
	}
	w.mu.Lock()
	var base Worktree
	found := false
	for _, l := range w.list {
		if l.Name == name {
			w.mu.Unlock()
			return Worktree{}, fmt.Errorf("create worktree %q: the run has one already", name)
		}
		if l.Name == like {
			base, found = l, true
		}
	}
	if !found {
		w.mu.Unlock()
		return Worktree{}, fmt.Errorf("create worktree %q: the run has no worktree %q", name, like)
	}
	if err := os.MkdirAll(w.runDir, 0o700); err != nil {
		w.mu.Unlock()
		return Worktree{}, fmt.Errorf("create worktree %q: %w", name, err)
	}
	if dir, err := filepath.EvalSymlinks(w.runDir); err == nil {
		// As Start does: the path git records is canonical.
		w.runDir = dir
	}
	wt := Worktree{Name: name, Kind: ir.Throwaway, Path: filepath.Join(w.runDir, name), Base: base.Base}
	ready := make(chan struct{})
	w.list = append(w.list, wt)
	w.ready[name] = ready
	w.mu.Unlock()
	wt, err := w.add(ctx, wt)
	if err == nil {
		if err = w.make(ctx, wt); err != nil {
			w.unmake(context.WithoutCancel(ctx), wt)
		}
	}
	defer close(ready)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("create worktree %q: %w", name, err)
		w.failed[name] = err
		return Worktree{}, err
	}
	w.made[name] = true
	return wt, nil
}

// Wait waits until every worktree is made, or the making has ended with
// one that could not be, and returns that one's error; or ctx's, when it
// ends first.
func (w *Worktrees) Wait(ctx context.Context) error {
	if w == nil {
		return nil
	}
	select {
	case <-w.done:
	case <-ctx.Done():
		return fmt.Errorf("create worktrees: %w", ctx.Err())
	}
	if err := w.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("create worktrees: %w", err)
	}
	return nil
}

// Err is the error of the first worktree that could not be made, nil when
// none failed (a worktree ctx's end kept from being made has not failed).
func (w *Worktrees) Err() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.firstErr
}

// stopMaking ends the making of the worktrees not made yet, and waits for
// it to end.
func (w *Worktrees) stopMaking() {
	w.stop()
	<-w.done
}

// abort removes the worktrees of a failed open: nothing in them is worth a
// patch yet.
func (w *Worktrees) abort(ctx context.Context) {
	w.stopMaking()
	ctx = context.WithoutCancel(ctx)
	unlock, err := lockWorktrees(w.lock)
	if err == nil {
		defer unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.removeAdded(ctx)
}

// removeAdded removes the throwaways made, and the issue-branch worktrees
// git finds clean (their branches stay). The caller holds w.mu and the
// worktree lock.
func (w *Worktrees) removeAdded(ctx context.Context) {
	for _, wt := range w.list {
		if !w.made[wt.Name] {
			continue
		}
		switch wt.Kind {
		case ir.Throwaway:
			_ = removeWorktree(ctx, w.git, w.repoRoot, wt.Path)
		case ir.IssueBranch:
			_, _ = w.git.Run(ctx, w.repoRoot, "worktree", "remove", wt.Path)
		}
		delete(w.made, wt.Name)
	}
	_, _ = w.git.Run(ctx, w.repoRoot, "worktree", "prune")
	_ = w.removeRunDir()
	w.list = nil
}

// removeRunDir removes home/worktrees/RUN once the run's worktrees in it
// are gone but for those Close kept. What else is there, cairn did not make
// (a step wrote it beside its worktree, in ../): it is not the run's to
// delete, so it stays, with the folder, and Left names it. The caller
// holds w.mu, or is the only one to use w.
func (w *Worktrees) removeRunDir() error {
	err := os.Remove(w.runDir)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	entries, rerr := os.ReadDir(w.runDir)
	if rerr != nil {
		return fmt.Errorf("remove %s: %w", w.runDir, err)
	}
	own := map[string]bool{}
	for _, wt := range w.list {
		own[wt.Name] = wt.Kind != ir.Checkout
	}
	var left []string
	for _, e := range entries {
		switch {
		case !own[e.Name()]:
			left = append(left, filepath.Join(w.runDir, e.Name()))
		case !w.isKept(e.Name()):
			// A worktree of the run that should be gone by now.
			return fmt.Errorf("remove %s: %w", w.runDir, err)
		}
	}
	w.left = left
	return nil
}

// Left lists what Close left in home/worktrees/RUN because cairn did not
// make it, by path.
func (w *Worktrees) Left() []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.left...)
}

// Get returns the worktree named name, once it is made.
func (w *Worktrees) Get(name string) (Worktree, bool) {
	if w == nil {
		return Worktree{}, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.made[name] {
		return Worktree{}, false
	}
	for _, wt := range w.list {
		if wt.Name == name {
			return wt, true
		}
	}
	return Worktree{}, false
}

// All returns the run's worktrees in the order they are made, made or
// to be made: their paths and bases are known from the start.
func (w *Worktrees) All() []Worktree {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Worktree(nil), w.list...)
}

// Close ends the run's throwaway worktrees, whatever happened in the run:
// those not made yet never are (their making is stopped); each one made
// has its changes since its base saved in patchDir, the run folder's
// worktrees/ (savePatch: NAME.patch, and a patch per initialised
// submodule with changes; a reopened worktree no step ran in never saves
// less than it was reopened with), then it is removed, and
// home/worktrees/RUN with it, but for what cairn did not make there
// (removeRunDir, Left). Worktrees are saved and removed a few at a time,
// side by side. Every worktree is tried; the
// errors are joined. A worktree whose changes could not be saved is left in
// place, and the error names its path, so no work is lost. Checkout
// worktrees are left alone. Issue-branch worktrees are removed only after
// MarkSucceeded, with all their work committed and on the base or pushed;
// the others are kept, and Kept names their branches and paths. A second
// call retries only what the first could not do. ctx ends the git
// processes Close runs: a run that closes its worktrees after an interrupt
// passes one the interrupt did not end.
func (w *Worktrees) Close(ctx context.Context, patchDir string) error {
	if w == nil {
		return nil
	}
	w.stopMaking()
	w.releases.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	var open []Worktree
	for _, wt := range w.list {
		if wt.Kind == ir.Throwaway && w.made[wt.Name] && !w.removed[wt.Name] {
			open = append(open, wt)
		}
	}
	branches := w.openIssueBranches()
	if len(open) == 0 && len(branches) == 0 && !w.unpruned {
		return w.removeRunDir()
	}
	saveErrs := saveAll(ctx, w.git, open, patchDir, func(name string) bool { return !w.reopened[name] })
	// A throwaway's folder is deleted without git, side by side with the
	// others: git's record of it goes with the prune below, under the
	// lock, since git worktree remove cannot run beside an add.
	removeErrs := removeAll(open, saveErrs)
	var errs []error
	for i, wt := range open {
		switch {
		case saveErrs[i] != nil:
			errs = append(errs, fmt.Errorf("save the changes of worktree %q: %w; it is left at %s", wt.Name, saveErrs[i], wt.Path))
		case removeErrs[i] != nil:
			errs = append(errs, fmt.Errorf("remove worktree %q: %w", wt.Name, removeErrs[i]))
		default:
			w.removed[wt.Name] = true
		}
	}
	unlock, err := lockWorktrees(w.lock)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("remove worktrees: %w; they are left in %s", err, w.runDir))...)
	}
	w.closeIssueBranches(ctx, branches)
	if _, err := w.git.Run(ctx, w.repoRoot, "worktree", "prune"); err != nil {
		errs = append(errs, fmt.Errorf("remove worktrees: %w", err))
	} else {
		w.unpruned = false
	}
	unlock()
	if len(errs) == 0 {
		errs = append(errs, w.removeRunDir())
	}
	return errors.Join(errs...)
}

// Release saves the changes of the throwaway name, which no step will use
// again, and removes it, as Close would, but now and in the background,
// while the run's other steps go on: Close waits for it, and prunes git's
// record of it. When its changes cannot be saved, or it cannot be
// removed, it is left for Close, which tries again and says why. ctx ends
// the git processes the save runs. The channel it returns is closed once
// the release has ended (at once when there is none to make).
func (w *Worktrees) Release(ctx context.Context, name, patchDir string) <-chan struct{} {
	done := make(chan struct{})
	if w == nil {
		close(done)
		return done
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.made[name] || w.removed[name] || w.releasing[name] {
		close(done)
		return done
	}
	var wt Worktree
	for _, l := range w.list {
		if l.Name == name {
			wt = l
		}
	}
	if wt.Kind != ir.Throwaway {
		close(done)
		return done
	}
	w.releasing[name] = true
	ran := !w.reopened[name]
	w.releases.Go(func() {
		defer close(done)
		w.releaseSlots <- struct{}{}
		defer func() { <-w.releaseSlots }()
		err := savePatch(ctx, w.git, wt, patchDir, ran)
		if err == nil {
			err = os.RemoveAll(wt.Path)
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.releasing, name)
		if err == nil {
			w.removed[name], w.unpruned = true, true
		}
	})
	return done
}

// removeAll deletes the folders of the throwaways open whose changes were
// saved (saveErrs, by index, nil), a few at a time, and returns each one's
// error.
func removeAll(open []Worktree, saveErrs []error) []error {
	errs := make([]error, len(open))
	slots := make(chan struct{}, makers())
	var wg sync.WaitGroup
	for i, wt := range open {
		if saveErrs[i] != nil {
			continue
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			errs[i] = os.RemoveAll(wt.Path)
		})
	}
	wg.Wait()
	return errs
}

// removeWorktree removes the worktree at path. When git cannot (the folder
// was already deleted, or is no worktree any more), the folder is deleted
// and a later `git worktree prune` forgets it.
func removeWorktree(ctx context.Context, g *git.Git, root, path string) error {
	if _, err := g.Run(ctx, root, "worktree", "remove", "--force", path); err == nil {
		return nil
	}
	return os.RemoveAll(path)
}

// LocksDir is the folder of $CAIRN_HOME that holds cairn's locks: the
// worktree locks of each repository, and the Pass locks.
const LocksDir = "locks"

// worktreeLockPath is the lock that serialises git worktree add and remove
// in the repository whose git common dir is commonDir, across processes:
// git 2.39's parallel adds race.
func worktreeLockPath(home, commonDir string) string {
	sum := sha256.Sum256([]byte(commonDir))
	return filepath.Join(home, LocksDir, "worktrees-"+hex.EncodeToString(sum[:])[:16]+".lock")
}

// lockWorktrees takes the worktree lock at path (proc.Lock, a flock), waiting
// for another holder, and returns its release.
func lockWorktrees(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := proc.Lock(path, true)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { proc.Unlock(f) }, nil
}

// InstallSkill copies a home or built-in skill into a worktree for a
// session, as PATH/.cairn/skills/NAME/SKILL.md, and makes sure cairn's own
// files are excluded from git there, so the copy never makes the tree dirty
// nor gets committed (git runs through g). It returns the copy's absolute
// path. A symlink on the way is refused: the repository's content must not
// steer where cairn writes.
func InstallSkill(ctx context.Context, g *git.Git, wt Worktree, name string, body []byte) (string, error) {
	if !ir.ValidName(name) {
		return "", fmt.Errorf("install skill %q: skill names match [a-z0-9][a-z0-9-]*", name)
	}
	if err := ExcludeCairnFiles(ctx, g, wt.Path); err != nil {
		return "", fmt.Errorf("install skill %q in worktree %q: %w", name, wt.Name, err)
	}
	dir := wt.Path
	for _, elem := range []string{".cairn", "skills", name} {
		dir = filepath.Join(dir, elem)
		if err := mkdirNoLink(dir); err != nil {
			return "", fmt.Errorf("install skill %q in worktree %q: %w", name, wt.Name, err)
		}
	}
	f, err := os.CreateTemp(dir, ".SKILL.md-")
	if err != nil {
		return "", fmt.Errorf("install skill %q in worktree %q: %w", name, wt.Name, err)
	}
	_, err = f.Write(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	path := filepath.Join(dir, "SKILL.md")
	if err == nil {
		// A rename replaces a symlink at path rather than writing through it.
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("install skill %q in worktree %q: %w", name, wt.Name, err)
	}
	return path, nil
}

// mkdirNoLink makes sure dir is a real folder, creating it when missing and
// refusing a symlink or a file.
func mkdirNoLink(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		fi, err = os.Lstat(dir)
		if err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink; refusing to write through it", dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}

// excludeMu serialises this process's edits of exclude files: parallel
// sessions install skills into worktrees that share one.
var excludeMu sync.Mutex

// ExcludeCairnFiles makes sure cairn's own files (copied skills,
// .cairn-issue.md, run-folder locks) are excluded from git in the
// repository or worktree at dir, by appending what is missing to the file
// `git rev-parse --git-path info/exclude` names (shared by all worktrees of
// a repository), which g's git answers.
func ExcludeCairnFiles(ctx context.Context, g *git.Git, dir string) error {
	out, err := g.Run(ctx, dir, "rev-parse", "--path-format=absolute", "--git-path", "info/exclude")
	if err != nil {
		return fmt.Errorf("exclude cairn's files from git: %w", err)
	}
	path := strings.TrimRight(out, "\n")
	excludeMu.Lock()
	defer excludeMu.Unlock()
	have, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("exclude cairn's files from git: %w", err)
	}
	present := map[string]bool{}
	for _, line := range strings.Split(string(have), "\n") {
		present[strings.TrimSpace(line)] = true
	}
	var add strings.Builder
	for _, pattern := range ir.CairnFiles {
		if !present[pattern] {
			if add.Len() == 0 {
				if len(have) > 0 && have[len(have)-1] != '\n' {
					add.WriteByte('\n')
				}
				add.WriteString("# cairn's own files: copied skills, the issue, run locks\n")
			}
			add.WriteString(pattern + "\n")
		}
	}
	if add.Len() == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("exclude cairn's files from git: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("exclude cairn's files from git: %w", err)
	}
	_, err = f.WriteString(add.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("exclude cairn's files from git: %w", err)
	}
	return nil
}
