package workdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPath(t *testing.T) {
	for _, tc := range []struct{ dir, name, want string }{
		{"", "a.toml", "a.toml"},
		{"", "./sub/../a.toml", "./sub/../a.toml"},
		{"", "/abs/a.toml", "/abs/a.toml"},
		{"repo", "a.toml", "repo/a.toml"},
		{"repo", ".", "repo"},
		{"/work/repo", "sub/a.toml", "/work/repo/sub/a.toml"},
		{"/work/repo", "/abs/a.toml", "/abs/a.toml"},
	} {
		if got := Path(tc.dir, tc.name); got != filepath.FromSlash(tc.want) {
			t.Errorf("Path(%q, %q) = %q; want %q", tc.dir, tc.name, got, tc.want)
		}
	}
}

func TestAbs(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, name, want string }{
		{"", "a.toml", filepath.Join(wd, "a.toml")},
		{"repo", "a.toml", filepath.Join(wd, "repo", "a.toml")},
		{"/work/repo", "a.toml", "/work/repo/a.toml"},
		{"/work/repo", "/abs/a.toml", "/abs/a.toml"},
	} {
		if got, err := Abs(tc.dir, tc.name); err != nil || got != tc.want {
			t.Errorf("Abs(%q, %q) = %q, %v; want %q", tc.dir, tc.name, got, err, tc.want)
		}
	}
}
