package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/internal/git"
)

// Repository is the git repository of a session's worktree as a sandbox
// that confines the session to the worktree needs it. A commit in a
// worktree on a detached HEAD writes the objects and the worktree's own
// files (its index, HEAD and logs); every other file of the repository
// (refs, packed-refs, the main worktree's HEAD and index, config, hooks,
// info, the other worktrees') is the user's, and Kept names them.
type Repository struct {
	// Worktree is the worktree's top folder.
	Worktree string
	// CommonDir is the repository's git directory, which its worktrees
	// share; GitDir is the worktree's own: CommonDir/worktrees/NAME for a
	// linked worktree, CommonDir itself for the main one. Both are real
	// paths, as the sandboxes compare them.
	CommonDir, GitDir string
	// Detached reports whether the worktree's HEAD is detached, so that a
	// commit there moves that HEAD alone. On a branch a commit moves the
	// branch, a ref of the repository's, which is kept.
	Detached bool
	// Entries, Own, Worktrees and Packs are the names CommonDir, GitDir,
	// CommonDir/worktrees and CommonDir/objects/pack held when the
	// session started.
	Entries, Own, Worktrees, Packs []string
}

// packedRefsHeader is the first line git writes in packed-refs.
const packedRefsHeader = "# pack-refs with: peeled fully-peeled sorted \n"

// ReadRepository reads the repository of the worktree at dir, running git
// through g. A repository that keeps its refs in files and has no packed-refs
// yet is given one with no refs, as git's own pack-refs leaves it: one the
// session wrote would add refs, and a sandbox holds a missing path with a
// device node, which git, reading packed-refs, cannot open.
func ReadRepository(ctx context.Context, g *git.Git, dir string) (*Repository, error) {
	out, err := g.Run(ctx, dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("unexpected output of git rev-parse: %q", out)
	}
	r := &Repository{}
	for i, p := range []*string{&r.Worktree, &r.GitDir, &r.CommonDir} {
		if *p, err = filepath.EvalSymlinks(lines[i]); err != nil {
			return nil, err
		}
	}
	// symbolic-ref exits 1 on a detached HEAD.
	if _, err := g.Run(ctx, dir, "symbolic-ref", "--quiet", "HEAD"); git.ExitCode(err) == 1 {
		r.Detached = true
	} else if err != nil {
		return nil, err
	}
	if r.Entries, err = names(r.CommonDir); err != nil {
		return nil, err
	}
	if !slices.Contains(r.Entries, "packed-refs") && !slices.Contains(r.Entries, "reftable") {
		if err := addPackedRefs(filepath.Join(r.CommonDir, "packed-refs")); err != nil {
			return nil, err
		}
		r.Entries = append(r.Entries, "packed-refs")
		slices.Sort(r.Entries)
	}
	if r.Own, err = names(r.GitDir); err != nil {
		return nil, err
	}
	if r.Worktrees, err = names(filepath.Join(r.CommonDir, "worktrees")); err != nil {
		return nil, err
	}
	if r.Packs, err = names(filepath.Join(r.CommonDir, "objects", "pack")); err != nil {
		return nil, err
	}
	return r, nil
}

// names are the names in the folder dir, sorted; none when it is missing.
func names(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out, nil
}

// addPackedRefs writes the packed-refs file at path, holding no refs,
// unless git (or another session) made one meanwhile.
func addPackedRefs(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(packedRefsHeader)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// mainWorktreeState are the files and folders git keeps in a worktree's
// git directory while a merge, a cherry-pick, a revert or a rebase is
// under way, and the commondir file that sends git to another repository:
// planted in the main worktree's, they would have the user's next commit
// take in a commit of the session's, or the next `git rebase --continue`
// run its todo list, or every git command read another repository's config.
var mainWorktreeState = []string{"CHERRY_PICK_HEAD", "MERGE_HEAD", "REVERT_HEAD", "commondir", "rebase-apply", "rebase-merge", "sequencer"}

// sharedAbsent are files and folders of the common directory that git
// reads when they exist and need not: a shallow file hides the history
// before the commits it names (and gc then prunes it); modules holds the
// submodules' repositories, with their own config and hooks.
var sharedAbsent = []string{"modules", "shallow"}

// worktreeOwn are the files of a linked worktree's git directory that say
// where its repository and its working tree are, and its own config: a
// session that rewrote them would send the git commands cairn runs there
// after it to another repository's config.
var worktreeOwn = []string{"commondir", "config.worktree", "gitdir", "locked"}

// Kept are the paths of the repository a session in the worktree may not
// write, sorted: every entry of the common directory but the objects and
// the worktrees (and, for the main worktree, its index), every other
// worktree's folder, the packs, the files that locate the worktree, and
// its HEAD when it is on a branch. Names git would read if a session made
// them are kept too where they are missing: a sandbox keeps a missing path
// by holding an empty device node there while a command runs, so only
// those the worktree's own git commands never read are listed (the main
// worktree's state when the session is in a linked worktree).
func (r *Repository) Kept() []string {
	common := func(name ...string) string { return filepath.Join(append([]string{r.CommonDir}, name...)...) }
	main := r.GitDir == r.CommonDir
	var kept []string
	for _, e := range r.Entries {
		if e == "objects" || e == "worktrees" || main && e == "index" {
			continue
		}
		kept = append(kept, common(e))
	}
	absent := sharedAbsent
	if !main {
		absent = append(slices.Clone(absent), mainWorktreeState...)
	}
	for _, e := range absent {
		if !slices.Contains(r.Entries, e) {
			kept = append(kept, common(e))
		}
	}
	for _, w := range r.Worktrees {
		if p := common("worktrees", w); p != r.GitDir {
			kept = append(kept, p)
		}
	}
	for _, p := range r.Packs {
		kept = append(kept, common("objects", "pack", p))
	}
	if !main {
		for _, f := range worktreeOwn {
			if slices.Contains(r.Own, f) {
				kept = append(kept, filepath.Join(r.GitDir, f))
			}
		}
		if !r.Detached {
			kept = append(kept, filepath.Join(r.GitDir, "HEAD"))
		}
		kept = append(kept, filepath.Join(r.Worktree, ".git"))
	}
	slices.Sort(kept)
	return slices.Compact(kept)
}

// Restore removes the commondir file a session made in the main
// worktree's git directory, which Kept cannot list there (the worktree's
// own git commands read it, and a held path would stop them): git never
// writes one into a main worktree's git directory, and it would send every
// later git command there to another repository, with its config and
// hooks. It returns the paths it removed.
func (r *Repository) Restore() ([]string, error) {
	if r.GitDir != r.CommonDir || slices.Contains(r.Entries, "commondir") {
		return nil, nil
	}
	path := filepath.Join(r.CommonDir, "commondir")
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err := os.RemoveAll(path); err != nil {
		return nil, err
	}
	return []string{path}, nil
}
