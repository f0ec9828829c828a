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
// under its name, its jq defining each function it names once, in text a
// compiled script can hold in single quotes and a workflow in a run step.
func TestAdapters(t *testing.T) {
	r := NewRegistry(nil)
	seen := map[string]bool{}
	for _, a := range append(slices.Clone(builtins), &custom{name: "mybot"}) {
		jq, spec := a.JQ(), a.Spec()
		fns := []string{jq.Final, jq.End}
		if jq.File != "" {
			fns = append(fns, jq.File)
		}
		if spec.TurnEvent != nil {
			fns = append(fns, spec.TurnEvent.JQ)
		}
		for _, fn := range fns {
			fn, _, _ = strings.Cut(fn, "(")
			defs := regexp.MustCompile(`(?m)^def `+regexp.QuoteMeta(fn)+`(\(\$[a-z_]+\))?:`).FindAllString(jq.Defs, -1)
			if seen[fn] || len(defs) != 1 {
				t.Errorf("%s: jq function %q has %d definitions in its jq; another adapter names it too: %v", spec.Name, fn, len(defs), seen[fn])
			}
			seen[fn] = true
		}
		if _, ok := a.(*custom); ok {
			continue
		}
		if h, ok := r.Lookup(spec.Name); !ok || h.FinalJQ() != jq.Final || !h.Builtin {
			t.Errorf("built-in adapter %q is not registered under its name", spec.Name)
		}
	}
	if strings.ContainsRune(FinalJQDefs(), '\'') {
		t.Error("the jq holds a single quote, which ends the script's jq_final")
	}
	if strings.Contains(FinalJQDefs(), "${{") {
		t.Error("the jq holds ${{, which a workflow reads as an expression")
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

// TestJQDefs: a script's jq holds the definitions of the harnesses it runs,
// in FinalJQDefs' order, and all of them make FinalJQDefs.
func TestJQDefs(t *testing.T) {
	r := testRegistry()
	var all []*Harness
	for _, name := range []string{"mybot", "opencode", "gemini", "codex", "claude"} {
		h, ok := r.Lookup(name)
		if !ok {
			t.Fatalf("no harness %q", name)
		}
		all = append(all, h)
	}
	if got := JQDefs(all); got != FinalJQDefs() {
		t.Errorf("JQDefs of every harness is not FinalJQDefs:\n%s", got)
	}
	helpers := jqCode(usageJQ) + jqCode(outputJQ)
	if got := JQDefs(nil); got != helpers {
		t.Errorf("JQDefs of none: %q; want the helpers only", got)
	}
	codex, _ := r.Lookup("codex")
	got := JQDefs([]*Harness{codex, codex})
	if want := helpers + jqCode(codex.jq.Defs); got != want {
		t.Errorf("JQDefs of codex:\n%s\nwant:\n%s", got, want)
	}
	// A script's jq_final: the same, less the usage helpers, which its
	// jq_usage holds once.
	if got, want := AdapterJQDefs([]*Harness{codex}), jqCode(outputJQ)+jqCode(codex.jq.Defs); got != want {
		t.Errorf("AdapterJQDefs of codex:\n%s\nwant:\n%s", got, want)
	}
}
