package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// lookupRunRule runs one rule over the process file at path.
func lookupRunRule(t *testing.T, r *Rule, path string, env *Env) []ir.Diagnostic {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, fe := parse.TOML(path, src)
	if p == nil || ir.HasErrors(fe) {
		t.Fatalf("parse %s: %v", path, fe)
	}
	var diags []ir.Diagnostic
	r.Run(&Pass{Process: p, Env: env, rule: r, diags: &diags, ctx: context.Background()})
	ir.SortDiagnostics(diags)
	return diags
}

// lookupShow renders diagnostics as "line:col rule: message".
func lookupShow(diags []ir.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "%d:%d %s: %s\n", d.Range.Start.Line, d.Range.Start.Column, d.Rule, d.Message)
	}
	return b.String()
}

// lookupParent is a process whose run-published-issue step starts process
// (line 10) and spec_process (line 11); an empty name leaves the key out.
func lookupParent(process, spec string) string {
	s := "version = 1\n\n[[steps]]\nname = \"plan\"\nskill = \"architect\"\n\n[[steps]]\nname = \"start\"\ncatalogue = \"run-published-issue\"\n"
	if process != "" {
		s += fmt.Sprintf("process = %q\n", process)
	}
	if spec != "" {
		s += fmt.Sprintf("spec_process = %q\n", spec)
	}
	return s
}

func TestRuleUnknownProcess(t *testing.T) {
	t.Parallel()
	env, home, _, _ := lookupFolders(t)
	lookupWrite(t, filepath.Join(home, "ticket.toml"), lookupProcessFile)
	lookupWrite(t, filepath.Join(home, "twin.toml"), lookupProcessFile)
	lookupWrite(t, filepath.Join(home, "twin.hcl"), lookupProcessFile)

	file := filepath.Join(t.TempDir(), "parent.toml")
	lookupWrite(t, file, lookupParent("tikcet", "ticket"))
	want := fmt.Sprintf("10:11 unknown-process: no process named \"tikcet\"; looked in %s (did you mean \"ticket\"?)\n", strings.Join(ProcessDirs(env), ", "))
	if got := lookupShow(lookupRunRule(t, ruleUnknownProcess, file, env)); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}

	lookupWrite(t, file, lookupParent("ticket", "twin"))
	got := lookupShow(lookupRunRule(t, ruleUnknownProcess, file, env))
	if !strings.HasPrefix(got, `11:16 unknown-process: process "twin" is ambiguous: `) {
		t.Errorf("got %q; want the ambiguous twin at 11:16", got)
	}
}

func TestRuleProcessCycle(t *testing.T) {
	t.Parallel()
	env, home, _, _ := lookupFolders(t)
	write := func(name, process, spec string) string {
		t.Helper()
		f := filepath.Join(home, name+".toml")
		lookupWrite(t, f, lookupParent(process, spec))
		return f
	}
	a := write("a", "b", "")
	write("b", "", "a")
	self := write("self", "self", "")
	top := write("top", "left", "right")
	write("left", "bottom", "")
	write("right", "", "bottom")
	write("bottom", "", "")
	x := write("x", "y", "")
	write("y", "z", "")
	write("z", "y", "")
	// Formats not readable yet end a chain.
	card := write("card", "later", "")
	lookupWrite(t, filepath.Join(home, "later.procedure.card"), "---\nsteps: []\n---\n")

	for _, tc := range []struct{ file, want string }{
		{a, "10:11 process-cycle: child processes start each other: a → b → a\n"},
		{self, "10:11 process-cycle: child processes start each other: self → self\n"},
		{top, ""},
		{x, "10:11 process-cycle: child processes start each other: x → y → z → y\n"},
		{card, ""},
	} {
		if got := lookupShow(lookupRunRule(t, ruleProcessCycle, tc.file, env)); got != tc.want {
			t.Errorf("%s: got\n%swant\n%s", filepath.Base(tc.file), got, tc.want)
		}
	}

	// The cycle seen from its other end, at spec_process.
	if got := lookupShow(lookupRunRule(t, ruleProcessCycle, filepath.Join(home, "b.toml"), env)); got != "10:16 process-cycle: child processes start each other: b → a → b\n" {
		t.Errorf("b: got %q", got)
	}
}

func TestRuleAmbiguousProcess(t *testing.T) {
	t.Parallel()
	env, home, _, _ := lookupFolders(t)
	toml := filepath.Join(home, "review.toml")
	hcl := filepath.Join(home, "review.hcl")
	lookupWrite(t, toml, lookupProcessFile)
	lookupWrite(t, hcl, lookupProcessFile)
	diags := lookupRunRule(t, ruleAmbiguousProcess, toml, env)
	if len(diags) != 1 {
		t.Fatalf("got %+v; want one diagnostic", diags)
	}
	d := diags[0]
	want := fmt.Sprintf("process \"review\" is ambiguous: %q and %q are in one folder; remove one", toml, hcl)
	if d.Range != ir.FileStart(toml) || d.Message != want || len(d.Related) != 1 || d.Related[0].Range != ir.FileStart(hcl) {
		t.Errorf("got %+v; want %s at 1:1 related to %s", d, want, hcl)
	}

	// A file outside the process folders is simply read by its path.
	other := t.TempDir()
	lookupWrite(t, filepath.Join(other, "twin.toml"), lookupProcessFile)
	lookupWrite(t, filepath.Join(other, "twin.hcl"), lookupProcessFile)
	if diags := lookupRunRule(t, ruleAmbiguousProcess, filepath.Join(other, "twin.toml"), env); len(diags) != 0 {
		t.Errorf("outside the process folders: %+v", diags)
	}
}

func TestRuleSkills(t *testing.T) {
	t.Parallel()
	dir, repo := lookupRepo(t)
	lookupWrite(t, filepath.Join(dir, ".agents/skills/ours/SKILL.md"), "ours\n")
	if err := os.MkdirAll(filepath.Join(dir, ".claude/skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(dir, ".claude/skills/etc")); err != nil {
		t.Fatal(err)
	}
	lookupCommit(t, dir, "skills")
	env := lookupEnv(t, repo, nil)

	file := filepath.Join(t.TempDir(), "p.toml")
	lookupWrite(t, file, `version = 1

[[steps]]
name = "a"
skill = "ours"

[[steps]]
name = "b"
skill = "missing"

[[steps]]
name = "c"
skill = "etc"

[[steps]]
name = "d"
skill = "cairn-bug-hunt"
`)
	got := lookupShow(lookupRunRule(t, ruleSkillNotFound, file, env))
	if !strings.HasPrefix(got, `9:9 skill-not-found: skill "missing" not found; looked in .agents/skills/missing/SKILL.md`) || strings.Count(got, "\n") != 1 {
		t.Errorf("skill-not-found: got %q", got)
	}
	got = lookupShow(lookupRunRule(t, ruleSkillEscapes, file, env))
	want := "13:9 skill-escapes: skill \"etc\" resolves outside the repository: .claude/skills/etc is a symlink that leads to \"/etc\"; a committed skill must stay inside the repository\n"
	if got != want {
		t.Errorf("skill-escapes: got\n%swant\n%s", got, want)
	}
}
