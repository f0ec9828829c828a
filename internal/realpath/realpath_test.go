package realpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	link := filepath.Join(dir, "link")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
	}{
		{dir, ""},
		{filepath.Join(dir, "missing"), ""},
		{file, "is not a folder"},
		{link, "is a symbolic link"},
	} {
		err := Folder(tc.path)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Folder(%s) = %v; want %q", tc.path, err, tc.want)
		}
	}
}

func TestEntry(t *testing.T) {
	t.Parallel()
	owned, other := t.TempDir(), t.TempDir()
	link := filepath.Join(other, "to-owned")
	if err := os.Symlink(owned, link); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{owned, other} {
		if err := os.Mkdir(filepath.Join(d, "run"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	real, err := Folders([]string{owned, filepath.Join(owned, "missing")})
	if err != nil || len(real) != 1 {
		t.Fatalf("Folders = %v, %v; want the one folder that exists", real, err)
	}
	if info, err := Entry(real, filepath.Join(owned, "run")); err != nil || !info.IsDir() {
		t.Errorf("Entry(owned/run) = %v, %v; want the folder", info, err)
	}
	// Through a link, the parent is still the owned folder.
	if _, err := Entry(real, filepath.Join(link, "run")); err != nil {
		t.Errorf("Entry(link/run) = %v; want it found in the owned folder", err)
	}
	if info, err := Entry(real, link); err == nil {
		t.Errorf("Entry(other/to-owned) = %v; want refused: it lies outside", info)
	} else if !strings.Contains(err.Error(), "is not in a folder gc owns") {
		t.Errorf("Entry(other/to-owned) error = %v", err)
	}
}
