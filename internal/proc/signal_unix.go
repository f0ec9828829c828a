//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// Terminate sends process pid SIGTERM, as Ctrl-C would: ErrNoProcess when
// there is none.
func Terminate(pid int) error {
	err := syscall.Kill(pid, syscall.SIGTERM)
	if errors.Is(err, syscall.ESRCH) {
		return ErrNoProcess
	}
	return err
}
