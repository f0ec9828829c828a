package main

import (
	"fmt"
	goruntime "runtime"
	"slices"
)

// runsProcesses refuses command when it runs processes (run, resume, test,
// stop) where cairn cannot stop what it starts: on Windows, where check,
// compile, schema, list and lsp work, for editors and CI.
func runsProcesses(command string) error {
	return runsProcessesOn(goruntime.GOOS, command)
}

// runsProcessesOn is runsProcesses on the system goos.
func runsProcessesOn(goos, command string) error {
	if goos != "windows" || !slices.Contains([]string{"run", "resume", "test", "stop"}, command) {
		return nil
	}
	return fmt.Errorf("cairn %s is not supported on windows: cairn runs processes on linux and macos (check, compile, schema, list and lsp work here)", command)
}
