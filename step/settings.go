package step

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/tailscale/hujson"
)

// writeSettings makes the settings folder s of a session in dir/home (see
// harness.Settings), from the user's under the folder env's s.Var names,
// else env's HOME, and returns the variable that points the CLI at it.
func writeSettings(dir string, env []string, s *harness.Settings) (string, error) {
	base := proc.Getenv(env, s.Var)
	if base == "" {
		base = proc.Getenv(env, "HOME")
	}
	home := filepath.Join(dir, "home")
	into := filepath.Join(home, s.Dir)
	if err := os.MkdirAll(into, 0o700); err != nil {
		return "", err
	}
	var from string
	if base != "" {
		from = filepath.Join(base, s.Dir)
		for _, k := range s.Keep {
			if err := os.MkdirAll(filepath.Join(from, k), 0o700); err != nil {
				return "", err
			}
		}
		for _, l := range s.Links {
			if _, err := os.Lstat(filepath.Join(base, l)); err != nil {
				continue
			}
			if err := os.Symlink(filepath.Join(base, l), filepath.Join(home, l)); err != nil {
				return "", err
			}
		}
	}
	user := []byte("{}")
	if from != "" {
		entries, err := os.ReadDir(from)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		for _, e := range entries {
			if e.Name() == s.File {
				continue
			}
			if err := os.Symlink(filepath.Join(from, e.Name()), filepath.Join(into, e.Name())); err != nil {
				return "", err
			}
		}
		b, err := os.ReadFile(filepath.Join(from, s.File))
		switch {
		case err == nil:
			user = b
		case !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
	}
	merged, err := mergeSettings(user, []byte(s.Set))
	if err != nil {
		return "", fmt.Errorf("read %s: %v", filepath.Join(from, s.File), err)
	}
	if err := os.WriteFile(filepath.Join(into, s.File), merged, 0o600); err != nil {
		return "", err
	}
	return s.Var + "=" + home, nil
}

// mergeSettings is set, a JSON object, merged over user's settings (JSON
// with comments and trailing commas, or empty) as jq's `*` merges: keys of
// both objects merged again, any other value of set's taking the place of
// user's.
func mergeSettings(user, set []byte) ([]byte, error) {
	var u, s map[string]any
	std, err := hujson.Standardize(user)
	if err != nil {
		return nil, err
	}
	if len(std) == 0 || string(std) == "null" {
		std = []byte("{}")
	}
	if err := json.Unmarshal(std, &u); err != nil {
		return nil, errors.New("the settings are not a JSON object")
	}
	if err := json.Unmarshal(set, &s); err != nil {
		return nil, err
	}
	// As jq -S prints it, which the bash target's twin runs.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(deepMerge(u, s)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// deepMerge is b merged over a, as jq's a * b.
func deepMerge(a, b map[string]any) map[string]any {
	if a == nil {
		a = map[string]any{}
	}
	for k, bv := range b {
		if bm, ok := bv.(map[string]any); ok {
			if am, ok := a[k].(map[string]any); ok {
				a[k] = deepMerge(am, bm)
				continue
			}
		}
		a[k] = bv
	}
	return a
}
