//go:build unix

package worktree

import "syscall"

// noFollow opens the file named, never one a link names, and without
// waiting on a named pipe put in its place.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
