package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestStaticBuild builds cairn as the README's install line and the bench
// scripts do, with CGO_ENABLED=0, and checks that the binary is static: it
// has no PT_INTERP, the program header naming the dynamic loader that every
// start of a dynamic binary pays for (about 2 ms, a third of checking one
// file). A default build links cairn dynamically wherever a C compiler is
// once a dependency imports os/user or net, as kong does.
func TestStaticBuild(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skipf("reads an ELF binary; GOOS is %s", runtime.GOOS)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "cairn")
	cmd := exec.Command(gobin, "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatalf("CGO_ENABLED=0 go build ./cmd/cairn made a dynamic binary: it names a loader (PT_INTERP)")
		}
	}
}
