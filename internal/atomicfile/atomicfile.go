// Package atomicfile writes a file whole or not at all: a reader sees the
// old file or the new one, never part of it.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes b to path through a temporary file in the same folder,
// renamed over path: a reader sees the old file or the new one, never part.
// The file is its owner's only, and an error names path, not the temporary
// file.
func Write(path string, b []byte) (err error) {
	defer func() {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
		}
	}()
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
