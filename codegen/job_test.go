package codegen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
	"mvdan.cc/sh/v3/syntax"
)

// splitJobs parses scripts as the jobs' and splits them.
func splitJobs(t *testing.T, scripts ...string) (*shared, []*syntax.File) {
	t.Helper()
	var files []*syntax.File
	for i, s := range scripts {
		f, _, err := compactScript(fmt.Sprint("job", i), []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	sh, rest, err := sharedScripts(files)
	if err != nil {
		t.Fatal(err)
	}
	return sh, rest
}

// TestSharedScripts shares what every job's script defines alike and no
// script could tell was defined before it: each case's first script and
// second define function f or variable v, and the case says whether it is
// shared.
func TestSharedScripts(t *testing.T) {
	for _, tc := range []struct {
		name, one, two string
		shared         bool
	}{
		{"function alike", "f() { echo a; }\nf", "f() { echo a; }", true},
		{"function in one script", "f() { echo a; }\nf", "echo b", true},
		{"function that differs", "f() { echo a; }", "f() { echo b; }", false},
		{"function defined twice", "f() { echo a; }\nf\nf() { echo b; }", "f() { echo a; }", false},
		{"function defined in a branch", "f() { echo a; }", "if true; then f() { echo a; }; fi", false},
		{"command of its name", "f() { echo a; }", "f x", false},
		{"function with redirections", "f() { echo a; } >&2", "f() { echo a; } >&2", true},
		{"constant alike", "v='a $b'\necho \"$v\"", "v='a $b'\necho \"${v}\"", true},
		{"ansi-c constant", "v=$'a\\n'", "v=$'a\\n'", true},
		{"constant in one script", "v='a'", "echo \"$v\"", false},
		{"constant that differs", "v='a'", "v='b'", false},
		{"value with an expansion", "v=\"$HOME\"", "v=\"$HOME\"", false},
		{"unquoted value", "v=a\\'b\"c\"", "v=a\\'b\"c\"", true},
		{"tilde", "v=~/a", "v=~/a", false},
		{"variable set again", "v='a'\nv+='b'", "v='a'", false},
		{"variable local to a function", "v='a'\ng() { local v; }", "v='a'", false},
		{"variable read into", "v='a'\nread -r v", "v='a'", false},
		{"variable assigned by an expansion", "v='a'\n: \"${v:=b}\"", "v='a'", false},
		{"variable read before it is made", "echo \"$v\"\nv='a'", "v='a'", false},
		{"variable read by a function before it is made", "f() { echo \"$v\"; }\nv='a'", "v='a'", true},
		{"array", "v=(a 'b c')\necho \"${v[@]}\"", "v=(a 'b c')", true},
		{"array with an expansion", "v=(a \"$b\")", "v=(a \"$b\")", false},
		{"array that differs", "v=(a)", "v=(a b)", false},
		{"array with an index", "v=([1]=a)", "v=([1]=a)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh, rest := splitJobs(t, tc.one, tc.two)
			if got := slices.Contains(sh.funcs, "f") || slices.Contains(sh.vars, "v"); got != tc.shared {
				t.Errorf("shared functions %v, variables %v; want f or v shared %v", sh.funcs, sh.vars, tc.shared)
			}
			for i, r := range rest {
				text, err := printShell(r)
				if err != nil {
					t.Fatal(err)
				}
				if tc.shared && (strings.Contains(text, "f() {") || strings.HasPrefix(text, "v=") || strings.Contains(text, "\nv=")) {
					t.Errorf("script %d keeps what is shared:\n%s", i, text)
				}
			}
		})
	}
}

// TestSharedScriptsRun runs each job's script whole, and as a workflow does:
// the shared step (which keeps the definitions in $RUNNER_TEMP), then what
// is left of the job's script, reading them. Both print the same.
func TestSharedScriptsRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip(err)
	}
	common := `set -euo pipefail
greeting='Hello, "$who"'\'' ` + "`x`" + `'
prog=$'line one\nline two\t\\'
say() {
  local who=$1
  printf '%s|%s|%s\n' "$greeting" "$who" "$prog"
  cat <<EOF
here $who
EOF
}
`
	scripts := []string{
		common + "mine() { echo one; }\nsay first\nmine\n",
		common + "mine() { echo two; }\nsay second\nmine\n",
	}
	sh, rest := splitJobs(t, scripts...)
	if !slices.Equal(sh.funcs, []string{"say"}) || !slices.Equal(sh.vars, []string{"greeting", "prog"}) {
		t.Fatalf("shared functions %v, variables %v; want [say], [greeting prog]", sh.funcs, sh.vars)
	}
	lib, err := sharedScript(sh)
	if err != nil {
		t.Fatal(err)
	}
	runner := t.TempDir()
	bash := func(script string) string {
		t.Helper()
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Env = []string{"RUNNER_TEMP=" + runner, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s\nscript:\n%s", err, out, script)
		}
		return string(out)
	}
	for _, step := range lib {
		if out := bash(step); out != "" {
			t.Errorf("the shared step printed %q", out)
		}
	}
	if _, err := os.Stat(filepath.Join(runner, "cairn-functions.sh")); err != nil {
		t.Fatal(err)
	}
	for i, s := range scripts {
		job, err := jobRunScript(fmt.Sprint("job", i), rest[i])
		if err != nil {
			t.Fatal(err)
		}
		if whole, split := bash(s), bash(job); whole != split {
			t.Errorf("job %d prints\n%s\nsplit, and\n%s\nwhole", i, split, whole)
		}
	}
}

// TestSharedScriptSteps splits definitions too long for one run step
// between several, each under maxRunStep: run in order, they keep every
// definition.
func TestSharedScriptSteps(t *testing.T) {
	var script strings.Builder
	const funcs = 40
	for i := range funcs {
		fmt.Fprintf(&script, "f%d() {\n  echo %d %s\n}\n", i, i, strings.Repeat("x", 2<<10))
	}
	sh, _ := splitJobs(t, script.String())
	steps, err := sharedScript(sh)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) < 2 {
		t.Fatalf("%d run steps for %d KiB of functions; want more than one", len(steps), funcs*2)
	}
	runner := t.TempDir()
	for i, step := range steps {
		if len(step) > 64<<10 {
			t.Errorf("run step %d holds %d bytes; actionlint reads none of 64 KiB", i, len(step))
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-c", step)
		cmd.Env = []string{"RUNNER_TEMP=" + runner, "PATH=" + os.Getenv("PATH")}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run step %d: %v\n%s", i, err, out)
		}
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", `source "$RUNNER_TEMP/cairn-functions.sh" && f0 && f`+fmt.Sprint(funcs-1))
	cmd.Env = []string{"RUNNER_TEMP=" + runner, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "0 x") || !strings.Contains(string(out), fmt.Sprintf("\n%d x", funcs-1)) {
		t.Errorf("the kept definitions: %v\n%.200s", err, out)
	}
}

// TestWorkflowSharesOnce compiles a process of many session steps: what
// their scripts share is defined once, in the first job, which keeps it as
// an artifact that every step's job takes, and the workflow stays under the
// size GitHub runs.
func TestWorkflowSharesOnce(t *testing.T) {
	plan := &ir.Plan{
		Process: "many", File: "many.toml",
		Worktrees: []ir.PlanWorktree{{Name: "default", Kind: ir.Throwaway, Implicit: true}},
	}
	const steps = 16
	for i := range steps {
		plan.Stages = append(plan.Stages, []ir.PlanStep{{
			Name: fmt.Sprint("s", i), Worktree: "default",
			Actions: []ir.PlanAction{{Kind: ir.Session, Prompt: "Run the tests, then fix what fails.", Harness: &ir.Setting{Value: []string{"claude", "codex", "gemini"}[i%3]}}},
		}})
	}
	out, diags := Actions(plan, Inputs{})
	if ir.HasErrors(diags) {
		t.Fatal(diags)
	}
	wf := string(out)
	if len(out) > maxWorkflowBytes {
		t.Errorf("the workflow is %d bytes; GitHub runs none over %d", len(out), maxWorkflowBytes)
	}
	if n := strings.Count(wf, "\n      - name: Keep them for the steps' jobs\n"); n != 1 {
		t.Errorf("%d jobs keep the shared definitions; want 1", n)
	}
	if n := strings.Count(wf, "- *take-functions\n"); n != steps-1 {
		t.Errorf("%d jobs take the shared definitions as the first job's step; want %d", n, steps-1)
	}
	for _, def := range []string{"\n          run_session() {\n", "\n          jq_final='\n", "\n          logfmt() {\n"} {
		if n := strings.Count(wf, def); n != 1 {
			t.Errorf("%q is in the workflow %d times; want once", def, n)
		}
	}
	if n := strings.Count(wf, "\n          source \"$RUNNER_TEMP/cairn-functions.sh\"\n"); n != steps {
		t.Errorf("%d scripts read the shared definitions; want %d", n, steps)
	}
}
