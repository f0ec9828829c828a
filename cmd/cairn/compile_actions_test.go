package main

import (
	"bytes"
	"fmt"
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
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Name        string            `yaml:"name"`
		Needs       []string          `yaml:"needs"`
		Permissions map[string]string `yaml:"permissions"`
		Steps       []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			If   string            `yaml:"if"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// workflowRefuses are the golden compile cases the github-actions target
// refuses, with what its refusal says.
var workflowRefuses = map[string]string{
	"published": "catalogue step \"run-published-issue\" cannot be compiled to github-actions",
}

// TestCompileWorkflowGolden compiles every golden/compile/NAME.toml with
// --target github-actions and compares the workflow with NAME.yml
// (UPDATE_GOLDEN=1 rewrites it). The workflow must read as YAML, use no
// action but the three pinned ones, hold in each run step a script that
// parses as bash and has no "${{", and, in the slow suites, draw no
// finding from actionlint, which checks every run step with shellcheck.
func TestCompileWorkflowGolden(t *testing.T) {
	actionlint, lookErr := exec.LookPath("actionlint")
	shellcheck, shErr := exec.LookPath("shellcheck")
	for _, file := range compileCases(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".toml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newCompileWork(t, file)
			if why, ok := workflowRefuses[name]; ok {
				base := filepath.Base(file)
				_, stderr, code := w.run(t, nil, "cairn", "compile", "--target", "github-actions", base, "-o", name+".yml")
				if code != 1 || !strings.Contains(stderr, why) || !strings.Contains(stderr, "[not-compilable]") {
					t.Errorf("cairn compile --target github-actions %s: exit %d\nstderr: %s\nwant exit 1 and a refusal: %s", base, code, stderr, why)
				}
				if _, err := os.Stat(filepath.Join(w.repo, name+".yml")); err == nil {
					t.Errorf("a refused compile wrote %s.yml", name)
				}
				return
			}
			out := w.compileWorkflow(t, file)
			compareGolden(t, filepath.Join(compileGoldenDir, name+".yml"), out)
			var wf ghWorkflow
			if err := yaml.Unmarshal(out, &wf); err != nil {
				t.Fatalf("%s.yml does not read as YAML: %v", name, err)
			}
			if len(wf.Jobs) == 0 {
				t.Fatalf("%s.yml has no jobs", name)
			}
			if len(out) > maxWorkflowBytes {
				t.Errorf("%s.yml is %d bytes: GitHub runs no workflow over %d", name, len(out), maxWorkflowBytes)
			}
			checkSharedOnce(t, out, wf)
			checkLeastPrivilege(t, wf)
			for id, job := range wf.Jobs {
				for _, st := range job.Steps {
					if st.Uses != "" && !pinnedUses.MatchString(st.Uses) {
						t.Errorf("job %s uses %q: only actions/checkout, upload-artifact and download-artifact, pinned by commit", id, st.Uses)
					}
					if st.Run == "" {
						continue
					}
					if len(st.Run) >= maxRunStep {
						t.Errorf("job %s, step %q: its run script is %d bytes; actionlint reads none of %d", id, st.Name, len(st.Run), maxRunStep)
					}
					if strings.Contains(st.Run, "${{") {
						t.Errorf("job %s, step %q: its run script holds \"${{\"", id, st.Name)
					}
					if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(st.Run), id+".sh"); err != nil {
						t.Errorf("job %s, step %q: its script does not parse as bash: %v", id, st.Name, err)
					}
				}
			}
			slowSuite(t)
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

// checkLeastPrivilege holds a workflow to least privilege: it may read the
// repository's contents, and only jobs that run nothing of the process may
// write: push, issue and release (which take and delete an issue's Claim),
// their contents, and the jobs of delivery and self-merge steps,
// which start no agent and hold no agent's key, contents and pull requests.
func checkLeastPrivilege(t *testing.T, wf ghWorkflow) {
	t.Helper()
	if wf.Permissions["contents"] != "read" {
		t.Errorf("the workflow's permissions %v: want contents: read", wf.Permissions)
	}
	for id, job := range wf.Jobs {
		delivers, agents := false, false
		for _, st := range job.Steps {
			delivers = delivers || strings.Contains(st.Run, "catalogue_delivery") || strings.Contains(st.Run, "catalogue_self_merge")
			agents = agents || st.Name == "Install the agent CLIs" || strings.HasPrefix(st.Name, "Keep the agents' keys")
		}
		if agents {
			// An agent's job reads with the workflow's own token: no
			// secret but the agents' keys reaches it.
			for _, st := range job.Steps {
				for k, v := range st.Env {
					if strings.Contains(v, "secrets.") && !strings.HasPrefix(st.Name, "Keep the agents' keys") {
						t.Errorf("job %s runs agents, yet its step %q is given %s: %s", id, st.Name, k, v)
					}
				}
			}
		}
		for scope, level := range job.Permissions {
			switch {
			case level != "write":
			case (id == "push" || id == "issue" || id == "release") && scope == "contents":
			case delivers && !agents && (scope == "contents" || scope == "pull-requests"):
			default:
				t.Errorf("job %s may write %s", id, scope)
			}
		}
	}
}

// maxWorkflowBytes is the largest workflow file GitHub starts runs of.
const maxWorkflowBytes = 500 * 1000

// maxRunStep is the size of a run step actionlint (1.7) never ends on.
const maxRunStep = 64 << 10

// sharedStep is the name of the run steps of the first job, which define
// what the steps' scripts share.
const sharedStep = "Define the functions every step's script shares"

// takeShared is the name of the step of each step's job that takes what
// the first job kept.
const takeShared = "Take the functions every step's script shares"

// checkSharedOnce holds a workflow to defining what its steps' scripts
// share once: in the first job's run steps, which keep it as an artifact;
// every step's job takes it before its step's script, which reads it; and
// each function it defines is defined nowhere else in the file.
func checkSharedOnce(t *testing.T, out []byte, wf ghWorkflow) {
	t.Helper()
	var lib []string
	for id, job := range wf.Jobs {
		switch id {
		case "results", "issue", "push", "release":
			// The last job gathers the run, and pushes its commits in
			// commit mode; the first of a run on an issue checks who
			// started it.
			continue
		case "runtime":
			for _, st := range job.Steps {
				if strings.HasPrefix(st.Name, sharedStep) {
					lib = append(lib, st.Run)
				}
			}
			continue
		}
		at, run := -1, -1
		for i, st := range job.Steps {
			switch {
			case st.Name == takeShared:
				at = i
			case strings.HasPrefix(st.Name, "Run step "), strings.HasPrefix(st.Name, "Run the steps of parallel group "):
				run = i
				if !strings.Contains(st.Run, "\nsource \"$RUNNER_TEMP/cairn-functions.sh\"\n") {
					t.Errorf("job %s: its script does not read the shared definitions", id)
				}
			}
		}
		if at < 0 || run < at {
			t.Errorf("job %s: takes the shared definitions at %d, its step's script at %d; want them taken first", id, at, run)
		}
	}
	if len(lib) == 0 {
		t.Fatal("no shared step")
	}
	text := string(out)
	checkSharedKept(t, lib)
	for _, step := range lib {
		for _, m := range funcDefinition.FindAllStringSubmatch(step, -1) {
			if n := strings.Count(text, "\n          "+m[1]+"() {\n"); n != 1 {
				t.Errorf("function %s is defined %d times in the file; want once", m[1], n)
			}
		}
	}
}

// checkSharedKept runs the shared steps lib, in order, and holds what they
// keep to what they define: a shell that reads the file has the same
// functions, as bash prints them, and the same variables, with the same
// values.
func checkSharedKept(t *testing.T, lib []string) {
	t.Helper()
	runner := t.TempDir()
	const show = `declare -f
for v in ${cairn_shared_variables[@]+"${cairn_shared_variables[@]}"}; do printf '%s=%s\0' "$v" "${!v}"; done
`
	n := 0
	bash := func(script string) string {
		t.Helper()
		// From a file: the shared steps together may pass the 128 KiB
		// an argument may hold (a runner runs each step from a file).
		n++
		file := filepath.Join(t.TempDir(), fmt.Sprintf("script%d.sh", n))
		if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", file)
		cmd.Env = []string{"RUNNER_TEMP=" + runner, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return string(out)
	}
	var names string
	for _, step := range lib {
		if vars := regexp.MustCompile(`(?s)cairn_shared_variables=\((.*?)\)`).FindStringSubmatch(step); vars != nil {
			names += " " + vars[1]
		}
	}
	defined := bash(strings.Join(lib, "") + "cairn_shared_variables=(" + names + ")\n" + show)
	read := `source "$RUNNER_TEMP/cairn-functions.sh"` + "\ncairn_shared_variables=(" + names + ")\n"
	if kept := bash(read + show); kept != defined {
		t.Errorf("the shared steps keep other definitions than they make:\n%s", diffLines(defined, kept))
	}
}

// diffLines is the first line where a and b differ, with its number.
func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: %q, kept as %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines, kept as %d", len(al), len(bl))
}

// funcDefinition finds the functions a script defines at its top level.
var funcDefinition = regexp.MustCompile(`(?m)^([a-z_][a-z0-9_]*)\(\) \{$`)
