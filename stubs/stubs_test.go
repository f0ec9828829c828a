package stubs

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/source/sourcetest"
	"github.com/cairn-dev/cairn/ir"
)

func TestReadRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"top-level key", "stub = 1\n", []string{`1:1 unknown-key: unknown key "stub" at the top level of a stubs file; did you mean "stubs"?`}},
		{"not a table", "[stubs]\nfix = 1\n", []string{`2:7 type: stub "fix" must be a table, not an integer`}},
		{"outcome", "[stubs.fix]\noutcome = \"sucess\"\n", []string{`2:11 invalid-value: invalid outcome "sucess"; expected succeeded or failed`}},
		{"verdict", "[stubs.fix]\nverdict = \"maybe\"\n", []string{`2:11 invalid-value: invalid verdict "maybe"; expected pass, fail or none`}},
		{"cause without failure", "[stubs.fix]\ncause = \"x\"\n", []string{`2:1 invalid-value: cause in stub "fix", whose outcome is "succeeded"; a cause goes with outcome = "failed"`}},
		{"result twice", "[stubs.fix]\nresult = \"a\"\nresult_file = \"missing.md\"\n", []string{
			`3:1 invalid-value: stub "fix" has both result and result_file; keep one`,
		}},
		{"absolute result_file", "[stubs.fix]\nresult_file = \"/etc/passwd\"\n", []string{
			`2:15 invalid-value: result_file "/etc/passwd" is an absolute path; name a file inside the repository, relative to this one`,
		}},
		{"attempts beside keys", "[stubs.fix]\nresult = \"a\"\n[[stubs.fix.attempts]]\nresult = \"b\"\n", []string{`2:1 invalid-value: stub "fix" has attempts: write "result" in each attempt, not beside them`}},
		{"attempt key", "[[stubs.fix.attempts]]\nexit = 1\n", []string{`2:1 unknown-key: unknown key "exit" in an attempt of stub "fix"`}},
		{"usage", "[stubs.fix]\nusage = { turns = 1.5, cost_usd = -1, tokens = 3 }\n", []string{
			`2:19 type: "turns" must be an integer, not a float`,
			`2:35 invalid-value: invalid cost_usd -1; write a cost in US dollars, 0 or more`,
			`2:39 unknown-key: unknown key "tokens" in usage`,
		}},
		{"exit type", "[stubs.tests]\nexit = \"1\"\n", []string{`2:8 type: "exit" must be an integer, not a string`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join("testdata", "fix.stubs.toml")
			_, diags := Read(file, []byte(tc.src))
			sourcetest.CheckDiagnostics(t, file, []byte(tc.src), diags)
			if got := sourcetest.DiagLines(diags); !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// plan is a plan of four steps: a command, a session, a session judged
// with review retries, and a catalogue step.
func plan() *ir.Plan {
	return &ir.Plan{Process: "fix", Stages: [][]ir.PlanStep{
		{{Name: "tests", Actions: []ir.PlanAction{{Kind: ir.Command, Command: "go test ./..."}}}},
		{{Name: "hunt-claude", Actions: []ir.PlanAction{{Kind: ir.Session, Prompt: "Hunt."}}}},
		{{Name: "fix", Actions: []ir.PlanAction{{Kind: ir.Session, Prompt: "Fix."}},
			Validate: &ir.PlanPhase{Instructions: []string{"Fixed."}, Severity: ir.SeverityReview}}},
		{{Name: "merge", Actions: []ir.PlanAction{{Kind: ir.Catalogue, Catalogue: "self-merge"}}}},
	}}
}

func TestCheck(t *testing.T) {
	src := `[stubs.hunt-cluade]
[stubs.tests]
stdout = "ok"
[stubs.hunt-claude]
verdict = "pass"
[[stubs.hunt-claude.attempts]]
[[stubs.hunt-claude.attempts]]
[stubs.merge]
usage = { turns = 1 }
[stubs.zzz]
`
	s, diags := Read("x.stubs.toml", []byte(src))
	diags = append(diags, Check(s, plan())...)
	want := []string{
		`1:8 unknown-step: unknown step "hunt-cluade"; did you mean "hunt-claude"?`,
		`2:1 stub-mismatch: stub "tests" of command step "tests" has no exit; add exit = 0 (or the code it should fail with)`,
		`5:1 invalid-value: stub "hunt-claude" has attempts: write "verdict" in each attempt, not beside them`,
		`6:21 stub-mismatch: stub "hunt-claude" has 2 attempts; step "hunt-claude" has no review retries (severity = "review"), so only its first session runs`,
		`9:1 stub-mismatch: key "usage" in stub "merge" of catalogue step "merge"; a stub of it takes result, result_file, outcome or cause`,
		`10:8 unknown-step: unknown step "zzz"; process "fix" has "tests", "hunt-claude", "fix" or "merge"`,
	}
	ir.SortDiagnostics(diags)
	if got := sourcetest.DiagLines(diags); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAnswers(t *testing.T) {
	src := `[stubs.tests]
exit = 1
stdout = "FAIL TestParse"
[[stubs.fix.attempts]]
result = "first"
verdict = "fail"
usage = { turns = 3, cost_usd = 0.5 }
[[stubs.fix.attempts]]
outcome = "failed"
cause = "gave up"
verdict = "none"
[stubs.merge]
outcome = "failed"
`
	s, diags := Read("x.stubs.toml", []byte(src))
	if len(diags) > 0 {
		t.Fatal(sourcetest.DiagLines(diags))
	}
	ctx, inv := context.Background(), harness.Invocation{}
	fix := s.Step("fix")
	if v := fix.Judge().Answer(ctx, inv); !strings.Contains(v.Message, `"verdict":"fail"`) {
		t.Errorf("a judge before any session judges the first attempt: %q", v.Message)
	}
	a := fix.Answer(ctx, inv)
	if a.Message != "first" || a.Failed || a.Usage.Cost() != 0.5 {
		t.Errorf("first session: %+v", a)
	}
	if v := fix.Judge().Answer(ctx, inv); !strings.Contains(v.Message, `"verdict":"fail"`) {
		t.Errorf("first verdict: %q", v.Message)
	}
	for range 2 {
		// The last attempt repeats.
		a = fix.Answer(ctx, inv)
		if !a.Failed || a.Cause != "gave up" || a.Message != Placeholder("fix") {
			t.Errorf("later session: %+v", a)
		}
	}
	if v := fix.Judge().Answer(ctx, inv); strings.Contains(v.Message, `"verdict"`) || v.Failed {
		t.Errorf(`verdict "none" must hold no verdict: %+v`, v)
	}
	if a := s.Step("hunt").Answer(ctx, inv); !a.Failed || a.Cause != `no stub for session step "hunt"` {
		t.Errorf("no stub: %+v", a)
	}
	if r, ok := s.Step("tests").Command(); !ok || !r.Failed || r.ExitCode != 1 || r.Cause != "exit status 1" || r.Result != "FAIL TestParse" {
		t.Errorf("command: %+v %v", r, ok)
	}
	if _, ok := s.Step("lint").Command(); ok {
		t.Error("a command step without a stub runs for real")
	}
	if r := s.Step("merge").Catalogue(); !r.Failed || r.Cause != "the stub's step failed" {
		t.Errorf("catalogue: %+v", r)
	}
	if r := s.Step("deliver").Catalogue(); !r.Failed || !strings.Contains(r.Cause, "never delivers") {
		t.Errorf("catalogue without a stub: %+v", r)
	}
}

// TestFormat checks that a run's copy of its stubs reads back as the same
// stubs, a result_file's text written out.
func TestFormat(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.md"), []byte("line 1\n\"quoted\" \\ tab\t\x7f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `[stubs.tests]
exit = 2
stdout = "x"
[stubs."odd.name"]
result_file = "r.md"
usage = { turns = 1, input_tokens = 2, output_tokens = 3, cache_read_tokens = 4, cache_write_tokens = 5, cost_usd = 0.125 }
[[stubs.fix.attempts]]
outcome = "failed"
cause = "c"
[[stubs.fix.attempts]]
verdict = "none"
`
	s, diags := Read(filepath.Join(dir, "a.stubs.toml"), []byte(src))
	diags = append(diags, s.ReadResults(dir)...)
	if len(diags) > 0 {
		t.Fatal(sourcetest.DiagLines(diags))
	}
	if r := s.Get("odd.name").Attempts[0].Result; !strings.HasPrefix(r, "line 1\n") {
		t.Fatalf("the result_file read as %q", r)
	}
	out := Format(s)
	back, diags := Read(filepath.Join(dir, "copy.toml"), out)
	if len(diags) > 0 {
		t.Fatalf("%s\n%s", sourcetest.DiagLines(diags), out)
	}
	sameStubs(t, s, back)
}

// sameStubs fails unless a and b give the same answers.
func sameStubs(t *testing.T, a, b *Stubs) {
	t.Helper()
	if len(a.Steps) != len(b.Steps) {
		t.Fatalf("%d stubs read back as %d", len(a.Steps), len(b.Steps))
	}
	for i, x := range a.Steps {
		y := b.Steps[i]
		if x.Step != y.Step || x.Exit.Value != y.Exit.Value || x.Stdout.Value != y.Stdout.Value || len(x.Attempts) != len(y.Attempts) {
			t.Fatalf("stub %q read back as %q", x.Step, y.Step)
		}
		for j := range x.Attempts {
			p, q := x.Attempts[j], y.Attempts[j]
			if p.Result != q.Result || p.Outcome.Value != q.Outcome.Value || p.Cause.Value != q.Cause.Value || p.Verdict.Value != q.Verdict.Value || !sameUsage(p.Usage, q.Usage) {
				t.Errorf("attempt %d of %q: %+v read back as %+v", j+1, x.Step, p, q)
			}
		}
	}
}

func sameUsage(a, b ir.Usage) bool {
	eq := func(x, y *int64) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	return eq(a.Turns, b.Turns) && eq(a.InputTokens, b.InputTokens) && eq(a.OutputTokens, b.OutputTokens) &&
		eq(a.CacheReadTokens, b.CacheReadTokens) && eq(a.CacheWriteTokens, b.CacheWriteTokens) &&
		(a.CostUSD == nil) == (b.CostUSD == nil) && (a.CostUSD == nil || *a.CostUSD == *b.CostUSD)
}

func TestReadTest(t *testing.T) {
	src := `process = ""
jobs = -1
budget_usd = 0
stubs = 3
[expect]
status = "ok"
exit = "3"
output_contains = "x"
[expect.steps]
fix = "done"
[expect.what]
`
	_, diags := ReadTest("x.test.toml", []byte(src))
	want := []string{
		`1:11 invalid-value: empty process; name the process to run, or its file`,
		`2:8 invalid-value: invalid jobs -1; want 0 (all at once) or more`,
		`3:14 invalid-value: invalid budget_usd 0; a budget must be more than 0`,
		`4:9 type: "stubs" must be a table, not an integer`,
		`6:10 invalid-value: invalid status "ok"; expected succeeded, failed, inconclusive or interrupted`,
		`7:8 type: "exit" must be an integer, not a string`,
		`8:19 type: "output_contains" must be an array of strings, not a string`,
		`10:7 invalid-value: invalid outcome "done" of step "fix"; expected succeeded, failed, inconclusive, skipped, cancelled or interrupted`,
		`11:9 unknown-key: unknown key "what" in [expect]`,
	}
	if got := sourcetest.DiagLines(diags); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, diags = ReadTest("y.test.toml", []byte("[expect]\n"))
	if got := sourcetest.DiagLines(diags); !slices.Equal(got, []string{`1:1 invalid-value: test file "y.test.toml" names no process; add process = "NAME"`}) {
		t.Errorf("no process: %q", got)
	}
}

// TestReadResults holds that a result_file is read from the stubs file's
// folder when it lies inside the repository, and refused at its value
// otherwise: ../ out of it, a symbolic link out of it, a linked folder that
// leads out; a file that is not there is an error too.
func TestReadResults(t *testing.T) {
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	for name, text := range map[string]string{"repo/fixtures/ok.md": "found two bugs\r\n", "secret.md": "secret"} {
		p := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, dest := range map[string]string{"repo/tests/passwd.md": "/etc/passwd", "repo/tests/up": "../.."} {
		if err := os.MkdirAll(filepath.Join(work, "repo", "tests"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(dest, filepath.Join(work, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	src := `[stubs.ok]
result_file = "../fixtures/ok.md"
[stubs.up]
result_file = "../../secret.md"
[stubs.link]
result_file = "passwd.md"
[[stubs.folder.attempts]]
result = "first"
[[stubs.folder.attempts]]
result_file = "up/secret.md"
[stubs.missing]
result_file = "missing.md"
`
	file := filepath.Join(repo, "tests", "s.stubs.toml")
	s, diags := Read(file, []byte(src))
	if len(diags) > 0 {
		t.Fatal(sourcetest.DiagLines(diags))
	}
	diags = s.ReadResults(repo)
	sourcetest.CheckDiagnostics(t, file, []byte(src), diags)
	realWork, err := filepath.EvalSymlinks(work)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`4:15 invalid-value: cannot read result_file "../../secret.md": it lies outside the repository; name a file inside the repository`,
		`6:15 invalid-value: cannot read result_file "passwd.md": it resolves to "/etc/passwd", outside the repository; name a file inside the repository`,
		`10:15 invalid-value: cannot read result_file "up/secret.md": it resolves to "` + filepath.Join(realWork, "secret.md") + `", outside the repository; name a file inside the repository`,
		`12:15 invalid-value: cannot read result_file "missing.md": no such file or directory`,
	}
	if got := sourcetest.DiagLines(diags); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r := s.Get("ok").Attempts[0].Result; r != "found two bugs\n" {
		t.Errorf("stub ok: result %q; want the file's text", r)
	}
	for _, name := range []string{"up", "link", "missing"} {
		if r := s.Get(name).Attempts[0].Result; r != "" {
			t.Errorf("stub %s: result %q; want nothing read", name, r)
		}
	}
	if r := s.Get("folder").Attempts[1].Result; r != "" {
		t.Errorf("stub folder: second attempt's result %q; want nothing read", r)
	}
}
