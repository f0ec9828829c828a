// Package ptytest opens pseudo-terminals for tests of what cairn does on a
// terminal.
package ptytest
