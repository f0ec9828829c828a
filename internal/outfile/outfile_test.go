package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteLinks holds that a chain of links that leads nowhere yet makes
// the file at its end, a relative link taken from its own folder and its
// ".." from where a linked folder leads, as the kernel resolves it; and
// that a loop of links is refused.
func TestWriteLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"a/deep", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// b/to-deep leads into a/deep, whose ".." is a, not b.
	links := map[string]string{
		"b/to-deep": "../a/deep",
		"first":     "b/second",
		"b/second":  "to-deep/../made/new.txt",
		"loop":      "loop2",
		"loop2":     "loop",
	}
	for name, dest := range links {
		if err := os.Symlink(dest, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(filepath.Join(dir, "first"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a", "made", "new.txt")); err != nil || string(b) != "x" {
		t.Errorf("a/made/new.txt: %q, %v; want \"x\"", b, err)
	}
	err := Write(filepath.Join(dir, "loop"), []byte("x"), 0o644)
	if !errors.Is(err, syscall.ELOOP) || !strings.HasPrefix(err.Error(), "write "+filepath.Join(dir, "loop")+":") {
		t.Errorf("a loop of links: %v; want ELOOP naming the link", err)
	}
}
