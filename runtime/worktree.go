package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// Worktree is a worktree a run's steps work in (§7.4). Path is absolute.
// Base is the commit it started from: the resolved base branch of a
// throwaway or an issue branch, HEAD at the start for a checkout ("" in a
// repository with no commits). Branch is an issue-branch worktree's branch.
type Worktree struct {
	Name   string
	Kind   string
	Path   string
	Base   string
	Branch string
}

// Worktrees are the worktrees of one run, opened before its first step and
// closed after its last.
type Worktrees struct {
	repoRoot string
	// env is the environment git runs in: cairn's own, read once when the
	// worktrees are opened.
	env []string
	// runDir is $CAIRN_HOME/worktrees/RUN, the parent of the throwaways.
	runDir string
	lock   string
	list   []Worktree

	mu sync.Mutex
	// removed holds the worktrees already gone, so a second Close only
	// retries what the first could not do.
	removed map[string]bool
	// succeeded is set by MarkSucceeded; kept lists the issue-branch
	// worktrees Close left in place (worktree_issue.go).
	succeeded bool
	kept      []KeptBranch
}

// dirtyNamed is how many uncommitted files a refused checkout names.
const dirtyNamed = 5

// OpenWorktrees creates the run's worktrees, serially, before the first step
// (§7.4). Each base branch is resolved once, locally (nothing is fetched):
// a local branch of that name, else origin's, else any revision git
// understands; "" means HEAD. A throwaway is added detached at its base
// under home/worktrees/RUN/NAME; git worktree add and remove are serialised
// per repository across processes by a lock in home/locks. A checkout is
// the repository's own working tree, refused when it has uncommitted
// changes. An issue-branch worktree is added like a throwaway, on the branch
// its plan entry names (the run sets it from the issue): continuing that
// branch, local or origin's, else starting it at the base. On an error,
// whatever was created is removed before returning.
func OpenWorktrees(ctx context.Context, repoRoot, commonDir, home, run string, plan []ir.PlanWorktree) (*Worktrees, error) {
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
			if err := checkBranchName(repoRoot, p.Branch); err != nil {
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
	w := &Worktrees{
		repoRoot: root,
		runDir:   filepath.Join(home, "worktrees", run),
		lock:     worktreeLockPath(home, commonDir),
		removed:  map[string]bool{},
		env:      os.Environ(),
	}
	if len(plan) == 0 {
		return w, nil
	}
	bases, err := resolveBases(root, plan)
	if err != nil {
		return nil, err
	}
	if checkouts > 0 {
		if err := checkClean(root, plan); err != nil {
			return nil, err
		}
	}
	if err := w.create(ctx, plan, bases, throwaways+issueBranches > 0); err != nil {
		return nil, err
	}
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
// check's Repo.Base chose it), else whatever git makes of B; "" and "HEAD"
// are HEAD. A checkout's base is HEAD, and may be missing in a repository
// with no commits.
func resolveBases(root string, plan []ir.PlanWorktree) (map[string]string, error) {
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
	out, err := git.RunInput(context.Background(), root, os.Environ(), in.String(), "cat-file", "--batch-check=%(objectname) %(objecttype)")
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
func checkClean(root string, plan []ir.PlanWorktree) error {
	name := ""
	for _, p := range plan {
		if p.Kind == ir.Checkout {
			name = p.Name
			break
		}
	}
	if err := ExcludeCairnFiles(root); err != nil {
		return fmt.Errorf("checkout worktree %q: %w", name, err)
	}
	// Run folders of commit-mode runs are cairn's: a resumed run's own,
	// or what a crashed one left, is never the user's work.
	out, err := git.Run(context.Background(), root, os.Environ(), "status", "--porcelain", "-z", "--untracked-files=normal", "--", ".", ":(exclude)"+ir.RunsInRepo)
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

// create lists the plan's worktrees in order, adding the throwaways and
// issue branches (linked is set when there are any) one after another while
// holding the repository's worktree lock. On an error it removes those it
// added.
func (w *Worktrees) create(ctx context.Context, plan []ir.PlanWorktree, bases map[string]string, linked bool) error {
	w.list = make([]Worktree, 0, len(plan))
	if linked {
		if err := os.MkdirAll(w.runDir, 0o700); err != nil {
			return fmt.Errorf("create worktrees: %w", err)
		}
		// git records the path it is given; a canonical one keeps `git
		// worktree list` and the steps' CAIRN_WORKTREE in agreement.
		runDir, err := filepath.EvalSymlinks(w.runDir)
		if err != nil {
			return fmt.Errorf("create worktrees: %w", err)
		}
		w.runDir = runDir
		unlock, err := lockWorktrees(w.lock)
		if err != nil {
			_ = w.removeRunDir()
			return fmt.Errorf("create worktrees: %w", err)
		}
		defer unlock()
	}
	fail := func(name string, err error) error {
		w.removeAdded()
		return fmt.Errorf("create worktree %q: %w", name, err)
	}
	for _, p := range plan {
		if p.Kind == ir.Checkout {
			w.list = append(w.list, Worktree{Name: p.Name, Kind: p.Kind, Path: w.repoRoot, Base: bases[""]})
			continue
		}
		if err := ctx.Err(); err != nil {
			return fail(p.Name, err)
		}
		if p.Kind == ir.IssueBranch {
			wt, err := w.addIssueBranch(p, bases[p.Base])
			if err != nil {
				return fail(p.Name, err)
			}
			w.list = append(w.list, wt)
			continue
		}
		wt := Worktree{Name: p.Name, Kind: p.Kind, Path: filepath.Join(w.runDir, p.Name), Base: bases[p.Base]}
		// git adds into an empty folder; making it first gives it the
		// owner-only mode of everything under $CAIRN_HOME.
		if err := os.Mkdir(wt.Path, 0o700); err != nil {
			return fail(p.Name, err)
		}
		if _, err := git.Run(context.Background(), w.repoRoot, w.env, "worktree", "add", "--quiet", "--detach", wt.Path, wt.Base); err != nil {
			_ = os.Remove(wt.Path)
			return fail(p.Name, err)
		}
		w.list = append(w.list, wt)
	}
	return nil
}

// removeAdded removes the throwaways of a failed open, and the issue-branch
// worktrees git finds clean (their branches stay). The caller holds the
// worktree lock; nothing in them is worth a patch yet.
func (w *Worktrees) removeAdded() {
	for _, wt := range w.list {
		switch wt.Kind {
		case ir.Throwaway:
			_ = removeWorktree(w.repoRoot, wt.Path)
		case ir.IssueBranch:
			_, _ = git.Run(context.Background(), w.repoRoot, w.env, "worktree", "remove", wt.Path)
		}
	}
	w.list = nil
	_, _ = git.Run(context.Background(), w.repoRoot, w.env, "worktree", "prune")
	_ = w.removeRunDir()
}

// removeRunDir removes home/worktrees/RUN when it is empty: whatever else is
// left there is not this run's to delete.
func (w *Worktrees) removeRunDir() error {
	err := os.Remove(w.runDir)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("remove %s: %w", w.runDir, err)
}

// Get returns the worktree named name.
func (w *Worktrees) Get(name string) (Worktree, bool) {
	if w == nil {
		return Worktree{}, false
	}
	for _, wt := range w.list {
		if wt.Name == name {
			return wt, true
		}
	}
	return Worktree{}, false
}

// All returns the run's worktrees in plan order.
func (w *Worktrees) All() []Worktree {
	if w == nil {
		return nil
	}
	return append([]Worktree(nil), w.list...)
}

// Close ends the run's throwaway worktrees, whatever happened in the run:
// each one's changes since its base are saved in runDir/worktrees (savePatch:
// NAME.patch, and a patch per initialised submodule with changes), then it
// is removed, and home/worktrees/RUN with it. Every worktree is tried; the
// errors are joined. A worktree whose changes could not be saved is left in
// place, and the error names its path, so no work is lost. Checkout
// worktrees are left alone. Issue-branch worktrees are removed only after
// MarkSucceeded, with all their work committed and on the base or pushed;
// the others are kept, and Kept names their branches and paths. A second
// call retries only what the first could not do.
func (w *Worktrees) Close(runDir string) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var open []Worktree
	for _, wt := range w.list {
		if wt.Kind == ir.Throwaway && !w.removed[wt.Name] {
			open = append(open, wt)
		}
	}
	branches := w.openIssueBranches()
	if len(open) == 0 && len(branches) == 0 {
		return w.removeRunDirUnlessKept()
	}
	saveErrs := saveAll(open, runDir)

	var errs []error
	unlock, err := lockWorktrees(w.lock)
	if err != nil {
		return fmt.Errorf("remove worktrees: %w; they are left in %s", err, w.runDir)
	}
	for i, wt := range open {
		if saveErrs[i] != nil {
			errs = append(errs, fmt.Errorf("save the changes of worktree %q: %w; it is left at %s", wt.Name, saveErrs[i], wt.Path))
			continue
		}
		if err := removeWorktree(w.repoRoot, wt.Path); err != nil {
			errs = append(errs, fmt.Errorf("remove worktree %q: %w", wt.Name, err))
			continue
		}
		w.removed[wt.Name] = true
	}
	w.closeIssueBranches(branches)
	if _, err := git.Run(context.Background(), w.repoRoot, w.env, "worktree", "prune"); err != nil {
		errs = append(errs, fmt.Errorf("remove worktrees: %w", err))
	}
	unlock()
	if len(errs) == 0 {
		errs = append(errs, w.removeRunDirUnlessKept())
	}
	return errors.Join(errs...)
}

// saveAll saves the changes of the worktrees open (savePatch) in runDir and
// returns each one's error. Saving touches only each worktree's own files
// and temporary ones, so worktrees are saved side by side, but a few at a
// time: each save holds files and git processes open, and a run with
// hundreds of worktrees must not run out of file descriptors.
func saveAll(open []Worktree, runDir string) []error {
	errs := make([]error, len(open))
	slots := make(chan struct{}, min(len(open), max(2, goruntime.GOMAXPROCS(0))))
	var wg sync.WaitGroup
	for i, wt := range open {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			errs[i] = savePatch(wt, runDir)
		})
	}
	wg.Wait()
	return errs
}

// submodulesSuffix names the folder, beside a worktree's NAME.patch, of the
// patches of the submodules initialised in it (NAME.submodules): PATH.patch
// for the submodule at PATH.
const submodulesSuffix = ".submodules"

// savePatch saves wt's changes since its base in runDir/worktrees (§7.4).
// NAME.patch holds the worktree's own: its commits, tracked and untracked
// files, binary ones too; a submodule there is a commit, so what was done
// inside one is not in it. Each submodule initialised in the worktree (and
// in those, recursively) with changes since the commit its base records for
// it gets NAME.submodules/PATH.patch, and the submodules holding it an empty
// one, so that applyPatches knows to initialise them first. Files an earlier
// save left that nothing backs now are removed. Nothing is saved when the
// folder is already gone. A submodule the base does not have cannot be
// started again from a patch: its worktree is left in place (the error says
// so).
func savePatch(wt Worktree, runDir string) error {
	if _, err := os.Lstat(wt.Path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	tmp, err := os.MkdirTemp("", "cairn-patch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	own := filepath.Join(tmp, "patch")
	size, queue, err := diffTree(wt.Path, wt.Base, own)
	if err != nil {
		return err
	}
	type subPatch struct {
		path, file string
		size       int64
	}
	var subs []subPatch
	for i := 0; i < len(queue); i++ {
		s := queue[i]
		if s.base == "" {
			return fmt.Errorf("submodule %q is not in the worktree's base, so its changes cannot be saved as a patch", s.path)
		}
		file := filepath.Join(tmp, fmt.Sprintf("submodule-%d", i))
		n, nested, err := diffTree(filepath.Join(wt.Path, filepath.FromSlash(s.path)), s.base, file)
		if err != nil {
			return fmt.Errorf("submodule %q: %w", s.path, err)
		}
		for _, q := range nested {
			q.path = s.path + "/" + q.path
			queue = append(queue, q)
		}
		subs = append(subs, subPatch{path: s.path, file: file, size: n})
	}
	keep := map[string]bool{}
	for _, s := range subs {
		if s.size == 0 {
			continue
		}
		keep[s.path] = true
		for _, p := range subs {
			if strings.HasPrefix(s.path, p.path+"/") {
				keep[p.path] = true
			}
		}
	}

	dir := filepath.Join(runDir, record.WorktreesDir)
	patch := filepath.Join(dir, wt.Name+".patch")
	subDir := filepath.Join(dir, wt.Name+submodulesSuffix)
	if size == 0 && len(keep) == 0 {
		if runDir == "" {
			return nil
		}
		return removeStale(patch, subDir)
	}
	if runDir == "" {
		return errors.New("no run folder to save them in")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if size > 0 {
		if err := moveFile(own, patch); err != nil {
			return err
		}
	} else if err := removeStale(patch, ""); err != nil {
		return err
	}
	if len(keep) == 0 {
		return removeStale("", subDir)
	}
	// The submodules' patches appear together or not at all: made aside,
	// then put in place of an earlier save's.
	staging, err := os.MkdirTemp(dir, "."+wt.Name+submodulesSuffix+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging)
	for _, s := range subs {
		if !keep[s.path] {
			continue
		}
		dst := filepath.Join(staging, filepath.FromSlash(s.path)+".patch")
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		if err := moveFile(s.file, dst); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(subDir); err != nil {
		return err
	}
	return os.Rename(staging, subDir)
}

// removeStale removes the patch and the folder of submodule patches an
// earlier save left ("" for neither). Where there is no folder for them,
// there is nothing to remove.
func removeStale(patch, subDir string) error {
	gone := func(err error) bool {
		return err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	}
	if patch != "" {
		if err := os.Remove(patch); !gone(err) {
			return err
		}
	}
	if subDir != "" {
		if err := os.RemoveAll(subDir); !gone(err) {
			return err
		}
	}
	return nil
}

// submodule is a submodule initialised in a working tree: its path there
// (slash-separated), and the commit the tree's base records for it ("" when
// the base has none).
type submodule struct {
	path string
	base string
}

// diffTree writes the changes of the working tree at dir since base (a
// commit; "" for none) to the new file patch, and returns its size and the
// submodules initialised in the tree: everything in the folder that git does
// not ignore is added to a temporary index beside patch, which is diffed
// against base.
func diffTree(dir, base, patch string) (int64, []submodule, error) {
	index := patch + ".index"
	// Starting from the tree's own index lets git add skip the files whose
	// stat data has not changed; without it git hashes every file.
	if gitDir, err := repoGitDir(dir); err == nil {
		_ = copyFile(filepath.Join(gitDir, "index"), index)
	}
	env := []string{"GIT_INDEX_FILE=" + index}
	if _, err := git.Run(context.Background(), dir, append(os.Environ(), env...), "add", "--all"); err != nil {
		return 0, nil, err
	}
	if base == "" {
		// The empty tree, in the repository's own object format.
		out, err := git.RunInput(context.Background(), dir, os.Environ(), "", "hash-object", "-t", "tree", "--stdin")
		if err != nil {
			return 0, nil, err
		}
		base = strings.TrimSpace(out)
	}
	f, err := os.OpenFile(patch, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, nil, err
	}
	// The user's diff settings must not change what git apply reads.
	runErr := git.Stream(context.Background(), dir, append(os.Environ(), env...), f, "diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--no-textconv",
		"--no-relative", "--submodule=short", "--src-prefix=a/", "--dst-prefix=b/", base, "--")
	size, _ := f.Seek(0, io.SeekCurrent)
	if err := f.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return 0, nil, runErr
	}
	subs, err := initialisedSubmodules(dir, env, base)
	if err != nil {
		return 0, nil, err
	}
	return size, subs, nil
}

// initialisedSubmodules lists the submodules of the working tree at dir, as
// the index env names has them, that are initialised (their folder has a
// .git), each with the commit base records for it.
func initialisedSubmodules(dir string, env []string, base string) ([]submodule, error) {
	// A submodule is initialised from .gitmodules: without one, listing a
	// large index for none is time lost.
	if _, err := os.Lstat(filepath.Join(dir, ".gitmodules")); err != nil {
		return nil, nil
	}
	out, err := git.Run(context.Background(), dir, append(os.Environ(), env...), "ls-files", "--stage", "-z")
	if err != nil {
		return nil, err
	}
	var subs []submodule
	for _, entry := range strings.Split(out, "\x00") {
		// MODE SHA STAGE\tPATH; a submodule's mode is 160000.
		meta, path, ok := strings.Cut(entry, "\t")
		if !ok || !strings.HasPrefix(meta, "160000 ") {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(path), ".git")); err != nil {
			continue
		}
		subs = append(subs, submodule{path: path})
	}
	if len(subs) == 0 {
		return nil, nil
	}
	args := []string{"ls-tree", "-z", base, "--"}
	for _, s := range subs {
		args = append(args, s.path)
	}
	literal := append(slices.Clone(env), "GIT_LITERAL_PATHSPECS=1")
	out, err = git.Run(context.Background(), dir, append(os.Environ(), literal...), args...)
	if err != nil {
		return nil, err
	}
	recorded := map[string]string{}
	for _, entry := range strings.Split(out, "\x00") {
		// MODE TYPE SHA\tPATH
		meta, path, ok := strings.Cut(entry, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "commit" {
			recorded[path] = f[2]
		}
	}
	for i := range subs {
		subs[i].base = recorded[subs[i].path]
	}
	return subs, nil
}

// applyPatches brings back in the worktree wt, started again from its base,
// the changes savePatch saved of it in dir (a run folder's worktrees/):
// NAME.patch, then each submodule's patch, in that submodule initialised
// first at the commit the base records for it, outer submodules before the
// ones inside them.
func applyPatches(wt Worktree, dir string) error {
	patch := filepath.Join(dir, wt.Name+".patch")
	if fileExists(patch) {
		if _, err := git.Run(context.Background(), wt.Path, os.Environ(), "apply", "--binary", "--whitespace=nowarn", patch); err != nil {
			return fmt.Errorf("worktree %q: apply the changes the run saved in %s: %w", wt.Name, patch, err)
		}
	}
	subDir := filepath.Join(dir, wt.Name+submodulesSuffix)
	var paths []string
	err := filepath.WalkDir(subDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".patch") {
			rel, err := filepath.Rel(subDir, strings.TrimSuffix(p, ".patch"))
			if err != nil {
				return err
			}
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("worktree %q: read the submodule changes the run saved: %w", wt.Name, err)
	}
	depth := func(p string) int { return strings.Count(p, "/") }
	slices.SortFunc(paths, func(a, b string) int {
		if d := depth(a) - depth(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for i, p := range paths {
		// The submodule is initialised from the tree holding it: the
		// innermost one saved around it, else the worktree.
		parent := ""
		for _, q := range paths[:i] {
			if strings.HasPrefix(p, q+"/") && len(q) > len(parent) {
				parent = q
			}
		}
		holder, rel := wt.Path, p
		if parent != "" {
			holder, rel = filepath.Join(wt.Path, filepath.FromSlash(parent)), strings.TrimPrefix(p, parent+"/")
		}
		file := filepath.Join(subDir, filepath.FromSlash(p)+".patch")
		if _, err := git.Run(context.Background(), holder, append(os.Environ(), []string{"GIT_LITERAL_PATHSPECS=1"}...), "submodule", "update", "--init", "--quiet", "--", rel); err != nil {
			return fmt.Errorf("worktree %q: initialise submodule %q to apply the changes the run saved in %s: %w", wt.Name, p, file, err)
		}
		if fi, err := os.Stat(file); err != nil || fi.Size() == 0 {
			continue
		}
		if _, err := git.Run(context.Background(), filepath.Join(wt.Path, filepath.FromSlash(p)), os.Environ(), "apply", "--binary", "--whitespace=nowarn", file); err != nil {
			return fmt.Errorf("worktree %q: apply the changes the run saved in %s: %w", wt.Name, file, err)
		}
	}
	return nil
}

// moveFile moves src to dst, copying when they are on different file
// systems; dst appears whole or not at all.
func moveFile(src, dst string) error {
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	tmp := dst + ".tmp"
	if err := copyFile(src, tmp); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// removeWorktree removes the worktree at path. When git cannot (the folder
// was already deleted, or is no worktree any more), the folder is deleted
// and a later `git worktree prune` forgets it.
func removeWorktree(root, path string) error {
	if _, err := git.Run(context.Background(), root, os.Environ(), "worktree", "remove", "--force", path); err == nil {
		return nil
	}
	return os.RemoveAll(path)
}

// repoGitDir is the git dir of the working tree at path: its .git folder,
// or the folder its .git file names ("gitdir: DIR"), as a linked worktree
// and an initialised submodule have.
func repoGitDir(path string) (string, error) {
	dotGit := filepath.Join(path, ".git")
	fi, err := os.Lstat(dotGit)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return dotGit, nil
	}
	b, err := os.ReadFile(dotGit)
	if err != nil {
		return "", err
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return "", fmt.Errorf("%s: no gitdir line", dotGit)
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(path, dir)
	}
	return dir, nil
}

// copyFile copies the regular file src to dst, created owner-only.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// worktreeLockPath is the lock that serialises git worktree add and remove
// in the repository whose git common dir is commonDir, across processes:
// git 2.39's parallel adds race.
func worktreeLockPath(home, commonDir string) string {
	sum := sha256.Sum256([]byte(commonDir))
	return filepath.Join(home, LocksDir, "worktrees-"+hex.EncodeToString(sum[:])[:16]+".lock")
}

// lockWorktrees takes the worktree lock at path (lock.go's flock), waiting
// for another holder, and returns its release.
func lockWorktrees(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := proc.Lock(path, true)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// InstallSkill copies a home or built-in skill into a worktree for a
// session, as PATH/.cairn/skills/NAME/SKILL.md, and makes sure cairn's own
// files are excluded from git there, so the copy never makes the tree dirty
// nor gets committed. It returns the copy's absolute path. A symlink on the
// way is refused: the repository's content must not steer where cairn
// writes.
func InstallSkill(wt Worktree, name string, body []byte) (string, error) {
	if !ir.ValidName(name) {
		return "", fmt.Errorf("install skill %q: skill names match [a-z0-9][a-z0-9-]*", name)
	}
	if err := ExcludeCairnFiles(wt.Path); err != nil {
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

// fileExists reports whether path is a regular file.
func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
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
// a repository).
func ExcludeCairnFiles(dir string) error {
	out, err := git.Run(context.Background(), dir, os.Environ(), "rev-parse", "--path-format=absolute", "--git-path", "info/exclude")
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
