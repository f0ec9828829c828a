package parse

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/source/sourcetest"
	"github.com/cairn-dev/cairn/ir"
)

// hclCanonical is docs/design.md §4.1's example process in HCL: the twin of fuzzSeeds[0].
const hclCanonical = `version           = 1
description       = "Three families hunt bugs; one judges"
default_worktree  = "a"
commit            = false
run_expiry        = "30d"
failed_run_expiry = "90d"
access            = "write"

limits {
  repair_cap      = 2
  self_merge      = false
  protected_paths = ["migrations/**", ".github/**"]
  budget_usd      = 4.50
}

github {
  runs_on         = "ubuntu-latest"
  schedule        = ["0 3 * * 1-5", "*/30 9-17 * * mon-fri"]
  timeout_minutes = 60
}

worktree "a" {
  kind = "throwaway"
}

step "hunt-claude" {
  description = "Hunt for bugs"
  skill       = "bug-hunt"
  harness     = "claude"
  model       = "opus"
  effort      = "high"
  access      = "full"
  max_turns   = 30
  budget_usd  = 1
  worktree    = "a"
  parallel    = "hunt"
  optional    = true
  timeout     = "45m"
  env         = { GOFLAGS = "-count=1" }

  precheck {
    shells = ["[ -n \"$(ls inbox)\" ] || exit $CHECK_SKIP"]
    whys   = ["Nothing in the inbox"]
  }

  validate {
    shells       = ["go test ./..."]
    instructions = ["Every finding names a file and a line."]
    whys         = ["Findings without a place cannot be judged"]
    severity     = "review"
    model        = "balanced"
  }
}
`

// withoutPositions returns a copy of p with every range and span, and the
// file's name, format and bytes, taken out: what a TOML file and its HCL
// twin must agree on.
func withoutPositions(p *ir.Process) ir.Process {
	out := *p
	out.File, out.Format, out.Source = "", "", nil
	v := reflect.ValueOf(&out).Elem()
	clearPositions(v)
	return out
}

var (
	rangeType = reflect.TypeFor[ir.Range]()
	spansType = reflect.TypeFor[[]ir.Span]()
)

// clearPositions zeroes the ranges and spans reachable from v, copying
// slices and pointers on the way so that the original is left alone.
func clearPositions(v reflect.Value) {
	switch {
	case v.Type() == rangeType || v.Type() == spansType:
		v.SetZero()
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			clearPositions(v.Field(i))
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			clearPositions(c.Index(i))
		}
		v.Set(c)
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(v.Elem())
		clearPositions(c.Elem())
		v.Set(c)
	}
}

func TestHCLTwin(t *testing.T) {
	for _, tc := range []struct {
		name, toml, hcl string
	}{
		{name: "docs/design.md §4.1", toml: fuzzSeeds[0], hcl: hclCanonical},
		{
			name: "every kind of step, with the step's settings on each",
			toml: `version = 1
[[steps]]
name = "a"
command = "make"
[[steps]]
name = "b"
prompt = "Fix it."
model = "m"
max_turns = 3
[[steps]]
name = "c"
catalogue = "run-published-issue"
process = "ticket"
spec_process = "spec"
[[steps]]
name = "d"
skill = "s"
command = "c"
`,
			hcl: `version = 1
step "a" {
  command = "make"
}
step "b" {
  prompt    = "Fix it."
  model     = "m"
  max_turns = 3
}
step "c" {
  catalogue    = "run-published-issue"
  process      = "ticket"
  spec_process = "spec"
}
step "d" {
  skill   = "s"
  command = "c"
}
`,
		},
		{
			name: "empty lists and objects",
			toml: "version = 1\n[limits]\nprotected_paths = []\n[[steps]]\nname = \"a\"\ncommand = \"x\"\nenv = {}\n[steps.validate]\nwhys = []\n",
			hcl:  "version = 1\nlimits {\n  protected_paths = []\n}\nstep \"a\" {\n  command = \"x\"\n  env = {}\n  validate {\n    whys = []\n  }\n}\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, tdiags := TOML("p.toml", []byte(tc.toml))
			hp, hdiags := HCL("p.hcl", []byte(tc.hcl))
			if len(tdiags) > 0 || len(hdiags) > 0 {
				t.Fatalf("diagnostics: TOML %v; HCL %v", sourcetest.DiagLines(tdiags), sourcetest.DiagLines(hdiags))
			}
			if hp.Format != ir.HCL || hp.File != "p.hcl" || hp.Name != "p" || string(hp.Source) != tc.hcl {
				t.Errorf("process: %q %q %q", hp.Format, hp.File, hp.Name)
			}
			if got, want := withoutPositions(hp), withoutPositions(tp); !reflect.DeepEqual(got, want) {
				t.Errorf("HCL\n%s\nTOML\n%s", summary(&got), summary(&want))
				t.Errorf("HCL  %+v\nTOML %+v", got, want)
			}
		})
	}
}

func TestHCLDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "valid",
			src:  hclCanonical,
			want: []string{},
		},
		{
			name: "unknown attributes and blocks everywhere",
			src: `verison = 1
limits {
  repair_cpa = 1
  self_merge {}
}
worktree "a" {
  knd = "checkout"
}
step "test" {
  commnd = "go test"
  precheck {
    shell = ["true"]
  }
  valdate {}
  name = "test"
}
stpe "x" {}
worktrees {}
`,
			want: []string{
				`1:1 unknown-key: unknown attribute "verison" at the top level; did you mean "version"?`,
				`3:3 unknown-key: unknown attribute "repair_cpa" in limits; did you mean "repair_cap"?`,
				`4:3 type: "self_merge" must be an attribute, self_merge = …, not a block`,
				`7:3 unknown-key: unknown attribute "knd" in worktree "a"; did you mean "kind"?`,
				`10:3 unknown-key: unknown attribute "commnd" in step "test"; did you mean "command"?`,
				`12:5 unknown-key: unknown attribute "shell" in the precheck of step "test"; did you mean "shells"?`,
				`14:3 unknown-key: unknown block "valdate" in step "test"; did you mean "validate"?`,
				`15:3 unknown-key: unknown attribute "name" in step "test"; a step's name is its block's label: step "NAME" { … }`,
				`17:1 unknown-key: unknown block "stpe" at the top level; did you mean "step"?`,
				`18:1 unknown-key: unknown block "worktrees" at the top level; did you mean "worktree"?`,
			},
		},
		{
			name: "access",
			src:  "access = 1\nacess = \"read\"\naccess {}\nstep \"a\" {\n  prompt = \"p\"\n  access = [\"read\"]\n  accesss = \"read\"\n}\n",
			want: []string{
				`1:10 type: "access" must be a string, not a number`,
				`2:1 unknown-key: unknown attribute "acess" at the top level; did you mean "access"?`,
				`3:1 type: "access" must be an attribute, access = …, not a block`,
				`6:12 type: "access" must be a string, not a list`,
				`7:3 unknown-key: unknown attribute "accesss" in step "a"; did you mean "access"?`,
			},
		},
		{
			name: "budget",
			src:  "limits {\n  budget_usd = true\n  budget_us = 1\n}\nstep \"a\" {\n  prompt = \"p\"\n  budget_usd = [1]\n  buget_usd = 1\n}\n",
			want: []string{
				`2:16 type: "budget_usd" must be a number, not a boolean`,
				`3:3 unknown-key: unknown attribute "budget_us" in limits; did you mean "budget_usd"?`,
				`7:16 type: "budget_usd" must be a number, not a list`,
				`8:3 unknown-key: unknown attribute "buget_usd" in step "a"; did you mean "budget_usd"?`,
			},
		},
		{
			name: "wrong types",
			src: `version = "1"
commit = "no"
limits {
  repair_cap = 2.5
  protected_paths = "a/**"
}
step "a" {
  max_turns = 99999999999999999999
  optional = null
  env = { A = 1, B = "b" }
  validate {
    shells = ["true", false, ["x"]]
  }
}
`,
			want: []string{
				`1:11 type: "version" must be an integer, not a string`,
				`2:10 type: "commit" must be a boolean, not a string`,
				`4:16 type: "repair_cap" must be an integer, not a fractional number`,
				`5:21 type: "protected_paths" must be a list of strings, not a string`,
				`8:15 type: "max_turns" is too large`,
				`9:14 type: "optional" must be a boolean, not null`,
				`10:15 type: "A" in "env" must be a string, not a number`,
				`12:23 type: items of "shells" must be strings, not a boolean`,
				`12:30 type: items of "shells" must be strings, not a list`,
			},
		},
		{
			name: "blocks and attributes swapped",
			src: `version = 1
limits = {}
worktree = { a = { kind = "checkout" } }
step "a" {
  command {}
  env {}
  validate = { shells = [] }
}
step = {}
version {}
`,
			want: []string{
				`2:1 type: "limits" must be a block, limits { … }, not an attribute`,
				`3:1 type: "worktree" must be a block, worktree "NAME" { … }, not an attribute`,
				`5:3 type: "command" must be an attribute, command = …, not a block`,
				`6:3 type: "env" must be an attribute, env = …, not a block`,
				`7:3 type: "validate" must be a block, validate { … }, not an attribute`,
				`9:1 type: "step" must be a block, step "NAME" { … }, not an attribute`,
				`10:1 type: "version" must be an attribute, version = …, not a block`,
			},
		},
		{
			name: "labels",
			src: `version = 1
limits "x" {}
worktree {}
worktree "a" "b" {
  kind = "checkout"
}
step {
  command = "x"
}
step "s" "t" {
  command = "x"
  validate "v" {}
}
`,
			want: []string{
				`2:8 type: a limits block takes no label: limits { … }`,
				`3:1 type: a worktree block needs a label, its name: worktree "NAME" { … }`,
				`4:14 type: a worktree block takes one label, its name: worktree "NAME" { … }`,
				`7:1 type: a step block needs a label, its name: step "NAME" { … }`,
				`10:10 type: a step block takes one label, its name: step "NAME" { … }`,
				`12:12 type: a validate block takes no label: validate { … }`,
			},
		},
		{
			name: "duplicates",
			src: `version = 1
version = 2
limits {}
limits {}
worktree "a" {
  kind = "throwaway"
}
worktree a {
  kind = "checkout"
}
step "x" {
  command = "a"
  command = "b"
  env = { A = "1", "A" = "2" }
  precheck {}
  precheck {}
}
step "x" {
  command = "c"
}
step "" {
  command = "d"
}
step "" {
  command = "e"
}
`,
			want: []string{
				`2:1 duplicate: attribute "version" is already defined at the top level (related 1:1: first defined here)`,
				`4:1 duplicate: block "limits" is already defined (related 3:1: first defined here)`,
				`8:10 duplicate: worktree "a" is already defined (related 5:10: first defined here)`,
				`13:3 duplicate: attribute "command" is already defined in this block (related 12:3: first defined here)`,
				`14:20 duplicate: key "A" is already defined in this object (related 14:11: first defined here)`,
				`16:3 duplicate: block "precheck" is already defined (related 15:3: first defined here)`,
				`18:6 duplicate: step "x" is already defined (related 11:6: first defined here)`,
			},
		},
		{
			name: "a redefined attribute inside a block cairn does not know",
			src:  "version = 1\ndescription = \"d\"\nother {\n  description = 1\n  description = 2\n}\n",
			want: []string{
				`3:1 unknown-key: unknown block "other" at the top level`,
				`5:3 duplicate: attribute "description" is already defined in this block (related 4:3: first defined here)`,
			},
		},
		{
			name: "expressions that are not literals",
			src: `version = 1 + 0
description = upper("x")
default_worktree = a
run_expiry = local.expiry
failed_run_expiry = (true ? "1d" : "2d")
limits {
  protected_paths = [for p in paths : p]
  self_merge = !true
  repair_cap = -2
}
step "a" {
  command = "echo ${HOME} ${~ x ~} $${USER} %{ for x in y }${x}%{ endfor }"
  env = { (k) = "v", a.b = "c", D = d, "E" = "${e}" }
  prompt = <<-EOT
    one
    ${two}
    %%{ three
  EOT
  skill = "${a}"
  timeout = xs[0]
}
`,
			want: []string{
				`1:11 hcl-expression: an operation is not a literal; a process file takes literal values only`,
				`2:15 hcl-expression: a call of function "upper" is not a literal; a process file takes literal values only`,
				`3:20 hcl-expression: variable "a" is not a literal; did you mean the string "a"?`,
				`4:14 hcl-expression: a reference is not a literal; a process file takes literal values only`,
				`5:21 hcl-expression: an expression in parentheses is not a literal; a process file takes literal values only`,
				`7:21 hcl-expression: a for expression is not a literal; a process file takes literal values only`,
				`8:16 hcl-expression: an operation is not a literal; a process file takes literal values only`,
				`12:19 hcl-expression: interpolation "${HOME}" is not a literal; write "$${HOME}" for a literal "${HOME}"`,
				`12:27 hcl-expression: interpolation "${~ x ~}" is not a literal; write "$${~ x ~}" for a literal "${~ x ~}"`,
				`12:45 hcl-expression: template directive "%{ for x in y }" is not a literal; write "%%{" for a literal "%{"`,
				`13:11 hcl-expression: an expression in parentheses is not a literal; a process file takes literal values only`,
				`13:22 hcl-expression: a reference is not a literal; a process file takes literal values only`,
				`13:37 hcl-expression: variable "d" is not a literal; did you mean the string "d"?`,
				`13:47 hcl-expression: interpolation "${e}" is not a literal; write "$${e}" for a literal "${e}"`,
				`16:5 hcl-expression: interpolation "${two}" is not a literal; write "$${two}" for a literal "${two}"`,
				`19:12 hcl-expression: interpolation "${a}" is not a literal; write "$${a}" for a literal "${a}"`,
				`20:13 hcl-expression: a reference is not a literal; a process file takes literal values only`,
			},
		},
		{
			name: "a long interpolation",
			src:  "step \"a\" {\n  command = \"${join(\" \", [\"a very long list\", \"of words\"])}\"\n}\n",
			want: []string{
				`2:14 hcl-expression: interpolation "${…}" is not a literal; write "$${" for a literal "${"`,
			},
		},
		{
			name: "a syntax error is reported alone, with the duplicates before it",
			src:  "version = 1\nversion = 1\nstep \"a\" {\n  commnd = \"make\n}\nstep \"a\" {}\n",
			want: []string{
				`2:1 duplicate: attribute "version" is already defined at the top level (related 1:1: first defined here)`,
				`4:17 syntax: invalid multi-line string: quoted strings may not be split over multiple lines`,
			},
		},
		{
			name: "an unclosed block",
			src:  "version = 1\nstep \"a\" {\n  command = \"x\"\n",
			want: []string{
				`2:10 syntax: unclosed configuration block: there is no closing brace for this block before the end of the file`,
			},
		},
		{
			name: "an invalid escape",
			src:  "version = 1\ndescription = \"a\\qb\"\n",
			want: []string{
				`2:17 syntax: invalid escape sequence: the symbol "q" is not a valid escape sequence selector`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := HCL("p.hcl", []byte(tc.src))
			sourcetest.CheckDiagnostics(t, "p.hcl", []byte(tc.src), diags)
			if got := sourcetest.DiagLines(diags); !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

const hclPositionsFile = `# é à ü: columns count characters
version = 1
description = "Ünïcode — everywhere"
default_worktree = "a"
access = "read"

limits {
  repair_cap = 2
  protected_paths = ["migrations/**", ".github/**"]
  budget_usd = 4.5
}

worktree "a" {
  kind = "throwaway"
}

step "ünï" {
  skill = "bug-hunt"
  model = "opus"
  access = "write"
  budget_usd = -1
  env = { GOFLAGS = "-count=1", "Z" = "z" }

  precheck {
    shells = ["[ -n \"$(ls inbox)\" ] || exit $CHECK_SKIP"]
  }

  validate {
    severity = "review"
  }
}
`

func TestHCLPositions(t *testing.T) {
	src := hclPositionsFile
	p, diags := HCL("p.hcl", []byte(src))
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", sourcetest.DiagLines(diags))
	}
	s := p.Steps[0]
	for _, tc := range []struct {
		what string
		got  ir.Range
		want string
	}{
		{"version key", p.Version.Key, find(t, src, "version", 1)},
		{"version value", p.Version.Range, findIn(t, src, "version = 1", 1, "1")},
		{"description", p.Description.Range, find(t, src, `"Ünïcode — everywhere"`, 1)},
		{"limits header", p.Limits.Header, find(t, src, "limits", 1)},
		{"protected path", p.Limits.ProtectedPaths.Value[1].Range, find(t, src, `".github/**"`, 1)},
		{"protected paths", p.Limits.ProtectedPaths.Range, find(t, src, `["migrations/**", ".github/**"]`, 1)},
		{"worktree header", p.Worktrees[0].Header, find(t, src, `worktree "a"`, 1)},
		{"worktree name", p.Worktrees[0].NameRange, find(t, src, `"a"`, 2)},
		{"worktree kind", p.Worktrees[0].Kind.Range, find(t, src, `"throwaway"`, 1)},
		{"step header", s.Header, find(t, src, `step "ünï"`, 1)},
		{"step name", s.Name.Range, find(t, src, `"ünï"`, 1)},
		{"action", s.Actions[0].Range, find(t, src, `skill = "bug-hunt"`, 1)},
		{"skill key", s.Actions[0].Keys().Skill.Key, find(t, src, "skill", 1)},
		{"skill value", s.Actions[0].Keys().Skill.Range, find(t, src, `"bug-hunt"`, 1)},
		{"model", s.Actions[0].Keys().Model.Range, find(t, src, `"opus"`, 1)},
		{"access key", s.Actions[0].Keys().Access.Key, findIn(t, src, `access = "write"`, 1, "access")},
		{"access value", s.Actions[0].Keys().Access.Range, find(t, src, `"write"`, 1)},
		{"process access key", p.Access.Key, findIn(t, src, `access = "read"`, 1, "access")},
		{"process access value", p.Access.Range, find(t, src, `"read"`, 1)},
		{"budget_usd key", p.Limits.BudgetUSD.Key, find(t, src, "budget_usd", 1)},
		{"budget_usd value", p.Limits.BudgetUSD.Range, find(t, src, "4.5", 1)},
		{"step budget_usd key", s.Actions[0].Keys().BudgetUSD.Key, find(t, src, "budget_usd", 2)},
		{"step budget_usd value", s.Actions[0].Keys().BudgetUSD.Range, find(t, src, "-1", 1)},
		{"env", s.Keys().Env.Range, find(t, src, `{ GOFLAGS = "-count=1", "Z" = "z" }`, 1)},
		{"env key", s.Keys().Env.Value[0].Key, find(t, src, "GOFLAGS", 1)},
		{"env quoted key", s.Keys().Env.Value[1].Key, find(t, src, `"Z"`, 1)},
		{"env value", s.Keys().Env.Value[1].Range, find(t, src, `"z"`, 1)},
		{"precheck header", s.Precheck.Header, find(t, src, "precheck", 1)},
		{"validate header", s.Validate.Header, find(t, src, "validate", 1)},
		{"severity", s.Validate.Severity.Range, find(t, src, `"review"`, 1)},
	} {
		if got := sourcetest.Span(tc.got); got != tc.want {
			t.Errorf("%s: %s; want %s", tc.what, got, tc.want)
		}
	}
}

func TestHCLSpans(t *testing.T) {
	for _, tc := range []struct {
		name  string
		src   string
		value string
		// at maps a text of the value (its first occurrence) to the text
		// the file has where its first character is mapped.
		at map[string]string
	}{
		{
			name:  "quoted, with escapes",
			src:   "step \"a\" {\n  command = \"a\\tb \\\"c\\\" \\u00e9 $${HOME} %%{x} ü |\"\n}\n",
			value: "a\tb \"c\" é ${HOME} %{x} ü |",
			at: map[string]string{
				"a\t":      `a\tb`,
				"\tb":      `\tb`,
				"b ":       `b \"c\"`,
				"\"c":      `\"c\"`,
				"c\"":      `c\" \u00e9`,
				"é":        `\u00e9`,
				" ${HOME}": ` $${HOME}`,
				"${HOME}":  `${HOME}`,
				"%{x}":     `%{x}`,
				"ü |":      `ü |`,
				"|":        `|"`,
			},
		},
		{
			name:  "heredoc",
			src:   "step \"a\" {\n  command = <<EOT\n  one $${X}\n\ttwo\nEOT\n}\n",
			value: "  one ${X}\n\ttwo\n",
			at: map[string]string{
				"  one": "  one",
				"one":   "one",
				"${X}":  "${X}",
				"\ttwo": "\ttwo",
				"two":   "two",
			},
		},
		{
			name:  "flush heredoc: each line loses the least indentation",
			src:   "step \"a\" {\n  command = <<-EOT\n      one\n    two\n\n        three $${X}\n    EOT\n}\n",
			value: "  one\ntwo\n\n    three ${X}\n",
			at: map[string]string{
				"  one":        "  one",
				"one":          "one",
				"two":          "two",
				"\n\n":         "\n\n",
				"    three":    "    three",
				"three":        "three",
				"${X}":         "${X}",
				"${X}\n":       "${X}\n",
				"  one\ntwo\n": "  one\n",
			},
		},
		{
			// hclsyntax composes its strings (normal form C); a script
			// keeps the bytes written: the decomposed é of a file name, the
			// em quad that would become an em space.
			name:  "not in normal form C",
			src:   "step \"a\" {\n  command = \"cat cafe\u0301.txt\u2001|\"\n}\n",
			value: "cat cafe\u0301.txt\u2001|",
			at: map[string]string{
				"e\u0301": "e\u0301.txt",
				".txt":    ".txt",
				"|":       "|\"",
			},
		},
		{
			// Read as LF, as a script must be: positions are the file's
			// lines and columns, offsets those of the text read (Text).
			name:  "CRLF",
			src:   "step \"a\" {\r\n  command = <<-EOT\r\n    a\r\n      b |\r\n  EOT\r\n}\r\n",
			value: "a\n  b |\n",
			at: map[string]string{
				"a\n": "a\n",
				"  b": "  b |",
				"|\n": "|\n",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			p, diags := HCL("p.hcl", src)
			src = source.Text(src)
			if len(diags) != 0 {
				t.Fatalf("diagnostics: %v", sourcetest.DiagLines(diags))
			}
			f := p.Steps[0].Actions[0].Script
			if f.Value != tc.value {
				t.Fatalf("value %q; want %q", f.Value, tc.value)
			}
			sourcetest.CheckSpans(t, src, f.Value, f.Spans)
			for needle, want := range tc.at {
				off := strings.Index(f.Value, needle)
				if off < 0 {
					t.Fatalf("%q is not in the value", needle)
				}
				pos := ir.PosAt(f.Value, f.Spans, off)
				if got := string(src[pos.Offset:]); !strings.HasPrefix(got, want) {
					t.Errorf("%q maps to %d:%d, where the file has %.12q; want %q", needle, pos.Line, pos.Column, got, want)
				}
			}
		})
	}
}

func TestHCLBadFields(t *testing.T) {
	src := "version = \"1\"\nstep {\n  max_turns = x\n  command {}\n  precheck {\n    shells = [\"a\", 1]\n  }\n  env = { A = \"a\", B = b }\n}\n"
	p, diags := HCL("p.hcl", []byte(src))
	if len(diags) != 6 {
		t.Fatalf("diagnostics: %v", sourcetest.DiagLines(diags))
	}
	if v := p.Version; !v.Set || !v.Bad || v.Value != 0 || sourcetest.Span(v.Range) != "1:11-1:14" || sourcetest.Span(v.Key) != "1:1-1:8" {
		t.Errorf("version: %+v", v)
	}
	s := p.Steps[0]
	if n := s.Name; !n.Set || !n.Bad || sourcetest.Span(n.Range) != "2:1-2:5" {
		t.Errorf("a step without a label: %+v", n)
	}
	a := s.Actions[0]
	if mt := a.Keys().MaxTurns; !mt.Set || !mt.Bad || mt.Value != 0 {
		t.Errorf("max_turns: %+v", mt)
	}
	if a.Kind != ir.Command || !a.Script.Set || !a.Script.Bad || sourcetest.Span(a.Range) != "4:3-4:13" {
		t.Errorf("command block: %+v", a)
	}
	shells := s.Precheck.Shells
	if !shells.Set || !shells.Bad || len(shells.Value) != 2 || shells.Value[0].Bad || !shells.Value[1].Bad {
		t.Errorf("shells: %+v", shells)
	}
	if env := s.Keys().Env; !env.Set || !env.Bad || len(env.Value) != 1 || env.Value[0].Name != "A" {
		t.Errorf("env: %+v", env)
	}
}

func TestHCLActions(t *testing.T) {
	src := "step \"a\" {\n  prompt = \"p\"\n  model = \"m\"\n  command = \"c\"\n  process = \"x\"\n  skill = \"s\"\n  catalogue = \"delivery\"\n  spec_process = \"y\"\n  env = { Z = \"1\", A = \"2\", M = \"3\" }\n}\n"
	p, diags := HCL("p.hcl", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", sourcetest.DiagLines(diags))
	}
	got := summary(p)
	got = got[strings.Index(got, "step "):]
	want := `step "a" desc="" wt="" par="" opt=false timeout=""
  env Z="1"
  env A="2"
  env M="3"
  session skill="" prompt="p" script="" catalogue="" harness="" model="m" effort="" turns=0 process="x" spec="y"
  command skill="" prompt="" script="c" catalogue="" harness="" model="m" effort="" turns=0 process="x" spec="y"
  session skill="s" prompt="" script="" catalogue="" harness="" model="m" effort="" turns=0 process="x" spec="y"
  catalogue skill="" prompt="" script="" catalogue="delivery" harness="" model="m" effort="" turns=0 process="x" spec="y"
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestHCLProcess(t *testing.T) {
	src := []byte("version = 1\n")
	p, _ := HCL("dir/review.hcl", src)
	if p.Name != "review" || p.File != "dir/review.hcl" || p.Format != ir.HCL || string(p.Source) != string(src) {
		t.Errorf("process: %+v", p)
	}
	if p.Limits.Header.IsValid() || p.Steps != nil || p.Worktrees != nil {
		t.Errorf("absent blocks: %+v", p)
	}
}

// TestHCLReadme holds the README's format reference to its word: its HCL
// example is the twin of its TOML example.
func TestHCLReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The twins are the examples of "The process file" and the HCL
	// section after it.
	_, section, ok := strings.Cut(string(readme), "\n## The process file\n")
	if !ok {
		t.Fatal(`the README has no "## The process file" section`)
	}
	block := func(lang string) string {
		_, rest, ok := strings.Cut(section, "\n```"+lang+"\n")
		if !ok {
			t.Fatalf("the README has no %s example", lang)
		}
		body, _, _ := strings.Cut(rest, "\n```\n")
		return body + "\n"
	}
	tp, tdiags := TOML("README.toml", []byte(block("toml")))
	hp, hdiags := HCL("README.hcl", []byte(block("hcl")))
	if len(tdiags) > 0 || len(hdiags) > 0 {
		t.Fatalf("diagnostics: TOML %v; HCL %v", sourcetest.DiagLines(tdiags), sourcetest.DiagLines(hdiags))
	}
	if got, want := withoutPositions(hp), withoutPositions(tp); !reflect.DeepEqual(got, want) {
		t.Errorf("the README's examples differ\nHCL\n%s\nTOML\n%s", summary(&got), summary(&want))
	}
}
