// Command cairn turns a declarative process file into a checked plan, and
// runs it.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// check runs harnesses' version commands; an interrupt ends it at once,
	// with the exit code of an interrupted run.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		fmt.Fprintln(os.Stderr, "cairn: interrupted")
		os.Exit(exitInterrupted)
	}()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
