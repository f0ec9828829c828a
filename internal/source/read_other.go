//go:build !unix

package source

// openFlags are none where named pipes and symlinks are not unix's.
const openFlags = 0
