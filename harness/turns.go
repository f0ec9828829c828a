package harness

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// TurnWatch counts a session's turns in its CLI's standard output as it
// arrives, for a CLI with no turn cap of its own (CountsTurns), and calls
// stop, once, when a turn past the cap starts. It is the io.Writer the
// CLI's standard output is copied to, besides the trace.
type TurnWatch struct {
	starts func([]byte) bool
	max    int
	stop   func()

	mu      sync.Mutex
	turns   int
	passed  bool
	pending []byte
}

var _ io.Writer = (*TurnWatch)(nil)

// WatchTurns returns a TurnWatch that calls stop when a session of h starts
// turn max+1; nil when cairn does not count h's turns (its CLI enforces the
// cap, or cairn cannot tell its turns) or max is not positive.
func (h *Harness) WatchTurns(max int, stop func()) *TurnWatch {
	if _, _, ok := h.CountsTurns(); !ok || max <= 0 {
		return nil
	}
	return &TurnWatch{starts: h.startsTurn, max: max, stop: stop}
}

// Write counts the turns that start in the lines of p, keeping an
// unfinished last line for the next call.
func (w *TurnWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, p...)
	for {
		i := bytes.IndexByte(w.pending, '\n')
		if i < 0 {
			break
		}
		w.line(w.pending[:i])
		w.pending = w.pending[i+1:]
	}
	w.pending = bytes.Clone(w.pending)
	return len(p), nil
}

// line counts one line of output.
func (w *TurnWatch) line(b []byte) {
	if w.passed || !w.starts(b) {
		return
	}
	w.turns++
	if w.turns > w.max {
		w.passed = true
		w.stop()
	}
}

// Passed reports whether the session started a turn past its cap, and so
// was stopped.
func (w *TurnWatch) Passed() bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.passed
}

// TurnCause is the cause of a session cairn stopped at its turn cap.
func TurnCause(max int) string {
	return fmt.Sprintf("stopped after %d turns: max_turns is %d", max, max)
}
