package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"mvdan.cc/sh/v3/syntax"
)

// compileWorkflow compiles the case's process in the twin to
// work/NAME.yml with --target github-actions and returns the workflow.
func (w *compileWork) compileWorkflow(t *testing.T, file string) []byte {
	t.Helper()
	return w.compileWorkflows(t, file)[strings.TrimSuffix(filepath.Base(file), ".toml")+".yml"]
}

// workflowArgs are the flags a golden compile case's workflow is compiled
// with: the tickets' runs of golden/compile/published.toml one at a time,
// as its script runs them (issueCases), so that they open their pull
// requests in the same order.
var workflowArgs = map[string][]string{"published": {"--jobs", "1"}}

// compileWorkflows compiles the case's process in file with --target
// github-actions (and its workflowArgs) into the twin's work folder, -o
// workflows/NAME.yml, and
// returns every file compile wrote there by name: the workflow, and those
// of the child processes it calls, beside it. Each must have mode 0644.
func (w *compileWork) compileWorkflows(t *testing.T, file string) map[string][]byte {
	t.Helper()
	base := filepath.Base(file)
	dir := filepath.Join(w.work, "workflows")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, strings.TrimSuffix(base, ".toml")+".yml")
	argv := append([]string{"cairn", "compile", "--target", "github-actions", base, "-o", out}, workflowArgs[strings.TrimSuffix(base, ".toml")]...)
	stdout, stderr, code := w.run(t, nil, argv...)
	if code != 0 || stdout != "" {
		t.Fatalf("cairn compile --target github-actions %s: exit %d\nstdout: %s\nstderr: %s", base, code, stdout, stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("-o wrote %s with mode %v; want 0644", path, fi.Mode().Perm())
		}
		files[e.Name()] = b
	}
	if files[filepath.Base(out)] == nil {
		t.Fatalf("cairn compile -o %s wrote no %s", out, filepath.Base(out))
	}
	return files
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
		// Uses is the workflow a job calls: a child process's.
		Uses  string `yaml:"uses"`
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
// --target github-actions and compares the workflow with NAME.yml, and
// those of the child processes it calls with NAME.CHILD.yml
// (UPDATE_GOLDEN=1 rewrites them). Each must be what checkWorkflow holds
// it to, and, in the slow suites, all of them draw no finding from
// actionlint, which checks every run step with shellcheck.
func TestCompileWorkflowGolden(t *testing.T) {
	actionlint, lookErr := exec.LookPath("actionlint")
	shellcheck, shErr := exec.LookPath("shellcheck")
	for _, file := range compileCases(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".toml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newCompileWork(t, file)
			files := w.compileWorkflows(t, file)
			for _, fname := range slices.Sorted(maps.Keys(files)) {
				checkWorkflow(t, fname, files[fname])
			}
			slowSuite(t)
			if lookErr != nil || shErr != nil {
				t.Skipf("actionlint or shellcheck is not on PATH (.ci/run installs them): %v %v", lookErr, shErr)
			}
			// The files in a repository's .github/workflows, where actionlint
			// reads the workflows a job calls.
			lint := t.TempDir()
			var args []string
			for fname, b := range files {
				writeFiles(t, lint, map[string]string{".github/workflows/" + fname: string(b)})
				args = append(args, filepath.Join(".github", "workflows", fname))
			}
			slices.Sort(args)
			cmd := exec.Command(actionlint, append([]string{"-no-color", "-shellcheck=" + shellcheck}, args...)...)
			cmd.Dir = lint
			if b, err := cmd.CombinedOutput(); err != nil || len(b) > 0 {
				t.Errorf("actionlint finds problems in %s (%v):\n%s", strings.Join(args, ", "), err, b)
			}
		})
	}
}

// checkWorkflow holds the compiled workflow out, file fname of
// golden/compile, to its golden file, and to what every compiled workflow
// must be: YAML with jobs, under GitHub's size limit, what its jobs' scripts
// share defined once, least privilege, no action but the three pinned ones,
// and run scripts that parse as bash, with no "${{" in them.
func checkWorkflow(t *testing.T, fname string, out []byte) {
	t.Helper()
	compareGolden(t, filepath.Join(compileGoldenDir, fname), out)
	var wf ghWorkflow
	if err := yaml.Unmarshal(out, &wf); err != nil {
		t.Fatalf("%s does not read as YAML: %v", fname, err)
	}
	if len(wf.Jobs) == 0 {
		t.Fatalf("%s has no jobs", fname)
	}
	if len(out) > maxWorkflowBytes {
		t.Errorf("%s is %d bytes: GitHub runs no workflow over %d", fname, len(out), maxWorkflowBytes)
	}
	checkSharedOnce(t, out, wf)
	checkLeastPrivilege(t, wf)
	for id, job := range wf.Jobs {
		if job.Uses != "" && !calledWorkflow.MatchString(job.Uses) {
			t.Errorf("%s: job %s calls %q: only a child process's workflow beside it", fname, id, job.Uses)
		}
		for _, st := range job.Steps {
			if st.Uses != "" && !pinnedUses.MatchString(st.Uses) {
				t.Errorf("%s: job %s uses %q: only actions/checkout, upload-artifact and download-artifact, pinned by commit", fname, id, st.Uses)
			}
			if st.Run == "" {
				continue
			}
			if len(st.Run) >= maxRunStep {
				t.Errorf("%s: job %s, step %q: its run script is %d bytes; actionlint reads none of %d", fname, id, st.Name, len(st.Run), maxRunStep)
			}
			if strings.Contains(st.Run, "${{") {
				t.Errorf("%s: job %s, step %q: its run script holds \"${{\"", fname, id, st.Name)
			}
			if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(st.Run), id+".sh"); err != nil {
				t.Errorf("%s: job %s, step %q: its script does not parse as bash: %v", fname, id, st.Name, err)
			}
		}
	}
}

// calledWorkflow is the only `uses:` a compiled workflow's job may hold:
// the workflow of a child process, beside it.
var calledWorkflow = regexp.MustCompile(`^\./\.github/workflows/[^/]+\.yml$`)

// checkLeastPrivilege holds a workflow to least privilege: it may read the
// repository's contents, and only jobs that run nothing of the process may
// write: push, issue and release (which take and delete an issue's Claim),
// their contents, the jobs of delivery and self-merge steps, which start no
// agent and hold no agent's key, contents and pull requests, and publish
// jobs, which run nothing but gh, issues.
func checkLeastPrivilege(t *testing.T, wf ghWorkflow) {
	t.Helper()
	if wf.Permissions["contents"] != "read" {
		t.Errorf("the workflow's permissions %v: want contents: read", wf.Permissions)
	}
	for id, job := range wf.Jobs {
		delivers, agents, publishes := false, false, false
		for _, st := range job.Steps {
			delivers = delivers || strings.Contains(st.Run, "catalogue_delivery") || strings.Contains(st.Run, "catalogue_self_merge")
			publishes = publishes || st.Name == "Publish what the step's sessions asked gh to"
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
			// A job that calls a child's workflow gives its jobs what they
			// ask for, and none gets more than its own asks: the called
			// workflow is held to this too.
			case job.Uses != "" && (scope == "contents" || scope == "pull-requests" || scope == "issues"):
			case delivers && !agents && (scope == "contents" || scope == "pull-requests"):
			// A publish job runs no agent, nor the step's script: it does
			// what the step's sessions asked gh to.
			case publishes && !agents && !delivers && scope == "issues" && strings.HasSuffix(id, "_publish"):
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
		if job.Uses != "" {
			// It calls a child's workflow, which has its own.
			continue
		}
		if strings.HasSuffix(id, "_publish") {
			// It publishes what a step's sessions asked gh to, and runs
			// no step's script.
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
