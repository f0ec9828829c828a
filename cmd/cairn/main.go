// Command cairn turns a declarative process file into a checked plan, and
// runs it.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// earlySignals receives SIGINT and SIGTERM until a command that cleans up
// after itself (run) takes them over.
var earlySignals = make(chan os.Signal, 1)

func main() {
	tuneMemory()
	// check runs harnesses' version commands; an interrupt ends it at once,
	// with the exit code of an interrupted run.
	signal.Notify(earlySignals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-earlySignals
		fmt.Fprintln(os.Stderr, "cairn: interrupted")
		os.Exit(exitInterrupted)
	}()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// tuneMemory sets the garbage collector for a short-lived command unless the
// user set GOGC or GOMEMLIMIT: collect half as often as Go's default (checking
// many files allocates much that dies young), but keep the heap under a soft
// 80 MiB, which a 10,000-step process fits in (SPEC §12).
func tuneMemory() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(80 << 20)
	}
}
