//go:build unix && !linux

package proc

import (
	"errors"
	"os"
	"syscall"
)

// findCgroups finds no cgroup here: a group's processes are found by its
// process group and its step token alone.
func findCgroups() string { return "" }

// newCgroup cannot make a cgroup here.
func newCgroup(string) (*os.File, error) { return nil, errors.ErrUnsupported }

// intoCgroup does nothing here.
func intoCgroup(*syscall.SysProcAttr, *os.File) {}

// cgroupProcs finds no process here.
func cgroupProcs(string) []int { return nil }

// signalCgroup signals nothing here.
func signalCgroup(string, syscall.Signal) []int { return nil }

// killCgroup has nothing to kill here.
func killCgroup(string) error { return nil }

// removeCgroup has nothing to remove here.
func removeCgroup(string) error { return nil }

// recordedCgroup is false here: no cgroup is cairn's.
func recordedCgroup(string, string) bool { return false }
