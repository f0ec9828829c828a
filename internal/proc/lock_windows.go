package proc

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// Lock opens path (creating it) and takes an exclusive lock on the whole
// file, with LockFileEx: waiting for it when wait is set, else failing
// with ErrWouldBlock when another open file holds it. The lock lasts while
// the returned file is open.
func Lock(path string, wait bool) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	if err := lockFile(f, flags); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Unlock gives back the lock f holds, then closes f.
func Unlock(f *os.File) error {
	var ol windows.Overlapped
	uerr := windows.UnlockFileEx(windows.Handle(f.Fd()), 0, ^uint32(0), ^uint32(0), &ol)
	return errors.Join(uerr, f.Close())
}

// ErrWouldBlock is the error of a lock another open file holds.
var ErrWouldBlock = windows.ERROR_LOCK_VIOLATION

// Held reports whether another open file holds a lock on path: it takes a
// shared lock for an instant, and gives it back. A missing file is not
// held.
func Held(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	err = lockFile(f, windows.LOCKFILE_FAIL_IMMEDIATELY)
	if errors.Is(err, ErrWouldBlock) {
		f.Close()
		return true, nil
	}
	if err != nil {
		f.Close()
		return false, err
	}
	return false, Unlock(f)
}

// lockFile locks all of f with LockFileEx and flags.
func lockFile(f *os.File, flags uint32) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, ^uint32(0), ^uint32(0), &ol)
}
