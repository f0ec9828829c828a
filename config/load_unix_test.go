//go:build unix

package config

import (
	"strings"
	"syscall"
	"testing"
)

// TestLoadNamedPipe: a config that is a named pipe is refused, not waited on.
func TestLoadNamedPipe(t *testing.T) {
	home := t.TempDir()
	if err := syscall.Mkfifo(Path(home), 0o644); err != nil {
		t.Fatal(err)
	}
	c, diags := Load(home)
	if c == nil || c.File != "" || len(diags) != 1 || !strings.Contains(diags[0].Message, Path(home)+": it is a named pipe, not a regular file") {
		t.Errorf("%+v, %+v", c, diags)
	}
}
