// Package outfile writes what a command was asked to write to a file the
// user named (-o FILE) where the name points: through a symbolic link to
// its target, into a character device or a named pipe as a plain write,
// and over a regular file, or as a new one, whole or not at all.
package outfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cairn-dev/cairn/internal/atomicfile"
)

// maxLinks is how many symbolic links Write follows in a row, as Linux's
// own limit, before it refuses the name as a loop.
const maxLinks = 40

// Write writes b to the file path names. A symbolic link is followed, and
// stays a link: its target is written. A character device (/dev/null, a
// terminal) or a named pipe is opened for writing and written, neither
// truncated nor replaced. A regular file is replaced whole through
// atomicfile.Replace, keeping its mode; a new file gets perm, the folders
// on its way that do not exist 0755. A folder, or anything else, is
// refused. Errors are *fs.PathError naming path, whose Err says why.
func Write(path string, b []byte, perm fs.FileMode) error {
	fail := func(err error) error {
		if err == nil {
			return nil
		}
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err
		}
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		target, err := newTarget(path)
		if err != nil {
			return fail(err)
		}
		dir, base := split(target)
		if base == "" || base == "." || base == ".." {
			return fail(errors.New("it is a folder; name a file"))
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fail(err)
		}
		// The temporary file goes in the folder the name leads to.
		if dir, err = filepath.EvalSymlinks(dir); err != nil {
			return fail(err)
		}
		return fail(atomicfile.Replace(filepath.Join(dir, base), b, perm))
	}
	if err != nil {
		return fail(err)
	}
	switch m := fi.Mode(); {
	case m.IsDir():
		return fail(errors.New("it is a folder; name a file"))
	case m&fs.ModeCharDevice != 0, m&fs.ModeNamedPipe != 0:
		return fail(writeInto(path, b))
	case m.IsRegular():
		// The kernel follows the links of a name as it opens it; the
		// rename needs the name the file really has.
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return fail(err)
		}
		return fail(atomicfile.Replace(real, b, perm))
	case m&fs.ModeSocket != 0:
		return fail(errors.New("it is a socket; name a file, a character device or a named pipe"))
	case m&fs.ModeDevice != 0:
		return fail(errors.New("it is a block device; name a file, a character device or a named pipe"))
	default:
		return fail(errors.New("it is not a regular file; name a file, a character device or a named pipe"))
	}
}

// writeInto writes b to the character device or named pipe at path as a
// shell's > does, without truncating or replacing it. A named pipe waits
// for its reader.
func writeInto(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// newTarget is where a file named path that does not exist is made: path
// itself, or the end of the symbolic links path starts, a link that leads
// nowhere yet. A relative link is taken from its own folder, as the kernel
// takes it: its ".." goes up from where the folders on the way lead, so
// the name is joined, never cleaned.
func newTarget(path string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			// Stat found nothing, Lstat something: it changed
			// meanwhile.
			return "", errors.New("it changed while cairn wrote it")
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Dir(path) + string(filepath.Separator) + dest
		}
		path = dest
	}
	return "", syscall.ELOOP
}

// split cuts path at its last separator into its folder and its last
// name, neither cleaned: a cleaned folder would drop a ".." that goes up
// from where a link leads.
func split(path string) (dir, base string) {
	i := strings.LastIndexByte(path, filepath.Separator)
	switch {
	case i < 0:
		return ".", path
	case i == 0:
		return path[:1], path[1:]
	}
	return path[:i], path[i+1:]
}
