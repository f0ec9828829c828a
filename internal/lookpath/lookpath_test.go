package lookpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "tool")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env        []string
		file, want string
		err        string
	}{
		{env: []string{"PATH=/nowhere:" + dir}, file: "tool", want: exe},
		{env: []string{"PATH=" + dir, "PATH=/nowhere"}, file: "tool", err: `"tool" not found on PATH`},
		{env: []string{"HOME=/"}, file: "tool", err: `"tool" not found on PATH`},
		{env: []string{"PATH=" + dir}, file: "plain", err: `"plain" not found on PATH`},
		{file: "./tool", want: exe},
		{file: exe, want: exe},
		{file: "./plain", err: "not an executable file"},
		{file: "./missing", err: "no such file or directory"},
	} {
		got, err := In(tc.env, dir, tc.file)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("In(%q, %q) error %v; want %q", tc.env, tc.file, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("In(%q, %q) = %q, %v; want %q", tc.env, tc.file, got, err, tc.want)
		}
	}
}
