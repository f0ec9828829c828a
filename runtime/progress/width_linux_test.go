package progress

import (
	"os"
	"testing"

	"github.com/cairn-dev/cairn/internal/ptytest"
)

// TestTerminalWidth: the width is COLUMNS of the run's environment when
// set, else what the terminal says its size is, else 80 (a terminal of no
// size, or not a terminal).
func TestTerminalWidth(t *testing.T) {
	t.Parallel()
	_, tty := ptytest.Open(t)
	ptytest.SetSize(t, tty, 57, 20)
	if got := terminalWidth(tty, nil); got != 57 {
		t.Errorf("terminalWidth of a 57-column terminal = %d; want 57", got)
	}
	if got := terminalWidth(tty, []string{"COLUMNS=132"}); got != 132 {
		t.Errorf("terminalWidth with COLUMNS=132 = %d; want 132", got)
	}
	ptytest.SetSize(t, tty, 0, 0)
	if got := terminalWidth(tty, []string{"COLUMNS="}); got != 80 {
		t.Errorf("terminalWidth of a terminal of no size = %d; want 80", got)
	}
	dev, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if got := terminalWidth(dev, nil); got != 80 {
		t.Errorf("terminalWidth of %s = %d; want 80", os.DevNull, got)
	}
}
