//go:build unix

// Command measure runs a command once and prints what it cost, for
// bench/check.sh: its wall time and CPU time (user + system) in nanoseconds
// and its peak resident set size in KiB, on one line. The command's output
// goes to /dev/null; its exit code, when not 0, is measure's, with the
// command's stderr.
//
//	measure CMD [ARG...]
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: measure CMD [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "measure: no resource usage on this system")
		os.Exit(1)
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("%d %d %d\n", wall.Nanoseconds(), cpu.Nanoseconds(), ru.Maxrss)
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		os.Stderr.Write(stderr.Bytes())
		os.Exit(code)
	}
}
