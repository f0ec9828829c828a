// Command cairn turns a declarative process file into a checked plan, and
// runs it.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/tracing"
)

// earlySignals receives SIGINT and SIGTERM until a command that stops what
// it started (check's preflight, a run) takes them over (interrupts).
var earlySignals = make(chan os.Signal, 1)

func main() {
	tuneMemory()
	// Until then, an interrupt ends cairn at once, with the exit code of an
	// interrupted run.
	signal.Notify(earlySignals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-earlySignals
		fmt.Fprintln(os.Stderr, "cairn: interrupted")
		os.Exit(exitInterrupted)
	}()
	// The one context.Background() and the one reading of the
	// environment: everything below is given them.
	os.Exit(run(context.Background(), os.Args[1:], os.Environ(), os.Stdout, os.Stderr))
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

// interrupts is a context of parent's that SIGINT or SIGTERM ends. It takes
// those signals over from main's handler, which would exit at once: check's
// preflight must end the harness commands it started, and a run must stop
// its steps and clean up first. A second signal cuts the steps' grace
// short (proc.WithKill): they are killed at once, and the run still ends
// interrupted and cleans up; later ones change nothing.
func interrupts(parent context.Context) (context.Context, context.CancelFunc) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	// Only now that sigs hears them does main's handler let go, so no
	// signal falls between the two.
	signal.Stop(earlySignals)
	ctx, cancel := context.WithCancel(parent)
	kill, done := make(chan struct{}), make(chan struct{})
	go func() {
		for n := 1; ; n++ {
			select {
			case <-sigs:
			case <-done:
				return
			}
			switch n {
			case 1:
				cancel()
			case 2:
				close(kill)
			}
		}
	}()
	var once sync.Once
	return proc.WithKill(ctx, kill), func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel()
		})
	}
}

// traced sets up the export of a command's traces when a's environment
// asks for it (package tracing), in a.ctx, and returns what flushes them
// as the command ends, interrupted or failed too, within
// tracing.FlushTimeout.
func traced(a *app) func() {
	ctx, flush := tracing.Start(a.ctx, a.env, a.stderr, version())
	a.ctx = ctx
	return flush
}

// interrupted ends a command whose context an interrupt cancelled: one line
// on stderr, exit 130.
func interrupted(a *app) error {
	fmt.Fprintln(a.stderr, "cairn: interrupted")
	return &exitError{code: exitInterrupted}
}
