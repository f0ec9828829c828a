package forge

import "os"

// processAlive reports whether a process pid exists: Windows opens a
// handle only to one that does.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
