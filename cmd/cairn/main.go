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
// user set GOGC: collect half as often as Go's default, since checking many
// files allocates much that dies young. It sets no memory limit: a soft limit
// below what a large input needs makes the collector run without end.
func tuneMemory() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
}
