package harness

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAdapters walks the built-in adapters: names unique, each registered
// under its name, its jq a function of the name it gives that a compiled
// script can hold in single quotes.
func TestAdapters(t *testing.T) {
	r := NewRegistry(nil)
	seen := map[string]bool{}
	for _, a := range append(slices.Clone(builtins), &custom{name: "mybot"}) {
		name, def := a.FinalJQ()
		spec := a.Spec()
		if seen[name] {
			t.Errorf("jq function %q is defined twice", name)
		}
		seen[name] = true
		if !regexp.MustCompile(`^def ` + regexp.QuoteMeta(name) + `:\n(?s:.*);$`).MatchString(def) {
			t.Errorf("%s: FinalJQ does not define %q:\n%s", spec.Name, name, def)
		}
		if strings.ContainsRune(def, '\'') {
			t.Errorf("%s: FinalJQ holds a single quote, which ends the script's jq_final", spec.Name)
		}
		expr, usage := a.UsageJQ()
		fn, _, _ := strings.Cut(expr, "(")
		if seen[fn] || !strings.HasPrefix(usage, "def "+fn+":") && !strings.HasPrefix(usage, "def "+fn+"($paths):") || !strings.HasSuffix(usage, ";") {
			t.Errorf("%s: UsageJQ %q does not define its function once:\n%s", spec.Name, expr, usage)
		}
		seen[fn] = true
		if strings.ContainsRune(usage, '\'') {
			t.Errorf("%s: UsageJQ holds a single quote, which ends the script's jq_final", spec.Name)
		}
		if _, ok := a.(*custom); ok {
			continue
		}
		if h, ok := r.Lookup(spec.Name); !ok || h.FinalJQ() != name || !h.Builtin {
			t.Errorf("built-in adapter %q is not registered under its name", spec.Name)
		}
	}
}

// TestFinalJQ holds each adapter's FinalJQ, which a compiled script reads a
// session with, to what its Final reads from the same output.
func TestFinalJQ(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not on PATH")
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	defs := FinalJQDefs()
	r := testRegistry()
	for i, tc := range finalCases(t) {
		h, _ := r.Lookup(tc.harness)
		last := os.DevNull
		if tc.out.OutputFile != "" {
			last = tc.out.OutputFile
		}
		out := write(strconv.Itoa(i)+".out", tc.out.Stdout)
		errf := write(strconv.Itoa(i)+".err", tc.out.Stderr)
		cmd := exec.Command("jq", "-n", "-c", "--rawfile", "out", out, "--rawfile", "err", errf, "--rawfile", "last", last,
			"--argjson", "rc", strconv.Itoa(tc.out.ExitCode), defs+" "+h.FinalJQ())
		b, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: jq: %v", tc.name, err)
			continue
		}
		var got struct {
			M, C string
			F    bool
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("%s: jq printed %q: %v", tc.name, b, err)
			continue
		}
		if got.M != tc.message || got.C != tc.cause || got.F != tc.failed {
			t.Errorf("%s: jq\n got (%q, %q, %v)\nwant (%q, %q, %v)", tc.name, got.M, got.C, got.F, tc.message, tc.cause, tc.failed)
		}
	}
}
