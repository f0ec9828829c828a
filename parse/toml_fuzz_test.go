package parse

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// fuzzSeeds are realistic process files and the corners of TOML they use.
var fuzzSeeds = []string{
	`version = 1
description = "Three families hunt bugs; one judges"
default_worktree = "a"
commit = false
run_expiry = "30d"
failed_run_expiry = "90d"

[limits]
repair_cap = 2
self_merge = false
protected_paths = ["migrations/**", ".github/**"]

[worktrees.a]
kind = "throwaway"

[[steps]]
name = "hunt-claude"
description = "Hunt for bugs"
skill = "bug-hunt"
harness = "claude"
model = "opus"
effort = "high"
max_turns = 30
worktree = "a"
parallel = "hunt"
optional = true
timeout = "45m"
env = { GOFLAGS = "-count=1" }

[steps.precheck]
shells = ['[ -n "$(ls inbox)" ] || exit $CHECK_SKIP']
whys = ["Nothing in the inbox"]

[steps.validate]
shells = ["go test ./..."]
instructions = ["Every finding names a file and a line."]
whys = ["Findings without a place cannot be judged"]
severity = "review"
model = "balanced"
`,
	`version = 1
worktrees = { a = { kind = "throwaway" }, b = { kind = "issue-branch" } }
steps = [
  { name = "a", command = "make test" },
  { name = "b", prompt = """
Fix the "bug".\tThen \
    stop.""", precheck = { shells = ['true'] } },
]
`,
	`version = 1
[worktrees]
a = { kind = "checkout" }

[[steps]]
name = "build"
command = '''
set -e
go build ./...
if [ -n "$X" ]; then echo "é"; fi
'''
env.GOFLAGS = "-count=1"
env.HOME = "/tmp/\u00e9\n"
precheck.shells = [
  "test -d .git",   # a comment
  'echo ok',
]
validate.severity = "warn"
`,
	"version = 1\r\n[[steps]]\r\nname = \"crlf\"\r\ncommand = \"\"\"\r\necho a\r\necho b\r\n\"\"\"\r\n",
	`a.b.c = 1
[a.d]
[x]
y = 2020-01-02T03:04:05Z
z = 12:30:00
w = 1979-05-27
f = [1.5e3, -inf, nan, 0x_ff]
`,
	`[a]
[a]`,
	`a.b = 1
[a]`,
	`a = []
[[a]]`,
	`[[steps]]
name = "x"
name = "y"
[steps.precheck]
[[steps]]
name = "x"
commnd = "true"
max_turns = "30"
`,
	`t = { a = 1, a = 2 }`,
	`a = 1
a.b = 2`,
	`s = "é\\x41\e\U0001F600"`,
	`i = 99999999999999999999`,
	`d = 2021-02-30`,
	`"quoted key" = 'literal'
'lit.key'.x = """"two quotes"""""`,
}

func FuzzTOML(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		const file = "fuzz.toml"
		_, diags := TOML(file, src)
		// Positions are in the text the front-end read: no byte order
		// mark, CRLF read as LF.
		src = Text(src)
		checkDiagnostics(t, file, src, diags)

		doc, docDiags := ReadTOMLDoc(file, src)
		checkTable(t, src, doc.Root)
		checkStringsDecode(t, src)

		// go-toml's decoder is the reference for what TOML accepts.
		var v any
		err := toml.Unmarshal(src, &v)
		refused := false
		for _, d := range docDiags {
			refused = refused || d.Rule == ir.RuleSyntax || d.Rule == ir.RuleDuplicate
		}
		if (err != nil) != refused {
			t.Errorf("go-toml says %v; ReadTOMLDoc says %v", err, docDiags)
		}
	})
}

// checkDiagnostics asserts that every diagnostic points inside src.
func checkDiagnostics(t *testing.T, file string, src []byte, diags []ir.Diagnostic) {
	t.Helper()
	for _, d := range diags {
		if d.Range.File != file {
			t.Errorf("%s: file %q; want %q", d.Message, d.Range.File, file)
		}
		checkRange(t, src, d.Range, d.Message)
		for _, rel := range d.Related {
			checkRange(t, src, rel.Range, d.Message+" (related)")
		}
		if d.Message == "" || d.Rule == "" || d.Severity != ir.Error {
			t.Errorf("incomplete diagnostic %+v", d)
		}
	}
}

// checkRange asserts that r lies inside src and that its positions agree
// with its offsets.
func checkRange(t *testing.T, src []byte, r ir.Range, what string) {
	t.Helper()
	lines := bytes.Count(src, []byte("\n")) + 1
	for _, p := range []ir.Pos{r.Start, r.End} {
		if p.Line < 1 || p.Line > lines+1 || p.Column < 1 || p.Offset < 0 || p.Offset > len(src) {
			t.Errorf("%s: position %+v outside the file (%d lines, %d bytes)", what, p, lines, len(src))
			return
		}
		if want := posOf(src, p.Offset); want != p {
			t.Errorf("%s: position %+v; its offset is at %+v", what, p, want)
		}
	}
	if r.End.Offset < r.Start.Offset {
		t.Errorf("%s: range %+v ends before it starts", what, r)
	}
}

// posOf is the position of byte off of src, computed the slow way.
func posOf(src []byte, off int) ir.Pos {
	p := ir.Pos{Line: 1, Column: 1, Offset: off}
	lineStart := 0
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			p.Line++
			lineStart = i + 1
		}
	}
	p.Column = 1 + len([]rune(string(src[lineStart:off])))
	return p
}

// checkTable asserts that every key and value of t points inside src and
// that every string's spans map its bytes back to the file.
func checkTable(t *testing.T, src []byte, tbl *TOMLTable) {
	t.Helper()
	for _, e := range tbl.Entries {
		checkRange(t, src, e.KeyRange, "key "+e.Key)
		checkValue(t, src, e.Value)
	}
}

func checkValue(t *testing.T, src []byte, v *TOMLValue) {
	t.Helper()
	checkRange(t, src, v.Range, "value")
	switch v.Kind {
	case KindTable:
		checkTable(t, src, v.Table)
	case KindArray:
		for _, item := range v.Items {
			checkValue(t, src, item)
		}
	case KindString:
		checkSpans(t, src, v.Str, v.Spans)
	}
}

// checkSpans asserts that each span of value either starts at an escape
// sequence in the file or was copied verbatim from it, and that ir.PosAt
// agrees with the file's own positions.
func checkSpans(t *testing.T, src []byte, value string, spans []ir.Span) {
	t.Helper()
	if len(spans) == 0 {
		t.Errorf("string %q has no spans", value)
		return
	}
	for i, s := range spans {
		end := len(value)
		if i+1 < len(spans) {
			end = spans[i+1].Offset
		}
		if s.Offset > end || s.Start.Offset > len(src) {
			t.Errorf("string %q: bad span %+v", value, s)
			return
		}
		if want := posOf(src, s.Start.Offset); want != s.Start {
			t.Errorf("string %q: span starts at %+v; its offset is at %+v", value, s.Start, want)
		}
		seg := value[s.Offset:end]
		if s.Start.Offset < len(src) && src[s.Start.Offset] == '\\' && !strings.HasPrefix(seg, "\\") {
			continue // an escape sequence
		}
		if s.Start.Offset+len(seg) > len(src) || string(src[s.Start.Offset:s.Start.Offset+len(seg)]) != seg {
			t.Errorf("string %q: span %d (%q) is not in the file at %d", value, i, seg, s.Start.Offset)
			continue
		}
		for off := s.Offset; off < end; off++ {
			if got, want := ir.PosAt(value, spans, off), posOf(src, s.Start.Offset+off-s.Offset); got != want {
				t.Errorf("string %q: PosAt(%d) = %+v; want %+v", value, off, got, want)
				break
			}
		}
	}
}

// checkStringsDecode asserts that decodeString agrees with go-toml's parser
// on every string of src.
func checkStringsDecode(t *testing.T, src []byte) {
	t.Helper()
	var p unstable.Parser
	p.Reset(src)
	for p.NextExpression() {
		walkStrings(p.Expression(), func(n *unstable.Node) {
			raw := p.Raw(n.Raw)
			if got, _ := decodeString(raw); got != string(n.Data) {
				t.Errorf("decodeString(%q) = %q; go-toml says %q", raw, got, n.Data)
			}
		})
	}
}

func walkStrings(n *unstable.Node, f func(*unstable.Node)) {
	if n.Kind == unstable.String {
		f(n)
	}
	it := n.Children()
	for it.Next() {
		walkStrings(it.Node(), f)
	}
}
