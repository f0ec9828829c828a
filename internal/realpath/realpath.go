// Package realpath keeps what cairn deletes inside the folders it owns:
// those are named by their real paths, and nothing is deleted through a
// symbolic link.
package realpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Folder checks that the folder at path is one, not a symbolic link to
// one: gc deletes in it, and so does worktree when it prunes a run's
// worktrees. A folder that does not exist is fine.
func Folder(path string) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link, and gc deletes nothing through one; make it a folder", path)
	case !info.IsDir():
		return fmt.Errorf("%s is not a folder", path)
	}
	return nil
}

// Folders are the real paths of folders, those that exist.
func Folders(folders []string) ([]string, error) {
	var out []string
	for _, f := range folders {
		real, err := filepath.EvalSymlinks(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			real, err = filepath.Abs(real)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, real)
	}
	return out, nil
}

// Entry checks that path is an entry of one of the folders owned (real
// paths) by its parent's real path, and returns its own Lstat: a symbolic
// link is reported as one, never followed.
func Entry(owned []string, path string) (fs.FileInfo, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err == nil {
		parent, err = filepath.Abs(parent)
	}
	if err != nil {
		return nil, err
	}
	if !slices.Contains(owned, parent) {
		return nil, fmt.Errorf("%s is not in a folder gc owns (it lies in %s)", path, parent)
	}
	return info, nil
}
