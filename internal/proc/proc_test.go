//go:build unix

package proc

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
)

func TestProcExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script string
		code   int
		cause  string
	}{
		{"exit 0", 0, "exit status 0"},
		{"exit 3", 3, "exit status 3"},
		{"kill -KILL $$", -1, "killed by a signal"},
	} {
		p := &Proc{Argv: []string{"bash", "-c", tc.script}, Env: os.Environ()}
		res, err := p.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != tc.code || res.Cause(0) != tc.cause {
			t.Errorf("%q: got %d %q, want %d %q", tc.script, res.ExitCode, res.Cause(0), tc.code, tc.cause)
		}
	}
}

func TestProcNotFound(t *testing.T) {
	t.Parallel()
	p := &Proc{Argv: []string{"/nonexistent/cairn-test"}, Env: os.Environ()}
	if _, err := p.Run(context.Background()); err == nil {
		t.Fatal("want an error for a missing program")
	}
}

// TestProcTimeoutStopsGroup holds that a timeout stops the whole process
// group: the background child the script started is gone too.
func TestProcTimeoutStopsGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	var out bytes.Buffer
	p := &Proc{
		Argv:    []string{"bash", "-c", `sleep 3600 & echo $! > "$1"; echo started; wait`, "bash", pidFile},
		Stdout:  &out,
		Timeout: 200 * time.Millisecond,
		Grace:   100 * time.Millisecond,
		Env:     os.Environ(),
	}
	res, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || !strings.Contains(res.Cause(p.Timeout), "timed out after 200ms") {
		t.Fatalf("got %+v %q", res, res.Cause(p.Timeout))
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// The child was killed; it may linger as a zombie of init only briefly,
	// so poll the kernel rather than sleep a fixed time.
	if !testwait.Until(func() bool { return syscall.Kill(pid, 0) != nil }) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d still alive %s after the group was stopped", pid, testwait.Patience)
	}
}

// syncBuffer is a buffer one goroutine writes while another reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProcContextStops(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	p := &Proc{Argv: []string{"bash", "-c", "trap 'echo term; exit 143' TERM; echo ready; while :; do sleep 0.01; done"}, Stdout: &out, Grace: testwait.Patience, Env: os.Environ()}
	go func() {
		for !strings.Contains(out.String(), "ready") {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	res, err := p.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.ExitCode != 143 {
		t.Fatalf("got %+v, want stopped with exit 143 from the TERM trap", res)
	}
}
