//go:build slow

package main

// With the tag slow, the slow suites run.
func init() { slowSuites = true }
