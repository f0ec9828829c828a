package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"mvdan.cc/sh/v3/syntax"
)

// compileWorkflow compiles the case's process in the twin to
// work/NAME.yml with --target github-actions and returns the workflow.
func (w *compileWork) compileWorkflow(t *testing.T, file string) []byte {
	t.Helper()
	base := filepath.Base(file)
	out := filepath.Join(w.work, strings.TrimSuffix(base, ".toml")+".yml")
	stdout, stderr, code := w.run(t, nil, "cairn", "compile", "--target", "github-actions", base, "-o", out)
	if code != 0 || stdout != "" {
		t.Fatalf("cairn compile --target github-actions %s: exit %d\nstdout: %s\nstderr: %s", base, code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("-o wrote %s with mode %v; want 0644", out, fi.Mode().Perm())
	}
	return b
}

// pinnedUses is the only `uses:` a compiled workflow may hold: the three
// actions it needs, each pinned by a full commit SHA.
var pinnedUses = regexp.MustCompile(`^actions/(checkout|upload-artifact|download-artifact)@[0-9a-f]{40}$`)

// ghWorkflow is what the tests read of a compiled workflow.
type ghWorkflow struct {
	Jobs map[string]struct {
		Name  string   `yaml:"name"`
		Needs []string `yaml:"needs"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			If   string            `yaml:"if"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestCompileWorkflowGolden compiles every golden/compile/NAME.toml with
// --target github-actions and compares the workflow with NAME.yml
// (UPDATE_GOLDEN=1 rewrites it). The workflow must read as YAML, use no
// action but the three pinned ones, hold in each run step a script that
// parses as bash and has no "${{", and draw no finding from actionlint,
// which checks every run step with shellcheck.
func TestCompileWorkflowGolden(t *testing.T) {
	actionlint, lookErr := exec.LookPath("actionlint")
	shellcheck, shErr := exec.LookPath("shellcheck")
	for _, file := range compileCases(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".toml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newCompileWork(t, file)
			out := w.compileWorkflow(t, file)
			compareGolden(t, filepath.Join(compileGoldenDir, name+".yml"), out)
			var wf ghWorkflow
			if err := yaml.Unmarshal(out, &wf); err != nil {
				t.Fatalf("%s.yml does not read as YAML: %v", name, err)
			}
			if len(wf.Jobs) == 0 {
				t.Fatalf("%s.yml has no jobs", name)
			}
			for id, job := range wf.Jobs {
				for _, st := range job.Steps {
					if st.Uses != "" && !pinnedUses.MatchString(st.Uses) {
						t.Errorf("job %s uses %q: only actions/checkout, upload-artifact and download-artifact, pinned by commit", id, st.Uses)
					}
					if st.Run == "" {
						continue
					}
					if strings.Contains(st.Run, "${{") {
						t.Errorf("job %s, step %q: its run script holds \"${{\"", id, st.Name)
					}
					if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(st.Run), id+".sh"); err != nil {
						t.Errorf("job %s, step %q: its script does not parse as bash: %v", id, st.Name, err)
					}
				}
			}
			if lookErr != nil || shErr != nil {
				t.Skipf("actionlint or shellcheck is not on PATH (.ci/run installs them): %v %v", lookErr, shErr)
			}
			cmd := exec.Command(actionlint, "-no-color", "-shellcheck="+shellcheck, "-")
			cmd.Stdin = bytes.NewReader(out)
			if b, err := cmd.CombinedOutput(); err != nil || len(b) > 0 {
				t.Errorf("actionlint finds problems in %s.yml (%v):\n%s", name, err, b)
			}
		})
	}
}
