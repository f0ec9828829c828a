package ir

import "slices"

// The access levels of a session (docs/design.md §4.1), weakest first: what the agent's
// CLI may do, not what it sees.
const (
	// AccessRead reads files and runs read-only commands; it changes
	// nothing.
	AccessRead = "read"
	// AccessWrite edits files and runs any command in its worktree:
	// builds, tests, package managers.
	AccessWrite = "write"
	// AccessFull is no restriction at all, for trusted, disposable
	// machines.
	AccessFull = "full"
)

// Accesses are the access levels, weakest first: their order is
// AccessLevel's.
var Accesses = []string{AccessRead, AccessWrite, AccessFull}

// The accesses of sessions that no key sets: a session step's and a
// delivery's repair session's, and a validate judge's, which reads the
// work and must not change it.
const (
	DefaultAccess = AccessWrite
	JudgeAccess   = AccessRead
)

// AccessLevel returns a's place in Accesses (read 0, write 1, full 2), and
// -1 for a value that is no access level.
func AccessLevel(a string) int { return slices.Index(Accesses, a) }
