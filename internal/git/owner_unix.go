//go:build unix

package git

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe reports whether the current user owns path (not following a
// last symlink), as git's safe.directory check asks of a repository's
// paths before trusting them.
func ownedByMe(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// device is the device fi lies on, for telling a mount point.
func device(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true
}
