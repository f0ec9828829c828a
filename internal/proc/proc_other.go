//go:build unix && !linux

package proc

import "syscall"

// setDeathSignal does nothing where the kernel cannot end a process with its
// parent: what a crashed cairn left is ended by the next (EndGroups).
func setDeathSignal(*syscall.SysProcAttr) {}

// awaitExit cannot wait for a process without reaping it here: the caller
// waits for it with exec.
func awaitExit(int) bool { return false }

// bootID is unknown here.
func bootID() string { return "" }

// procStart is unknown here.
func procStart(int) (uint64, bool) { return 0, false }

// carrying cannot tell the processes carrying a token here.
func carrying(string) []int { return nil }

// processes cannot list the machine's processes here: only process groups
// are ended, not the processes that left them.
func processes(bool) []procInfo { return nil }
