//go:build !unix

package worktree

// noFollow is nothing where open has no such flags: the copy checked the
// file's mode first.
const noFollow = 0
