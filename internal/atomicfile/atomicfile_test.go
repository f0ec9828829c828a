package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteNamesPath holds that a write that fails names the file it was
// for, not the temporary file it went through.
func TestWriteNamesPath(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "missing", "result.md")
	err := Write(path, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), path+":") {
		t.Fatalf("Write into a missing folder: %v; want an error naming %s", err, path)
	}
}

// TestWrite holds that the file is written whole, its owner's only, with no
// temporary file left beside it.
func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	if err := Write(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new" {
		t.Fatalf("read %q, %v; want \"new\"", b, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the folder; want the one written", len(entries))
	}
}
