package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/glob"
	"github.com/cairn-dev/cairn/ir"
)

// Copied is what Copy did: the paths it copied, and a warning for each glob
// that selected nothing and each candidate it skipped.
type Copied struct {
	Paths    []string
	Warnings []string
}

// Copy copies into wt the files of the user's checkout at root that git
// does not track and copies select (docs/design.md §7.4): a glob of the
// process file selects those doublestar matches, the patterns of
// .worktreeinclude those git's own matching of them does. Modes are kept;
// a symbolic link is copied as one when it resolves inside the repository,
// and one that leads out fails the copy, which copies nothing outside the
// repository; what is neither a file nor a link is skipped, with a
// warning, and never opened.
func Copy(ctx context.Context, g *git.Git, root string, wt Worktree, copies []ir.PlanCopy) (Copied, error) {
	var c Copied
	if len(copies) == 0 {
		return c, nil
	}
	var globs, include []string
	for _, cp := range copies {
		if cp.Source == ir.CopyFromInclude {
			include = append(include, cp.Glob)
		} else {
			globs = append(globs, cp.Glob)
		}
	}
	selected := map[string]bool{}
	if len(globs) > 0 {
		out, err := g.Run(ctx, root, "ls-files", "-z", "--others")
		if err != nil {
			return c, fmt.Errorf("list the untracked files: %w", err)
		}
		files := splitNUL(out)
		for _, pattern := range globs {
			n := 0
			for _, f := range files {
				if glob.Match(pattern, f) {
					selected[f] = true
					n++
				}
			}
			if n == 0 {
				c.Warnings = append(c.Warnings, fmt.Sprintf("worktree %q: copy %q matches no untracked file", wt.Name, pattern))
			}
		}
	}
	if len(include) > 0 {
		file, err := os.CreateTemp("", "cairn-include-*")
		if err != nil {
			return c, err
		}
		defer os.Remove(file.Name())
		_, err = io.WriteString(file, strings.Join(include, "\n")+"\n")
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return c, err
		}
		out, err := g.Run(ctx, root, "ls-files", "-z", "--others", "--ignored", "--exclude-from="+file.Name())
		if err != nil {
			return c, fmt.Errorf("list the files %s names: %w", ir.WorktreeInclude, err)
		}
		for _, f := range splitNUL(out) {
			selected[f] = true
		}
		// Each pattern that selects nothing on its own is said, as a glob
		// of the file's is; a negation selects nothing by its nature.
		for _, pattern := range include {
			if strings.HasPrefix(pattern, "!") {
				continue
			}
			out, err := g.Run(ctx, root, "ls-files", "-z", "--others", "--ignored", "--exclude="+pattern)
			if err == nil && out == "" {
				c.Warnings = append(c.Warnings, fmt.Sprintf("worktree %q: copy %q matches no untracked file", wt.Name, pattern))
			}
		}
	}
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range selected {
			if !yield(p) {
				return
			}
		}
	})
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return c, err
	}
	// Every write goes through the worktree's root: a folder of the
	// worktree that is a link cannot lead a copy out of it.
	dst, err := os.OpenRoot(wt.Path)
	if err != nil {
		return c, err
	}
	defer dst.Close()
	for _, p := range paths {
		copied, warning, err := copyOne(realRoot, root, dst, p)
		if err != nil {
			return c, err
		}
		if warning != "" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("worktree %q: %s", wt.Name, warning))
		}
		if copied {
			c.Paths = append(c.Paths, p)
		}
	}
	return c, nil
}

// copyOne copies path, relative to root (realRoot once its links are
// resolved), to the same place under dst. It reports whether it copied it,
// or a warning when it skipped it.
func copyOne(realRoot, root string, dst *os.Root, path string) (bool, string, error) {
	src := filepath.Join(root, filepath.FromSlash(path))
	to := filepath.FromSlash(path)
	fi, err := os.Lstat(src)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, "", nil // gone since git listed it
		}
		return false, "", fmt.Errorf("copy %q: %w", path, err)
	}
	fail := func(err error) (bool, string, error) {
		return false, "", fmt.Errorf("copy %q: %w", path, err)
	}
	if dir := filepath.Dir(to); dir != "." {
		if err := dst.MkdirAll(dir, 0o755); err != nil {
			return fail(err)
		}
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return fail(err)
		}
		resolved := target
		if !filepath.IsAbs(resolved) {
			resolved = filepath.Join(filepath.Dir(src), resolved)
		}
		if real, err := filepath.EvalSymlinks(resolved); err == nil {
			resolved = real
		} else if abs, err := filepath.Abs(resolved); err == nil {
			resolved = filepath.Clean(abs)
		}
		if !inside(realRoot, resolved) && !inside(root, resolved) {
			return false, "", fmt.Errorf("copy %q: it is a link to %q, outside the repository", path, target)
		}
		_ = dst.Remove(to)
		if err := dst.Symlink(target, to); err != nil {
			return fail(err)
		}
		return true, "", nil
	case !fi.Mode().IsRegular():
		return false, fmt.Sprintf("copy %q: it is neither a file nor a link; skipped", path), nil
	}
	in, err := os.OpenFile(src, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return fail(err)
	}
	defer in.Close()
	_ = dst.Remove(to)
	out, err := dst.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return fail(err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// The mode as it was, whatever the umask took from it.
		err = dst.Chmod(to, fi.Mode().Perm())
	}
	if err != nil {
		return fail(err)
	}
	return true, "", nil
}

// inside reports whether path is dir or below it.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// splitNUL splits git's -z output.
func splitNUL(out string) []string {
	var files []string
	for f := range strings.SplitSeq(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// Changed lists the paths of the worktree at dir that differ from its
// HEAD, tracked or not (what .gitignore ignores left out): after copy and
// setup, what they left, which is not the agents' work.
func Changed(ctx context.Context, g *git.Git, dir string) (map[string]string, error) {
	out, err := g.Run(ctx, dir, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all")
	if err != nil {
		return nil, err
	}
	changed := map[string]string{}
	for _, e := range splitNUL(out) {
		if len(e) > 3 {
			changed[e[3:]] = e[:2]
		}
	}
	return changed, nil
}

// Uncommitted lists what git status says is uncommitted in the working
// tree at dir (its porcelain entries), but the paths excluded, which its
// copy and setup left: those are not work that is waiting to be saved.
func Uncommitted(ctx context.Context, g *git.Git, dir string, excluded []string) ([]string, error) {
	// With paths to leave out, every untracked file, not its folder: a
	// folder setup made is excluded file by file.
	untracked := "--untracked-files=normal"
	if len(excluded) > 0 {
		untracked = "--untracked-files=all"
	}
	out, err := g.Run(ctx, dir, "status", "--porcelain=v1", "-z", untracked, "--no-renames")
	if err != nil {
		return nil, err
	}
	skip := make(map[string]bool, len(excluded))
	for _, p := range excluded {
		skip[p] = true
	}
	var left []string
	for _, e := range splitNUL(out) {
		if len(e) > 3 && !skip[e[3:]] {
			left = append(left, e)
		}
	}
	return left, nil
}

// Prepared is what copy and setup left in a worktree: after, less what was
// already so before (a resumed run's worktree holds its saved changes
// again), the paths new or in another state, sorted.
func Prepared(before, after map[string]string) []string {
	var paths []string
	for p, st := range after {
		if was, ok := before[p]; !ok || was != st {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return paths
}

// SetExcluded records paths of worktree name that are not the agents'
// work: its patch leaves them out.
func (w *Worktrees) SetExcluded(name string, paths []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.list {
		if w.list[i].Name == name {
			w.list[i].Excluded = slices.Clone(paths)
		}
	}
}

// addAll stages everything in the working tree at dir that git does not
// ignore, but the paths excluded and the pathspecs more, through g (whose
// environment may name another index).
func addAll(ctx context.Context, g *git.Git, dir string, excluded []string, more ...string) error {
	if len(excluded) == 0 {
		_, err := g.Run(ctx, dir, append([]string{"add", "--all", "--", "."}, more...)...)
		return err
	}
	var specs strings.Builder
	specs.WriteString(".\x00")
	for _, m := range more {
		specs.WriteString(m + "\x00")
	}
	for _, p := range excluded {
		specs.WriteString(":(exclude,literal)" + p + "\x00")
	}
	_, err := g.RunInput(ctx, dir, specs.String(), "add", "--all", "--pathspec-from-file=-", "--pathspec-file-nul")
	return err
}
