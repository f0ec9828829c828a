//go:build unix

package proc

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// Lock opens path (creating it, readable by its owner only) and takes an
// exclusive flock on it: waiting for it when wait is set, else failing with
// ErrWouldBlock when another open file holds it. The lock lasts while the
// returned file is open; the kernel releases it when its process dies, so a
// crashed holder never leaves it held. The file is closed on exec, so the
// processes a run starts do not inherit it.
func Lock(path string, wait bool) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	if err := flockRetry(f, how); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Unlock gives back the lock f holds, then closes f. Closing alone is not
// enough: a process this one is starting holds a copy of every open file
// until it execs, and with it the lock, so a lock released by Close alone
// may stay held for a moment after.
func Unlock(f *os.File) error {
	uerr := flockRetry(f, syscall.LOCK_UN)
	return errors.Join(uerr, f.Close())
}

// ErrWouldBlock is the error of a lock another open file holds.
var ErrWouldBlock = syscall.EWOULDBLOCK

// Held reports whether another open file holds a lock on path: it takes
// a shared lock for an instant, and gives it back. A missing file is not
// held. flock locks belong to open files, so a lock this process holds
// through another file counts as held.
func Held(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	err = flockRetry(f, syscall.LOCK_SH|syscall.LOCK_NB)
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

// flockRetry calls flock(2) on f, again when a signal interrupts it.
func flockRetry(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
