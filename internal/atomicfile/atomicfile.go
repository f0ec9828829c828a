// Package atomicfile writes a file whole or not at all: a reader sees the
// old file or the new one, never part of it, and so does a reader after a
// crash.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Write writes b to path through a temporary file in the same folder,
// synced to disk and renamed over path, the folder synced after: a reader
// sees the old file or the new one, never part, even after a crash. The
// file is its owner's only, and an error names path, not the temporary
// file.
func Write(path string, b []byte) error {
	return write(path, b, 0o600)
}

// Replace is Write for a file a user named: a regular file already at
// path keeps its permission bits, and a new one gets perm, whatever the
// umask. path is no symbolic link (a link would be replaced, not its
// target: see package outfile).
func Replace(path string, b []byte, perm fs.FileMode) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	return write(path, b, perm)
}

// write writes b to path, as Write says, with perm.
func write(path string, b []byte, perm fs.FileMode) (err error) {
	defer func() {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
		}
	}()
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if err == nil && perm != 0o600 {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		// Without it, a crash soon after the rename may leave path
		// empty: the rename can reach the disk before the data.
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return syncFolder(dir)
}

// syncFolder syncs the folder dir, so that a rename in it outlives a
// crash. A file system that cannot sync a folder (EINVAL) keeps the rename
// as well as it can.
func syncFolder(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}
