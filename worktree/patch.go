package worktree

import (
	"context"
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
	"github.com/cairn-dev/cairn/ir"
)

// saveAll saves the changes of the worktrees open (savePatch) in patchDir and
// returns each one's error; ran reports, by name, whether a step ran in a
// worktree since its saved changes were applied to it. Saving touches only
// each worktree's own files and temporary ones, so worktrees are saved side
// by side, but a few at a time: each save holds files and git processes
// open, and a run with hundreds of worktrees must not run out of file
// descriptors.
func saveAll(ctx context.Context, g *git.Git, open []Worktree, patchDir string, ran func(name string) bool) []error {
	errs := make([]error, len(open))
	slots := make(chan struct{}, min(len(open), max(2, goruntime.GOMAXPROCS(0))))
	var wg sync.WaitGroup
	for i, wt := range open {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			errs[i] = savePatch(ctx, g, wt, patchDir, ran(wt.Name))
		})
	}
	wg.Wait()
	return errs
}

// submodulesSuffix names the folder, beside a worktree's NAME.patch, of the
// patches of the submodules initialised in it (NAME.submodules): PATH.patch
// for the submodule at PATH.
const submodulesSuffix = ".submodules"

// applyingSuffix names the marker, beside a worktree's NAME.patch, that
// BeginReopen writes before a resumed run makes the worktree again and
// Reopen removes once every saved patch of it is applied: while it is
// there, the worktree holds a part of its saved changes at most (none, or a
// patch half applied, when a resume was killed), so no save takes what the
// worktree holds for its changes.
const applyingSuffix = ".applying"

// applyingNote is what an applying marker says to whoever opens it.
const applyingNote = "cairn is applying this worktree's saved changes to a worktree made again from its base; until it removes this file, the saved changes are kept whatever that worktree holds\n"

// BeginReopen records in patchDir, a run folder's worktrees/, that the
// resumed run is about to make its throwaway worktrees in plan again from
// their bases and apply their saved changes (Reopen): each one with saved
// changes gets its applying marker. It is called before Open, so that a
// resume killed at any point before Reopen is done leaves the marker beside
// the worktree it made.
func BeginReopen(patchDir string, plan []ir.PlanWorktree) error {
	for _, p := range plan {
		if p.Kind != ir.Throwaway || !hasSaved(patchDir, p.Name) {
			continue
		}
		if err := os.WriteFile(filepath.Join(patchDir, p.Name+applyingSuffix), []byte(applyingNote), 0o600); err != nil {
			return fmt.Errorf("worktree %q: record that its saved changes are being applied: %w", p.Name, err)
		}
	}
	return nil
}

// hasSaved reports whether patchDir holds saved changes of the worktree
// name: its NAME.patch or NAME.submodules.
func hasSaved(patchDir, name string) bool {
	for _, p := range []string{name + ".patch", name + submodulesSuffix} {
		if _, err := os.Lstat(filepath.Join(patchDir, p)); err == nil {
			return true
		}
	}
	return false
}

// applying reports whether the worktree name is being started again from
// its saved changes in patchDir: its applying marker is there.
func applying(patchDir, name string) bool {
	if patchDir == "" {
		return false
	}
	_, err := os.Lstat(filepath.Join(patchDir, name+applyingSuffix))
	return err == nil
}

// savedSize is the size of the changes of the worktree name saved in
// patchDir: its NAME.patch and every submodule patch, 0 for none.
func savedSize(patchDir, name string) int64 {
	if patchDir == "" {
		return 0
	}
	var size int64
	if fi, err := os.Lstat(filepath.Join(patchDir, name+".patch")); err == nil && fi.Mode().IsRegular() {
		size += fi.Size()
	}
	_ = filepath.WalkDir(filepath.Join(patchDir, name+submodulesSuffix), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	return size
}

// replacesSaved is the rule of a save over changes saved before: what a
// worktree holds now (fresh bytes of patches) replaces what was saved of it
// (saved bytes) unless it is smaller and no step ran in the worktree since
// the saved changes were applied to it. Only a step's work can undo work;
// anything else that leaves less (a patch not applied in full) would lose
// it.
func replacesSaved(saved, fresh int64, ran bool) bool {
	return ran || fresh >= saved
}

// savePatch saves wt's changes since its base in patchDir (docs/design.md §7.4), a run
// folder's worktrees/; "" when the run has no folder.
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
// What was saved before stays, and wt is not saved, while wt's applying
// marker is there (BeginReopen), and when wt's changes are smaller than
// those saved and ran is false (replacesSaved): ran reports whether a step
// ran in wt since its saved changes were applied to it, true for a worktree
// never started again from them.
func savePatch(ctx context.Context, g *git.Git, wt Worktree, patchDir string, ran bool) error {
	if _, err := os.Lstat(wt.Path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if applying(patchDir, wt.Name) {
		return nil
	}
	tmp, err := os.MkdirTemp("", "cairn-patch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	own := filepath.Join(tmp, "patch")
	size, queue, err := diffTree(ctx, g, wt.Path, wt.Base, own, wt.Excluded)
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
		n, nested, err := diffTree(ctx, g, filepath.Join(wt.Path, filepath.FromSlash(s.path)), s.base, file, nil)
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

	fresh := size
	for _, s := range subs {
		if keep[s.path] {
			fresh += s.size
		}
	}
	if !replacesSaved(savedSize(patchDir, wt.Name), fresh, ran) {
		return nil
	}

	patch := filepath.Join(patchDir, wt.Name+".patch")
	subDir := filepath.Join(patchDir, wt.Name+submodulesSuffix)
	if size == 0 && len(keep) == 0 {
		if patchDir == "" {
			return nil
		}
		return removeStale(patch, subDir)
	}
	if patchDir == "" {
		return errors.New("no run folder to save them in")
	}
	if err := os.MkdirAll(patchDir, 0o700); err != nil {
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
	staging, err := os.MkdirTemp(patchDir, "."+wt.Name+submodulesSuffix+"-")
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
// not ignore, but the paths excluded (what copy and setup left), is added
// to a temporary index beside patch, which is diffed against base.
func diffTree(ctx context.Context, g *git.Git, dir, base, patch string, excluded []string) (int64, []submodule, error) {
	index := patch + ".index"
	// Starting from the tree's own index lets git add skip the files whose
	// stat data has not changed; without it git hashes every file.
	if gitDir, err := repoGitDir(dir); err == nil {
		_ = copyFile(filepath.Join(gitDir, "index"), index)
	}
	indexed := g.With("GIT_INDEX_FILE=" + index)
	if err := addAll(ctx, indexed, dir, excluded); err != nil {
		return 0, nil, err
	}
	if base == "" {
		// The empty tree, in the repository's own object format.
		out, err := g.RunInput(ctx, dir, "", "hash-object", "-t", "tree", "--stdin")
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
	runErr := indexed.Stream(ctx, dir, f, "diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--no-textconv",
		"--no-relative", "--submodule=short", "--src-prefix=a/", "--dst-prefix=b/", base, "--")
	size, _ := f.Seek(0, io.SeekCurrent)
	if err := f.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return 0, nil, runErr
	}
	subs, err := initialisedSubmodules(ctx, indexed, dir, base)
	if err != nil {
		return 0, nil, err
	}
	return size, subs, nil
}

// initialisedSubmodules lists the submodules of the working tree at dir, as
// the index g's environment names has them, that are initialised (their
// folder has a .git), each with the commit base records for it.
func initialisedSubmodules(ctx context.Context, g *git.Git, dir, base string) ([]submodule, error) {
	// A submodule is initialised from .gitmodules: without one, listing a
	// large index for none is time lost.
	if _, err := os.Lstat(filepath.Join(dir, ".gitmodules")); err != nil {
		return nil, nil
	}
	out, err := g.Run(ctx, dir, "ls-files", "--stage", "-z")
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
	out, err = g.With("GIT_LITERAL_PATHSPECS=1").Run(ctx, dir, args...)
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
func applyPatches(ctx context.Context, g *git.Git, wt Worktree, dir string) error {
	patch := filepath.Join(dir, wt.Name+".patch")
	if _, err := os.Stat(patch); err == nil {
		if _, err := g.Run(ctx, wt.Path, "apply", "--binary", "--whitespace=nowarn", patch); err != nil {
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
		if _, err := g.With("GIT_LITERAL_PATHSPECS=1").Run(ctx, holder, "submodule", "update", "--init", "--quiet", "--", rel); err != nil {
			return fmt.Errorf("worktree %q: initialise submodule %q to apply the changes the run saved in %s: %w", wt.Name, p, file, err)
		}
		if fi, err := os.Stat(file); err != nil || fi.Size() == 0 {
			continue
		}
		if _, err := g.Run(ctx, filepath.Join(wt.Path, filepath.FromSlash(p)), "apply", "--binary", "--whitespace=nowarn", file); err != nil {
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
