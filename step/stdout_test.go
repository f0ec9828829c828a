package step

import (
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testwait"
)

// TestFileOut holds a session's stdout file to what the trace and the turn
// watcher need: what the CLI writes reaches them while it runs, all of it
// once it has ended (a last line with no newline, and more than the copy
// buffer), and no file is left behind.
func TestFileOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var got lockedBuffer
	o, err := newFileOut(dir, &got)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.File.WriteString("first line\n"); err != nil {
		t.Fatal(err)
	}
	if !testwait.Until(func() bool { return string(got.Bytes()) == "first line\n" }) {
		t.Fatalf("what the CLI wrote did not come while it ran: %q", got.Bytes())
	}
	big := strings.Repeat("x", 300<<10)
	if _, err := o.File.WriteString(big + "\nlast, no newline"); err != nil {
		t.Fatal(err)
	}
	o.close()
	if want := "first line\n" + big + "\nlast, no newline"; string(got.Bytes()) != want {
		t.Errorf("copied %d bytes; want %d, the CLI's all", len(string(got.Bytes())), len(want))
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("left in the trace folder: %v", left)
	}
}
