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

// TestReplace holds that a file that exists keeps its mode, and a new one
// gets the mode asked for whatever the umask.
func TestReplace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.sh")
	if err := os.WriteFile(kept, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(kept, 0o640); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want os.FileMode
	}{{kept, 0o640}, {filepath.Join(dir, "new.sh"), 0o755}} {
		if err := Replace(tc.path, []byte("new"), 0o755); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(tc.path)
		if err != nil || fi.Mode().Perm() != tc.want {
			t.Errorf("%s: mode %v, %v; want %v", tc.path, fi.Mode().Perm(), err, tc.want)
		}
		if b, _ := os.ReadFile(tc.path); string(b) != "new" {
			t.Errorf("%s holds %q; want \"new\"", tc.path, b)
		}
	}
}
