package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestTuneMemory: cairn collects less often than Go's default, and sets no
// soft memory limit, under which a large input made the collector thrash.
func TestTuneMemory(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	gc := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	defer func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
	}()
	tuneMemory()
	if got := debug.SetGCPercent(100); got != 200 {
		t.Errorf("GOGC %d; want 200", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("memory limit %d bytes; want none", got)
	}
}
