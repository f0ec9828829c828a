package main

import "testing"

// TestRunsProcessesOn holds the commands that run processes to the systems
// cairn runs them on: refused on Windows, by name, with what works there.
func TestRunsProcessesOn(t *testing.T) {
	t.Parallel()
	for _, goos := range []string{"linux", "darwin"} {
		if err := runsProcessesOn(goos, "run"); err != nil {
			t.Errorf("%s: %v", goos, err)
		}
	}
	if err := runsProcessesOn("windows", "check"); err != nil {
		t.Errorf("windows, check: %v", err)
	}
	err := runsProcessesOn("windows", "resume")
	want := "cairn resume is not supported on windows: cairn runs processes on linux and macos (check, compile, schema, list and lsp work here)"
	if err == nil || err.Error() != want {
		t.Errorf("windows: %v; want %q", err, want)
	}
}
