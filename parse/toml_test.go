package parse

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/source/sourcetest"
	"github.com/cairn-dev/cairn/ir"
)

func TestTOMLDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "valid",
			src:  fuzzSeeds[0],
			want: []string{},
		},
		{
			name: "unknown keys everywhere",
			src: `verison = 1
[limits]
repair_cpa = 1
[worktrees.a]
knd = "checkout"
[[steps]]
name = "test"
commnd = "go test"
[steps.precheck]
shell = ["true"]
[steps.validate]
severty = "warn"
[[steps]]
scrpit = "x"
`,
			want: []string{
				`1:1 unknown-key: unknown key "verison" at the top level; did you mean "version"?`,
				`3:1 unknown-key: unknown key "repair_cpa" in [limits]; did you mean "repair_cap"?`,
				`5:1 unknown-key: unknown key "knd" in worktree "a"; did you mean "kind"?`,
				`8:1 unknown-key: unknown key "commnd" in step "test"; did you mean "command"?`,
				`10:1 unknown-key: unknown key "shell" in the precheck of step "test"; did you mean "shells"?`,
				`12:1 unknown-key: unknown key "severty" in the validate of step "test"; did you mean "severity"?`,
				`14:1 unknown-key: unknown key "scrpit" in step 2`,
			},
		},
		{
			name: "access",
			src:  "access = 1\nacess = \"read\"\n[[steps]]\nname = \"a\"\nprompt = \"p\"\naccess = [\"read\"]\naccesss = \"read\"\n",
			want: []string{
				`1:10 type: "access" must be a string, not an integer`,
				`2:1 unknown-key: unknown key "acess" at the top level; did you mean "access"?`,
				`6:10 type: "access" must be a string, not an array`,
				`7:1 unknown-key: unknown key "accesss" in step "a"; did you mean "access"?`,
			},
		},
		{
			name: "budget",
			src:  "[limits]\nbudget_usd = true\nbudget_us = 1\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nbudget_usd = [1]\nbuget_usd = 1\n",
			want: []string{
				`2:14 type: "budget_usd" must be a number, not a boolean`,
				`3:1 unknown-key: unknown key "budget_us" in [limits]; did you mean "budget_usd"?`,
				`7:14 type: "budget_usd" must be a number, not an array`,
				`8:1 unknown-key: unknown key "buget_usd" in step "a"; did you mean "budget_usd"?`,
			},
		},
		{
			name: "the step's name comes after the unknown key",
			src:  "[[steps]]\ncomand = \"x\"\nname = \"late\"\n",
			want: []string{`2:1 unknown-key: unknown key "comand" in step "late"; did you mean "command"?`},
		},
		{
			name: "unknown key in inline tables",
			src:  `steps = [{ name = "a", command = "x" }, { nmae = "b", precheck = { shels = [] } }]`,
			want: []string{
				`1:43 unknown-key: unknown key "nmae" in step 2; did you mean "name"?`,
				`1:68 unknown-key: unknown key "shels" in the precheck of step 2; did you mean "shells"?`,
			},
		},
		{
			name: "dotted unknown key points at its last part",
			src:  "[[steps]]\nname = \"a\"\nprecheck.shellz = []\nenv.A = 1\n",
			want: []string{
				`3:10 unknown-key: unknown key "shellz" in the precheck of step "a"; did you mean "shells"?`,
				`4:9 type: "A" in "env" must be a string, not an integer`,
			},
		},
		{
			name: "types",
			src: `version = "1"
commit = "yes"
description = 3
[limits]
repair_cap = 2.5
self_merge = 0
protected_paths = "x/**"
[worktrees]
a = "throwaway"
b.kind = 1
[[steps]]
name = "t"
max_turns = "30"
optional = "true"
env = "A=1"
precheck = ["x"]
[steps.validate]
shells = ["ok", 1, { a = 1 }]
whys = [[]]
`,
			want: []string{
				`1:11 type: "version" must be an integer, not a string`,
				`2:10 type: "commit" must be a boolean, not a string`,
				`3:15 type: "description" must be a string, not an integer`,
				`5:14 type: "repair_cap" must be an integer, not a float`,
				`6:14 type: "self_merge" must be a boolean, not an integer`,
				`7:19 type: "protected_paths" must be an array of strings, not a string`,
				`9:5 type: worktree "a" must be a table, not a string`,
				`10:10 type: "kind" must be a string, not an integer`,
				`13:13 type: "max_turns" must be an integer, not a string`,
				`14:12 type: "optional" must be a boolean, not a string`,
				`15:7 type: "env" must be a table, not a string`,
				`16:12 type: "precheck" must be a table, not an array`,
				`18:17 type: items of "shells" must be strings, not an integer`,
				`18:20 type: items of "shells" must be strings, not a table`,
				`19:9 type: items of "whys" must be strings, not an array`,
			},
		},
		{
			name: "tables where values go and the reverse",
			src: `[description]
[[limits]]
[[steps]]
name = "a"
[steps.command]
x = 1
[[steps.validate]]
`,
			want: []string{
				`1:1 type: "description" must be a string, not a table`,
				`2:1 type: "limits" must be a table, not an array of tables`,
				`5:1 type: "command" must be a string, not a table`,
				`7:1 type: "validate" must be a table, not an array of tables`,
			},
		},
		{
			name: "steps as a table, steps of scalars",
			src:  "[steps]\nname = \"a\"\n",
			want: []string{`1:1 type: "steps" must be an array of tables ([[steps]]), not a table`},
		},
		{
			name: "steps of scalars",
			src:  "steps = [\"a\", { name = \"b\" }, 3]\n",
			want: []string{
				`1:10 type: step 1 must be a table, not a string`,
				`1:31 type: step 3 must be a table, not an integer`,
			},
		},
		{
			name: "duplicate step names",
			src:  "[[steps]]\nname = \"a\"\n[[steps]]\nname = \"b\"\n[[steps]]\nname = \"a\"\n",
			want: []string{`6:8 duplicate: step "a" is already defined (related 2:8: first defined here)`},
		},
		{
			name: "duplicate step names inline",
			src:  "steps = [{ name = \"a\" }, { name = \"a\" }]\n",
			want: []string{`1:35 duplicate: step "a" is already defined (related 1:19: first defined here)`},
		},
		{
			name: "duplicate key in a step",
			src:  "[[steps]]\nname = \"a\"\ncommand = \"x\"\nname = \"b\"\n",
			want: []string{`4:1 duplicate: key "name" is already defined in this table (related 2:1: first defined here)`},
		},
		{
			name: "duplicate worktree",
			src:  "[worktrees.a]\nkind = \"throwaway\"\n\n[worktrees.a]\nkind = \"checkout\"\n",
			want: []string{`4:12 duplicate: table "worktrees.a" is already defined (related 1:12: first defined here)`},
		},
		{
			name: "duplicate worktree across spellings",
			src:  "worktrees.a.kind = \"throwaway\"\nworktrees.a.kind = \"checkout\"\n",
			want: []string{`2:13 duplicate: key "kind" is already defined in this table (related 1:13: first defined here)`},
		},
		{
			name: "duplicate key in an inline table",
			src:  "[[steps]]\nname = \"a\"\nenv = { A = \"1\", B = \"2\", A = \"3\" }\n",
			want: []string{`3:27 duplicate: key "A" is already defined in this table (related 3:9: first defined here)`},
		},
		{
			name: "syntax error at the parser's position",
			src:  "version = 1\n[[steps]]\nname = \"a\"\ncommand = \"unterminated\n",
			want: []string{`4:24 syntax: basic strings cannot have new lines`},
		},
		{
			name: "syntax error after non-ASCII text",
			src:  "description = \"héllo wörld\" x\n",
			want: []string{`1:29 syntax: expected newline but got U+0078 'x'`},
		},
		{
			name: "syntax error at the end of the file",
			src:  "steps = [",
			want: []string{`1:9 syntax: array is incomplete`},
		},
		{
			name: "syntax error inside a multi-line string",
			src:  "[[steps]]\ncommand = \"\"\"\necho a\necho \\q\n\"\"\"\n",
			want: []string{`4:6 syntax: invalid escape character U+0071 'q'`},
		},
		{
			name: "a table defined by dotted keys, then by a header",
			src:  "limits.repair_cap = 1\n[limits]\n",
			want: []string{`2:2 syntax: table "limits" is defined by dotted keys; it cannot be defined again by a header (related 1:1: first defined here)`},
		},
		{
			name: "appending to a static array",
			src:  "steps = []\n[[steps]]\nname = \"a\"\n",
			want: []string{`2:3 syntax: array "steps" is defined by a value; [[steps]] cannot add to it (related 1:1: first defined here)`},
		},
		{
			name: "a key defined as a value and as a table",
			src:  "[[steps]]\nname = \"a\"\nenv = \"x\"\nenv.A = \"1\"\n",
			want: []string{`4:1 syntax: "env" is already defined as a string, not a table (related 3:1: first defined here)`},
		},
		{
			name: "an inline table extended by a header",
			src:  "[[steps]]\nprecheck = { shells = [] }\n[steps.precheck]\n",
			want: []string{`3:8 syntax: "steps.precheck" is an inline table, complete as written; it cannot be defined again by a header (related 2:1: first defined here)`},
		},
		{
			name: "a syntax error hides the other refusals",
			src:  "verison = 1\nx = [1,,]\n",
			want: []string{`2:8 syntax: expected value but got U+002C ','`},
		},
		{
			name: "a non-ASCII character at fault",
			src:  "[[steps]]\né = 1\n",
			want: []string{`2:1 syntax: invalid character at start of key: U+00E9 'é'`},
		},
		{
			name: "the end of the file after non-ASCII text",
			src:  "[[steps]]\ncommand = \"ü",
			want: []string{`2:12 syntax: unterminated basic string`},
		},
		{
			name: "non-ASCII before the fault",
			src:  "description = \"日本語\"; \n",
			want: []string{`1:20 syntax: expected newline but got U+003B ';'`},
		},
		{
			name: "non-ASCII key before the fault",
			src:  "[[steps]]\n\"naïve\" = 1\nname = \"ü\"; max_turns = 1\n",
			want: []string{`3:11 syntax: expected newline but got U+003B ';'`},
		},
		{
			name: "non-ASCII key",
			src:  "[[steps]]\n\"naïve\" = 1\n\"nämé\" = \"ü\"\n",
			want: []string{
				`2:1 unknown-key: unknown key "naïve" in step 1`,
				`3:1 unknown-key: unknown key "nämé" in step 1`,
			},
		},
		{
			name: "type error after a multi-line string",
			src:  "[[steps]]\nname = \"é\"\ncommand = '''\nline one ünïcode\nline two'''; \n",
			want: []string{`5:12 syntax: expected newline but got U+003B ';'`},
		},
		{
			name: "type error after a multi-line string and non-ASCII",
			src:  "[[steps]]\ncommand = '''\nline one ünïcode\nline two''' \nmax_turns = \"é\"\nprecheck.whys = [\"ö\", 1]\n",
			want: []string{
				`5:13 type: "max_turns" must be an integer, not a string`,
				`6:23 type: items of "whys" must be strings, not an integer`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := TOML("p.toml", []byte(tc.src))
			sourcetest.CheckDiagnostics(t, "p.toml", []byte(tc.src), diags)
			got := sourcetest.DiagLines(diags)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}

// find returns the range of the n-th (from 1) occurrence of needle in src,
// as span formats it: the way a test names a place without counting.
func find(t *testing.T, src, needle string, n int) string {
	t.Helper()
	return findIn(t, src, needle, n, needle)
}

// findIn returns the range of needle inside the n-th occurrence of context.
func findIn(t *testing.T, src, context string, n int, needle string) string {
	t.Helper()
	off := -1
	for i := 0; i < n; i++ {
		j := strings.Index(src[off+1:], context)
		if j < 0 {
			t.Fatalf("%q occurs fewer than %d times", context, n)
		}
		off += 1 + j
	}
	k := strings.Index(context, needle)
	if k < 0 {
		t.Fatalf("%q is not in %q", needle, context)
	}
	off += k
	start, end := sourcetest.PosOf([]byte(src), off), sourcetest.PosOf([]byte(src), off+len(needle))
	return fmt.Sprintf("%d:%d-%d:%d", start.Line, start.Column, end.Line, end.Column)
}

const positionsFile = `# é à ü: columns count characters
version = 1
description = "Ünïcode — everywhere"
default_worktree = "a"
access = "read"

[limits]
repair_cap = 2
protected_paths = ["migrations/**", ".github/**"]
budget_usd = 4.5

[worktrees.a]
kind = "throwaway"

[worktrees]
b = { kind = "checkout" }
c.kind = "issue-branch"

[[steps]]
name = "hunt"
skill = "bug-hunt"
model = "opus"
access = "write"
budget_usd = 1_000
env = { GOFLAGS = "-count=1", "Z" = "z" }

[steps.precheck]
shells = ['[ -n "$(ls inbox)" ] || exit $CHECK_SKIP']

[ steps . validate ]
severity = "review"

[[steps]]
name = "ünï"
command = """
go test ./..."""
validate = { shells = ["x"] }
precheck.whys = ["w"]

[[steps]]
steps_item = 1
`

func TestTOMLPositions(t *testing.T) {
	src := positionsFile
	p, diags := TOML("p.toml", []byte(src))
	if len(diags) != 1 || diags[0].Rule != ir.RuleUnknownKey {
		t.Fatalf("diagnostics: %v", sourcetest.DiagLines(diags))
	}
	s0, s1, s2 := p.Steps[0], p.Steps[1], p.Steps[2]
	wt := map[string]ir.Worktree{}
	for _, w := range p.Worktrees {
		wt[w.Name] = w
	}
	for _, tc := range []struct {
		what string
		got  ir.Range
		want string
	}{
		{"version key", p.Version.Key, find(t, src, "version", 1)},
		{"version value", p.Version.Range, findIn(t, src, "version = 1", 1, "1")},
		{"description value", p.Description.Range, find(t, src, `"Ünïcode — everywhere"`, 1)},
		{"default_worktree", p.DefaultWorktree.At(), find(t, src, `default_worktree = "a"`, 1)},
		{"access key", p.Access.Key, findIn(t, src, `access = "read"`, 1, "access")},
		{"access value", p.Access.Range, find(t, src, `"read"`, 1)},
		{"limits header", p.Limits.Header, find(t, src, "[limits]", 1)},
		{"repair_cap value", p.Limits.RepairCap.Range, findIn(t, src, "repair_cap = 2", 1, "2")},
		{"protected_paths list", p.Limits.ProtectedPaths.Range, find(t, src, `["migrations/**", ".github/**"]`, 1)},
		{"protected_paths item 2", p.Limits.ProtectedPaths.Value[1].Range, find(t, src, `".github/**"`, 1)},
		{"budget_usd key", p.Limits.BudgetUSD.Key, find(t, src, "budget_usd", 1)},
		{"budget_usd value", p.Limits.BudgetUSD.Range, find(t, src, "4.5", 1)},
		{"worktree a header", wt["a"].Header, find(t, src, "[worktrees.a]", 1)},
		{"worktree a name", wt["a"].NameRange, findIn(t, src, "[worktrees.a]", 1, "a")},
		{"worktree a kind", wt["a"].Kind.Range, find(t, src, `"throwaway"`, 1)},
		{"worktree b header", wt["b"].Header, findIn(t, src, "b = {", 1, "b")},
		{"worktree b kind", wt["b"].Kind.Range, find(t, src, `"checkout"`, 1)},
		{"worktree c header", wt["c"].Header, findIn(t, src, "c.kind", 1, "c")},
		{"worktree c kind key", wt["c"].Kind.Key, findIn(t, src, "c.kind", 1, "kind")},
		{"step 1 header", s0.Header, find(t, src, "[[steps]]", 1)},
		{"step 1 name", s0.Name.Range, find(t, src, `"hunt"`, 1)},
		{"step 1 action", s0.Actions[0].Range, find(t, src, `skill = "bug-hunt"`, 1)},
		{"step 1 model", s0.Actions[0].Keys().Model.Range, find(t, src, `"opus"`, 1)},
		{"step 1 access key", s0.Actions[0].Keys().Access.Key, findIn(t, src, `access = "write"`, 1, "access")},
		{"step 1 access value", s0.Actions[0].Keys().Access.Range, find(t, src, `"write"`, 1)},
		{"step 1 budget_usd key", s0.Actions[0].Keys().BudgetUSD.Key, find(t, src, "budget_usd", 2)},
		{"step 1 budget_usd value", s0.Actions[0].Keys().BudgetUSD.Range, find(t, src, "1_000", 1)},
		{"step 1 env", s0.Keys().Env.Range, find(t, src, `{ GOFLAGS = "-count=1", "Z" = "z" }`, 1)},
		{"step 1 env key Z", s0.Keys().Env.Value[1].Key, find(t, src, `"Z"`, 1)},
		{"step 1 precheck header", s0.Precheck.Header, find(t, src, "[steps.precheck]", 1)},
		{"step 1 precheck shell", s0.Precheck.Shells.Value[0].Range, find(t, src, `'[ -n "$(ls inbox)" ] || exit $CHECK_SKIP'`, 1)},
		{"step 1 validate header", s0.Validate.Header, find(t, src, "[ steps . validate ]", 1)},
		{"step 2 header", s1.Header, find(t, src, "[[steps]]", 2)},
		{"step 2 name", s1.Name.Range, find(t, src, `"ünï"`, 1)},
		{"step 2 action", s1.Actions[0].Range, find(t, src, "command = \"\"\"\ngo test ./...\"\"\"", 1)},
		{"step 2 script", s1.Actions[0].Script.Range, find(t, src, "\"\"\"\ngo test ./...\"\"\"", 1)},
		{"step 2 validate header", s1.Validate.Header, findIn(t, src, "validate = {", 1, "validate")},
		{"step 2 validate shells", s1.Validate.Shells.Range, find(t, src, `["x"]`, 1)},
		{"step 2 precheck header", s1.Precheck.Header, findIn(t, src, "precheck.whys", 1, "precheck")},
		{"step 2 precheck whys key", s1.Precheck.Whys.Key, find(t, src, "whys", 1)},
		{"step 3 header", s2.Header, find(t, src, "[[steps]]", 3)},
		{"unknown key", diags[0].Range, find(t, src, "steps_item", 1)},
	} {
		if got := sourcetest.Span(tc.got); got != tc.want {
			t.Errorf("%s: %s; want %s", tc.what, got, tc.want)
		}
	}
}

func TestTOMLSpans(t *testing.T) {
	type value struct {
		s     string
		spans []ir.Span
	}
	script := func(p *ir.Process) value {
		f := p.Steps[0].Actions[0].Script
		return value{f.Value, f.Spans}
	}
	shell := func(i int) func(p *ir.Process) value {
		return func(p *ir.Process) value {
			f := p.Steps[0].Precheck.Shells.Value[i]
			return value{f.Value, f.Spans}
		}
	}
	for _, tc := range []struct {
		name  string
		src   string
		get   func(*ir.Process) value
		value string
		// needles are texts found verbatim in the value and in the file,
		// with which occurrence in the file is the one they come from.
		needles map[string]int
		// escapes map a decoded escape in the value to the escape
		// sequence in the file (its first occurrence).
		escapes map[string]string
	}{
		{
			name:    "basic string with escapes",
			src:     "[[steps]]\ncommand = \"echo \\\"a\\\"\\tb\\u00e9 c$\\\\x\"\n",
			get:     script,
			value:   "echo \"a\"\tbé c$\\x",
			needles: map[string]int{"echo": 1, "a": 2, "b": 1, " c$": 1, "x": 1},
			escapes: map[string]string{"\t": `\t`, "é": `\u00e9`, "\"a": `\"a`, "\\": `\\`},
		},
		{
			name: "multi-line basic string",
			src: `[[steps]]
command = """
echo one \
    two
echo "three"\n
échø four"""
`,
			get:     script,
			value:   "echo one two\necho \"three\"\n\néchø four",
			needles: map[string]int{"echo one": 1, "two": 1, `echo "three"`: 1, "four": 1},
			escapes: map[string]string{"\n\n": `\n`},
		},
		{
			name: "multi-line literal string",
			src: `[[steps]]
name = "ünï"
command = '''
set -euo pipefail
if [ ; then
  echo "é" # ü
fi'''
`,
			get:     script,
			value:   "set -euo pipefail\nif [ ; then\n  echo \"é\" # ü\nfi",
			needles: map[string]int{"set": 1, "if [": 1, "then": 1, "# ü": 1, "fi": 1},
		},
		{
			name:    "dotted key string",
			src:     "[[steps]]\nenv.A = \"日本\"\ncommand = 'é ü x'\n",
			get:     script,
			value:   "é ü x",
			needles: map[string]int{"é ü": 1, "x": 1},
		},
		{
			name: "array of scripts across lines, first",
			src: `[[steps]]
[steps.precheck]
shells = [
  "true",   # é
  '''
  multi
  ''',
  "a\tb",
  """\
     trimmed"""
]
`,
			get:     shell(0),
			value:   "true",
			needles: map[string]int{"true": 1},
		},
		{
			name:    "array of scripts across lines, multi-line",
			src:     "[[steps]]\nprecheck.shells = [\n  \"true\",   # é\n  '''\n  multi\n  ''',\n]\n",
			get:     shell(1),
			value:   "  multi\n  ",
			needles: map[string]int{"  multi": 1},
		},
		{
			name:    "array of scripts across lines, escape",
			src:     "[[steps]]\nprecheck = { shells = [\"é\", \"a\\tb\"] }\n",
			get:     shell(1),
			value:   "a\tb",
			needles: map[string]int{"a": 1, "b": 1},
		},
		{
			name:    "array of scripts across lines, trimmed",
			src:     "[[steps]]\nprecheck.shells = [\n  \"\"\"\\\n     trimmed\"\"\"\n]\n",
			get:     shell(0),
			value:   "trimmed",
			needles: map[string]int{"trimmed": 1},
		},
		{
			name:    "CRLF line endings",
			src:     "[[steps]]\r\ncommand = \"\"\"\r\necho a\r\necho b\"\"\"\r\n",
			get:     script,
			value:   "echo a\necho b",
			needles: map[string]int{"echo a": 1, "echo b": 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := TOML("p.toml", []byte(tc.src))
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", sourcetest.DiagLines(diags))
			}
			v := tc.get(p)
			if v.s != tc.value {
				t.Fatalf("value %q; want %q", v.s, tc.value)
			}
			sourcetest.CheckSpans(t, source.Text([]byte(tc.src)), v.s, v.spans)
			for needle, n := range tc.needles {
				off := strings.Index(v.s, needle)
				got := ir.PosAt(v.s, v.spans, off)
				want := find(t, string(source.Text([]byte(tc.src))), needle, n)
				if g := fmt.Sprintf("%d:%d", got.Line, got.Column); !strings.HasPrefix(want, g+"-") {
					t.Errorf("PosAt(%q) = %s; want %s", needle, g, want)
				}
			}
			for decoded, escape := range tc.escapes {
				off := strings.Index(v.s, decoded)
				got := ir.PosAt(v.s, v.spans, off)
				want := find(t, tc.src, escape, 1)
				if g := fmt.Sprintf("%d:%d", got.Line, got.Column); !strings.HasPrefix(want, g+"-") {
					t.Errorf("PosAt(%q) = %s; want %s", decoded, g, want)
				}
			}
		})
	}
}

// summary spells the values of p, without ranges, so that two spellings of one
// process compare equal.
func summary(p *ir.Process) string {
	var b strings.Builder
	fmt.Fprintf(&b, "version=%v description=%q default=%q commit=%v expiry=%q/%q",
		p.Version.Value, p.Description.Value, p.DefaultWorktree.Value, p.Commit.Value, p.RunExpiry.Value, p.FailedRunExpiry.Value)
	if p.Access.Set {
		fmt.Fprintf(&b, " access=%q", p.Access.Value)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "limits: set=%v cap=%v self_merge=%v protected=%q",
		p.Limits.Header.IsValid(), p.Limits.RepairCap.Value, p.Limits.SelfMerge.Value, ir.Values(p.Limits.ProtectedPaths))
	if p.Limits.BudgetUSD.Set {
		fmt.Fprintf(&b, " budget=%+v", p.Limits.BudgetUSD.Value)
	}
	b.WriteString("\n")
	for _, w := range p.Worktrees {
		fmt.Fprintf(&b, "worktree %s kind=%q\n", w.Name, w.Kind.Value)
	}
	for _, s := range p.Steps {
		fmt.Fprintf(&b, "step %q desc=%q wt=%q par=%q opt=%v timeout=%q\n",
			s.Name.Value, s.Description.Value, s.Keys().Worktree.Value, s.Keys().Parallel.Value, s.Keys().Optional.Value, s.Keys().Timeout.Value)
		for _, e := range s.Keys().Env.Value {
			fmt.Fprintf(&b, "  env %s=%q\n", e.Name, e.Value)
		}
		for _, a := range s.Actions {
			fmt.Fprintf(&b, "  %s skill=%q prompt=%q script=%q catalogue=%q harness=%q model=%q effort=%q turns=%v process=%q spec=%q",
				a.Kind, a.Keys().Skill.Value, a.Keys().Prompt.Value, a.Script.Value, a.Keys().Catalogue.Value, a.Keys().Harness.Value, a.Keys().Model.Value,
				a.Keys().Effort.Value, a.Keys().MaxTurns.Value, a.Keys().Process.Value, a.Keys().SpecProcess.Value)
			if a.Keys().Access.Set {
				fmt.Fprintf(&b, " access=%q", a.Keys().Access.Value)
			}
			if a.Keys().BudgetUSD.Set {
				fmt.Fprintf(&b, " budget=%+v", a.Keys().BudgetUSD.Value)
			}
			b.WriteString("\n")
		}
		for _, ph := range []*ir.Phase{s.Precheck, s.Validate} {
			if ph != nil {
				fmt.Fprintf(&b, "  %s shells=%q instructions=%q whys=%q severity=%q model=%q\n", ph.Kind,
					ir.Values(ph.Shells), ir.Values(ph.Keys().Instructions), ir.Values(ph.Whys), ph.Severity.Value, ph.Keys().Model.Value)
			}
		}
	}
	return b.String()
}

func TestTOMLSpellings(t *testing.T) {
	const canonical = `version = 1
[limits]
repair_cap = 1
[worktrees.a]
kind = "throwaway"
[worktrees.b]
kind = "checkout"
[[steps]]
name = "one"
command = "x"
env = { GOFLAGS = "-count=1", B = "2" }
[steps.precheck]
shells = ["true"]
[steps.validate]
severity = "warn"
[[steps]]
name = "two"
skill = "s"
`
	for _, tc := range []struct {
		name string
		src  string
	}{
		{"inline everything", `version = 1
limits = { repair_cap = 1 }
worktrees = { a = { kind = "throwaway" }, b = { kind = "checkout" } }
steps = [
  { name = "one", command = "x", env = { GOFLAGS = "-count=1", B = "2" }, precheck = { shells = ["true"] }, validate = { severity = "warn" } },
  { name = "two", skill = "s" },
]
`},
		{"dotted keys", `version = 1
limits.repair_cap = 1
worktrees.a.kind = "throwaway"
worktrees.b.kind = "checkout"
[[steps]]
name = "one"
command = "x"
env.GOFLAGS = "-count=1"
env.B = "2"
precheck.shells = ["true"]
validate.severity = "warn"
[[steps]]
name = "two"
skill = "s"
`},
		{"tables of inline tables", `version = 1
[limits]
repair_cap = 1
[worktrees]
a = { kind = "throwaway" }
b.kind = "checkout"
[[steps]]
name = "one"
command = "x"
[steps.env]
GOFLAGS = "-count=1"
B = "2"
[steps.precheck]
shells = ["true"]
[steps.validate]
severity = "warn"
[[steps]]
name = "two"
skill = "s"
`},
		{"quoted keys and comments", `"version" = 1 # the version
[ limits ]
'repair_cap' = 1
[worktrees."a"]
kind = 'throwaway'
[ worktrees . 'b' ]
"kind" = """checkout"""
[[ steps ]]
name = "one"
command = '''x'''
env = {
  GOFLAGS = "-count=1", # a comment
  B = "2",
}
[steps."precheck"]
shells = [
  "true", # a comment
]
[steps.validate]
severity = "warn"
[[steps]]
name = "two"
skill = "s"
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, diags := TOML("p.toml", []byte(canonical))
			if len(diags) > 0 {
				t.Fatalf("canonical: %v", sourcetest.DiagLines(diags))
			}
			got, diags := TOML("p.toml", []byte(tc.src))
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", sourcetest.DiagLines(diags))
			}
			if g, w := summary(got), summary(want); g != w {
				t.Errorf("got\n%s\nwant\n%s", g, w)
			}
		})
	}
}

func TestTOMLActions(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want string
	}{
		{
			name: "one session",
			src:  "[[steps]]\nname = \"a\"\nharness = \"codex\"\nskill = \"s\"\nmodel = \"m\"\neffort = \"high\"\naccess = \"read\"\nmax_turns = 3\n",
			want: `step "a" desc="" wt="" par="" opt=false timeout=""
  session skill="s" prompt="" script="" catalogue="" harness="codex" model="m" effort="high" turns=3 process="" spec="" access="read"
`,
		},
		{
			name: "none",
			src:  "[[steps]]\nname = \"a\"\nmodel = \"m\"\n",
			want: `step "a" desc="" wt="" par="" opt=false timeout=""
`,
		},
		{
			name: "several, in file order, each with the step's settings",
			src:  "[[steps]]\nprompt = \"p\"\nmodel = \"m\"\ncommand = \"c\"\nprocess = \"x\"\nskill = \"s\"\ncatalogue = \"delivery\"\nspec_process = \"y\"\naccess = \"full\"\n",
			want: `step "" desc="" wt="" par="" opt=false timeout=""
  session skill="" prompt="p" script="" catalogue="" harness="" model="m" effort="" turns=0 process="x" spec="y" access="full"
  command skill="" prompt="" script="c" catalogue="" harness="" model="m" effort="" turns=0 process="x" spec="y" access="full"
  session skill="s" prompt="" script="" catalogue="" harness="" model="m" effort="" turns=0 process="x" spec="y" access="full"
  catalogue skill="" prompt="" script="" catalogue="delivery" harness="" model="m" effort="" turns=0 process="x" spec="y" access="full"
`,
		},
		{
			name: "a step's settings stay with it when it has no action",
			src:  "[[steps]]\nname = \"a\"\nmodel = \"m\"\n[[steps]]\nname = \"b\"\ncommand = \"c\"\n",
			want: `step "a" desc="" wt="" par="" opt=false timeout=""
step "b" desc="" wt="" par="" opt=false timeout=""
  command skill="" prompt="" script="c" catalogue="" harness="" model="" effort="" turns=0 process="" spec=""
`,
		},
		{
			name: "more actions than the room made for them",
			src: "steps = [" + strings.Repeat("{command = \"c\"}, ", 6) +
				"{prompt = \"p\", command = \"d\", skill = \"s\", model = \"m\"}, {command = \"e\"}]\n",
			want: strings.Repeat(`step "" desc="" wt="" par="" opt=false timeout=""
  command skill="" prompt="" script="c" catalogue="" harness="" model="" effort="" turns=0 process="" spec=""
`, 6) + `step "" desc="" wt="" par="" opt=false timeout=""
  session skill="" prompt="p" script="" catalogue="" harness="" model="m" effort="" turns=0 process="" spec=""
  command skill="" prompt="" script="d" catalogue="" harness="" model="m" effort="" turns=0 process="" spec=""
  session skill="s" prompt="" script="" catalogue="" harness="" model="m" effort="" turns=0 process="" spec=""
step "" desc="" wt="" par="" opt=false timeout=""
  command skill="" prompt="" script="e" catalogue="" harness="" model="" effort="" turns=0 process="" spec=""
`,
		},
		{
			name: "env in file order",
			src:  "[[steps]]\ncommand = \"c\"\nenv.Z = \"1\"\nenv.A = \"2\"\nenv.M = \"3\"\n",
			want: `step "" desc="" wt="" par="" opt=false timeout=""
  env Z="1"
  env A="2"
  env M="3"
  command skill="" prompt="" script="c" catalogue="" harness="" model="" effort="" turns=0 process="" spec=""
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := TOML("p.toml", []byte(tc.src))
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", sourcetest.DiagLines(diags))
			}
			got := summary(p)
			got = got[strings.Index(got, "step "):]
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestTOMLBadFields(t *testing.T) {
	p, diags := TOML("p.toml", []byte("version = \"1\"\n[[steps]]\nmax_turns = \"3\"\ncommand = 3\nprecheck.shells = [\"a\", 1]\n"))
	if len(diags) != 4 {
		t.Fatalf("diagnostics: %v", sourcetest.DiagLines(diags))
	}
	v := p.Version
	if !v.Set || !v.Bad || v.Value != 0 || sourcetest.Span(v.Range) != "1:11-1:14" || sourcetest.Span(v.Key) != "1:1-1:8" {
		t.Errorf("version: %+v", v)
	}
	a := p.Steps[0].Actions[0]
	if mt := a.Keys().MaxTurns; !mt.Set || !mt.Bad || mt.Value != 0 {
		t.Errorf("max_turns: %+v", mt)
	}
	if a.Kind != ir.Command || !a.Script.Set || !a.Script.Bad {
		t.Errorf("command: %+v", a)
	}
	shells := p.Steps[0].Precheck.Shells
	if !shells.Set || !shells.Bad || len(shells.Value) != 2 || shells.Value[0].Bad || !shells.Value[1].Bad {
		t.Errorf("shells: %+v", shells)
	}
}

func TestTOMLProcess(t *testing.T) {
	src := []byte("version = 1\n")
	p, _ := TOML("dir/review.toml", src)
	if p.Name != "review" || p.File != "dir/review.toml" || p.Format != ir.TOML || string(p.Source) != string(src) {
		t.Errorf("process: %+v", p)
	}
	if p.Limits.Header.IsValid() || p.Steps != nil || p.Worktrees != nil {
		t.Errorf("absent tables: %+v", p)
	}
}

// TestTOMLStepsInterleaved: a step's tables may follow another table's, and
// steps may be written inline; each is read whole, in file order.
func TestTOMLStepsInterleaved(t *testing.T) {
	src := "[[steps]]\nname = \"a\"\ncommand = \"true\"\n[[steps]]\nname = \"b\"\ncommand = \"false\"\n[limits]\nrepair_cap = 1\n[steps.validate]\nshells = [\"true\"]\n[steps.env]\nX = \"1\"\n"
	p, diags := TOML("x.toml", []byte(src))
	if len(diags) > 0 {
		t.Fatal(sourcetest.DiagLines(diags))
	}
	if len(p.Steps) != 2 || p.Steps[0].Name.Value != "a" || p.Steps[0].Validate != nil || p.Steps[1].Name.Value != "b" ||
		p.Steps[1].Validate == nil || len(p.Steps[1].Validate.Shells.Value) != 1 || len(p.Steps[1].Keys().Env.Value) != 1 || p.Limits.RepairCap.Value != 1 {
		t.Errorf("steps: %+v", p.Steps)
	}
	p, diags = TOML("x.toml", []byte("steps = [{name = \"a\", command = \"true\"}, {name = \"a\", command = \"x\"}, 1]\n"))
	if want := []string{`1:50 duplicate: step "a" is already defined (related 1:18: first defined here)`, `1:71 type: step 3 must be a table, not an integer`}; !slices.Equal(sourcetest.DiagLines(diags), want) || len(p.Steps) != 2 {
		t.Errorf("inline steps: %d steps, %q", len(p.Steps), sourcetest.DiagLines(diags))
	}
}

// TestTOMLStepRoom holds the room made for steps to the headers that start
// a line: a header repeated in a comment or a string makes none, or a small
// file would have a large process held for it.
func TestTOMLStepRoom(t *testing.T) {
	t.Parallel()
	src := "version = 1\n[[steps]]\ncommand = \"echo '[[steps]]'\"\n# " + strings.Repeat("[[steps]]", 10000) + "\n[[steps]]\ncommand = \"true\"\n"
	p, diags := TOML("p.toml", []byte(src))
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", sourcetest.DiagLines(diags))
	}
	if len(p.Steps) != 2 || cap(p.Steps) != 2 {
		t.Errorf("%d steps in room for %d; want 2 in room for 2", len(p.Steps), cap(p.Steps))
	}
}
