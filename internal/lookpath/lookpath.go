// Package lookpath finds an executable the way a child process's own
// environment would, on the PATH of an environment passed in.
package lookpath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// In finds the executable file names the way the session's own
// environment would: on env's PATH, or, for a name with a slash, relative
// to dir. An env without PATH finds nothing on it.
func In(env []string, dir, file string) (string, error) {
	if strings.Contains(file, "/") {
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		if err := executable(file); err != nil {
			return "", fmt.Errorf("%q: %w", file, err)
		}
		return file, nil
	}
	path, found := "", false
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path, found = v, true
		}
	}
	if found {
		for _, d := range filepath.SplitList(path) {
			if d == "" {
				d = "."
			}
			p := filepath.Join(d, file)
			if executable(p) == nil {
				return filepath.Abs(p)
			}
		}
	}
	return "", fmt.Errorf("%q not found on PATH", file)
}

// executable is nil when path is a file someone may execute.
func executable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return errors.Unwrap(err)
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return errors.New("not an executable file")
	}
	return nil
}
