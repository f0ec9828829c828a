package parse

import (
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/source/sourcetest"
)

// fuzzSeeds are realistic process files: every key the front-end reads, in
// every way TOML can write it, and the refusals it makes.
var fuzzSeeds = []string{
	`version = 1
description = "Three families hunt bugs; one judges"
default_worktree = "a"
commit = false
run_expiry = "30d"
failed_run_expiry = "90d"
access = "write"

[limits]
repair_cap = 2
self_merge = false
protected_paths = ["migrations/**", ".github/**"]
budget_usd = 4.50

[github]
runs_on = "ubuntu-latest"
schedule = ["0 3 * * 1-5", "*/30 9-17 * * mon-fri"]
timeout_minutes = 60

[worktrees.a]
kind = "throwaway"

[[steps]]
name = "hunt-claude"
description = "Hunt for bugs"
skill = "bug-hunt"
harness = "claude"
model = "opus"
effort = "high"
access = "full"
max_turns = 30
budget_usd = 1
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
	`version = 1
[worktrees.w]
kind = "throwaway"
copy = [".env", "config/**/*.local", "[!a]{b,c}"]
setup = '''
npm ci
'''
setup_timeout = "90s"
[worktrees.c]
kind = "checkout"
copy = []
setup = 3
[[steps]]
name = "a"
worktree = "w"
command = "cat .env"
`,
	"limits.budget_usd = -inf\n[[steps]]\nname = \"a\"\nprompt = \"p\"\nbudget_usd = \"abc\"\n[[steps]]\ncommand = \"x\"\nbudget_usd = 0x10\n",
	"version = 1\n[[steps]]\nname = \"a\"\ncommand = \"x\"\noutput_schema = { type = \"object\", required = [\"s\"], properties = { s = { enum = [\"low\", 2, 1.5, true, 1979-05-27], pattern = \"x\" } }, minimum = inf }\n[[steps]]\nname = \"b\"\noutput_schema = \"../s.json\"\ncommand = \"y\"\n[[steps]]\nname = \"c\"\noutput_schema = [1]\n[steps.output_schema]\n",
	"version = 1\n[[steps]]\nname = \"a\"\nfor_each = '[\"x\", 2]'\ncommand = \"echo $CAIRN_ITEM\"\n[[steps]]\nname = \"b\"\nneeds = [\"a\"]\nfor_each = \"steps.a.output\"\nwhen = 'item != 2'\nprompt = \"{{ item }}\"\n[[steps]]\nname = \"c\"\nfor_each = 3\n",
	"version = 1\n[[steps]]\nname = \"a\"\ncommand = \"x\"\n[[steps]]\nname = \"b\"\nneeds = [\"a\", \"b\", \"c\", 3]\ncommand = \"y\"\n[[steps]]\nname = \"c\"\nneeds = []\nparallel = \"g\"\nprompt = \"p\"\n[[steps]]\nneeds = \"a\"\n",
	"version = 1\r\n[[steps]]\r\nname = \"crlf\"\r\ncommand = \"\"\"\r\necho a\r\necho b\r\n\"\"\"\r\n",
	`[[steps]]
name = "x"
name = "y"
[steps.precheck]
[[steps]]
name = "x"
commnd = "true"
max_turns = "30"
`,
}

func FuzzTOML(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		const file = "fuzz.toml"
		p, diags := TOML(file, src)
		// Positions are in the text the front-end read: no byte order
		// mark, CRLF read as LF.
		src = source.Text(src)
		sourcetest.CheckDiagnostics(t, file, src, diags)
		checkProcess(t, src, reflect.ValueOf(p).Elem(), hasSyntaxError(diags))
	})
}
