//go:build !unix

package git

import "io/fs"

// ownedByMe is false where ownership is not unix's: Find leaves the
// repository to git.
func ownedByMe(string) bool { return false }

// device is unknown where devices are not unix's.
func device(fs.FileInfo) (uint64, bool) { return 0, false }
