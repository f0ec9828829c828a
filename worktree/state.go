package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
)

// State is a working tree as it stood at one moment, to be put back
// after a session that must not change it (a judge, docs/design.md §7.2): what HEAD was
// (the branch it named, "" when detached, and its commit), the index file's
// bytes, and a tree object of everything in the folder that git does not
// ignore. cairn's own files (run folders, copied skills, the issue file)
// are no part of it.
type State struct {
	git       *git.Git
	dir       string
	branch    string
	head      string
	indexPath string
	index     []byte
	indexMode fs.FileMode
	hadIndex  bool
	tree      string
}

// cairnOwn are the paths of cairn's own files in a working tree, which a
// State leaves out: a commit-mode run writes its folder while a judge
// works.
var cairnOwn = []string{ir.RunsInRepo, ".cairn/skills", ir.IssueFile}

// TakeState records the working tree at dir as it stands, asking g's git.
func TakeState(ctx context.Context, g *git.Git, dir string) (*State, error) {
	s := &State{git: g, dir: dir}
	if out, err := g.Run(ctx, dir, "symbolic-ref", "-q", "HEAD"); err == nil {
		s.branch = strings.TrimSpace(out)
	}
	s.head = g.Head(ctx, dir)
	out, err := g.Run(ctx, dir, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return nil, err
	}
	s.indexPath = strings.TrimSpace(out)
	if s.index, s.indexMode, s.hadIndex, err = readIndex(s.indexPath); err != nil {
		return nil, err
	}
	if s.tree, err = workTree(ctx, g, dir, s.indexPath); err != nil {
		return nil, err
	}
	return s, nil
}

// readIndex reads the index file at path: its bytes and mode, and whether
// there is one.
func readIndex(path string) ([]byte, fs.FileMode, bool, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, false, err
	}
	return b, fi.Mode().Perm(), true, nil
}

// workTree writes the tree of everything in the working tree at dir that
// git does not ignore, but cairn's own files, through a temporary index
// that starts as a copy of the tree's own (at ownIndex), and returns its id.
// The temporary index is made beside the tree's own, in its git dir: in the
// working tree it would be part of what it records.
func workTree(ctx context.Context, g *git.Git, dir, ownIndex string) (string, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(ownIndex), "cairn-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	// Starting from the tree's own index lets git add skip the files whose
	// stat data has not changed.
	_ = copyFile(ownIndex, index)
	g = g.With("GIT_INDEX_FILE="+index, "GIT_LITERAL_PATHSPECS=1")
	if _, err := g.Run(ctx, dir, "add", "--all"); err != nil {
		return "", err
	}
	// cairn's own files leave the index whether git add or the tree's own
	// index (a judge that ran git add) put them there.
	if _, err := g.Run(ctx, dir, append([]string{"rm", "--cached", "-r", "-q", "--ignore-unmatch", "--"}, cairnOwn...)...); err != nil {
		return "", err
	}
	out, err := g.Run(ctx, dir, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// maxNamed is how many changed paths a restore's account names.
const maxNamed = 3

// Restore puts the working tree back as s recorded it: the branch HEAD
// named and its commit (a commit made since is dropped from it), every
// file not ignored (those changed or deleted since are written again from
// s's tree, those added are removed), and the index. It returns what had
// changed, in words ("" when nothing had). Submodules and ignored files are
// left as they are.
func (s *State) Restore(ctx context.Context) (string, error) {
	now, err := TakeState(ctx, s.git, s.dir)
	if err != nil {
		return "", err
	}
	var what []string
	if now.branch != s.branch || now.head != s.head {
		what = append(what, fmt.Sprintf("HEAD moved from %s to %s", shortRef(s.branch, s.head), shortRef(now.branch, now.head)))
		if err := s.restoreHead(ctx, now); err != nil {
			return "", fmt.Errorf("put HEAD back at %s: %w", shortRef(s.branch, s.head), err)
		}
	}
	if now.tree != s.tree {
		paths, err := s.restoreFiles(ctx, now.tree)
		if err != nil {
			return "", err
		}
		if len(paths) > 0 {
			named := make([]string, 0, maxNamed)
			for _, p := range paths[:min(len(paths), maxNamed)] {
				named = append(named, fmt.Sprintf("%q", p))
			}
			list := strings.Join(named, ", ")
			if more := len(paths) - len(named); more > 0 {
				list += fmt.Sprintf(" and %d more", more)
			}
			what = append(what, fmt.Sprintf("%d %s changed (%s)", len(paths), plural(len(paths), "file", "files"), list))
		}
	}
	if now.hadIndex != s.hadIndex || !bytes.Equal(now.index, s.index) {
		if len(what) == 0 {
			what = append(what, "the index changed")
		}
		if err := s.restoreIndex(); err != nil {
			return "", fmt.Errorf("put the index back: %w", err)
		}
	}
	return strings.Join(what, "; "), nil
}

// restoreHead points HEAD back at s's branch, and that branch (or a
// detached HEAD) back at s's commit.
func (s *State) restoreHead(ctx context.Context, now *State) error {
	if s.branch != "" && now.branch != s.branch {
		if _, err := s.git.Run(ctx, s.dir, "symbolic-ref", "HEAD", s.branch); err != nil {
			return err
		}
	}
	args := []string{"update-ref", "-m", "cairn: undo what a judge changed", "--no-deref", "HEAD"}
	if s.branch != "" {
		args = []string{"update-ref", "-m", "cairn: undo what a judge changed", s.branch}
	}
	if s.head == "" {
		// There was no commit yet: the ref goes.
		args = append(args[:1], append([]string{"-d"}, args[1:]...)...)
	} else {
		args = append(args, s.head)
	}
	_, err := s.git.Run(ctx, s.dir, args...)
	return err
}

// restoreFiles makes the files of the working tree, whose tree is now, what
// they are in s's tree, and returns the paths it changed. Paths added since
// are removed first (deepest first, with the folders they leave empty), so
// that a folder that replaced a file gives its place back.
func (s *State) restoreFiles(ctx context.Context, now string) ([]string, error) {
	out, err := s.git.Run(ctx, s.dir, "diff-tree", "-r", "-z", "--no-renames", s.tree, now)
	if err != nil {
		return nil, err
	}
	var added, restored, changed []string
	fields := strings.Split(out, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		// :OLDMODE NEWMODE OLDSHA NEWSHA STATUS, then the path.
		meta, path := strings.Fields(strings.TrimPrefix(fields[i], ":")), fields[i+1]
		if len(meta) != 5 || meta[0] == "160000" || meta[1] == "160000" {
			continue
		}
		changed = append(changed, path)
		if meta[4] == "A" {
			added = append(added, path)
		} else {
			restored = append(restored, path)
		}
	}
	slices.SortFunc(added, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, p := range added {
		full := filepath.Join(s.dir, filepath.FromSlash(p))
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for d := filepath.Dir(full); d != s.dir && strings.HasPrefix(d, s.dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	if len(restored) > 0 {
		tmp, err := os.MkdirTemp(filepath.Dir(s.indexPath), "cairn-index-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		g := s.git.With("GIT_INDEX_FILE=" + filepath.Join(tmp, "index"))
		if _, err := g.Run(ctx, s.dir, "read-tree", s.tree); err != nil {
			return nil, err
		}
		list := strings.Join(restored, "\x00") + "\x00"
		if _, err := g.RunInput(ctx, s.dir, list, "checkout-index", "--force", "-z", "--stdin"); err != nil {
			return nil, err
		}
	}
	return changed, nil
}

// restoreIndex writes s's index back, with its mode, whole or not at all;
// or removes the index when there was none.
func (s *State) restoreIndex() error {
	if !s.hadIndex {
		if err := os.Remove(s.indexPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.indexPath), "cairn-index-")
	if err != nil {
		return err
	}
	_, err = tmp.Write(s.index)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), s.indexMode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.indexPath)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// shortRef words HEAD for a message: the branch and its commit, or the
// commit alone when detached.
func shortRef(branch, head string) string {
	c := "no commit"
	if head != "" {
		c = head[:min(len(head), 12)]
	}
	if branch == "" {
		return c
	}
	return fmt.Sprintf("%s (%s)", strings.TrimPrefix(branch, "refs/heads/"), c)
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
