package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoCgo fails when cairn's dependencies pull in cgo: a default build
// (cgo on wherever a C compiler is) then links cairn dynamically, and the
// dynamic loader costs every invocation about 2 ms, a third of checking
// one file. os/user and net are the usual way in (kong and cobra's pflag
// import them); runtime/cgo is the symptom.
func TestNoCgo(t *testing.T) {
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	cmd := exec.Command(gobin, "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "runtime/cgo", "os/user", "net":
			t.Errorf("cairn depends on %s: a default build links cairn dynamically, and each run pays for the loader (`go list -deps -f '{{.ImportPath}}: {{.Imports}}' ./cmd/cairn | grep %s` shows what imports it)", pkg, pkg)
		}
	}
}
