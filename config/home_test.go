package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestResolveHome: a relative $CAIRN_HOME is made absolute in the
// environment returned, and the process's own environment is left as it
// was: only main sets that.
func TestResolveHome(t *testing.T) {
	t.Setenv("CAIRN_HOME", "from-the-process")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	env, err := ResolveHome([]string{"HOME=/h", "CAIRN_HOME=rel"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"HOME=/h", "CAIRN_HOME=" + filepath.Join(wd, "rel")}; !slices.Equal(env, want) {
		t.Errorf("ResolveHome = %q; want %q", env, want)
	}
	if got := os.Getenv("CAIRN_HOME"); got != "from-the-process" {
		t.Errorf("ResolveHome set the process's CAIRN_HOME to %q", got)
	}
}

// TestHomeFromEnv: Home reads the environment it is given, never the
// process's.
func TestHomeFromEnv(t *testing.T) {
	t.Setenv("CAIRN_HOME", "/from/the/process")
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"CAIRN_HOME=/a", "CAIRN_HOME=/b"}, "/b"},
		{[]string{"HOME=/h"}, "/h/.cairn"},
		{nil, ".cairn"},
	} {
		if got := Home(tc.env, "/elsewhere", false); got != tc.want {
			t.Errorf("Home(%q) = %q; want %q", tc.env, got, tc.want)
		}
	}
}
