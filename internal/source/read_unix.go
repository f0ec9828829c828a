//go:build unix

package source

import "syscall"

// openFlags open a file without waiting for a writer of a named pipe, and
// without following a last symlink.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
