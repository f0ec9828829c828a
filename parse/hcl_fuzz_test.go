package parse

import (
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/source/sourcetest"
	"github.com/cairn-dev/cairn/ir"
)

// hclFuzzSeeds are realistic HCL process files and the corners of HCL they
// use: heredocs, escapes, template sequences, expressions cairn refuses.
var hclFuzzSeeds = []string{
	hclCanonical,
	hclPositionsFile,
	`version = 1
worktree "build" { kind = "throwaway" }
step "test" {
  command = <<-EOT
    go test ./...
      echo "$${HOME}" %%{x}

    done |
  EOT
  env = { GOFLAGS = "-count=1", "CGO_ENABLED" = "0" }
  validate {
    shells = ["true", "case x in"]
  }
}
`,
	"limits {\n  budget_usd = 1e400\n}\nstep \"b\" {\n  prompt = \"p\"\n  budget_usd = \"$4\"\n}\nstep \"c\" {\n  command = \"x\"\n  budget_usd = -0.5\n}\n",
	"version = 1\r\nstep \"crlf\" {\r\n  command = <<EOT\r\necho a\r\necho b\r\nEOT\r\n}\r\n",
	`step "a" {
  command = "echo ${HOME} ${~ x ~} $${USER} %{ for x in y }${x}%{ endfor }"
  env = { (k) = "v", a.b = "c", D = d, "E" = "${e}" }
  prompt = "\u00e9\U0001F600\t\"\\"
  skill = "${a}"
  timeout = xs[0]
  max_turns = -3
}
`,
	`version = 1
version = 2
limits {}
limits "x" {}
worktree {}
worktree a "b" {}
step "x" {
  command = "a"
  command = "b"
}
step "x" {}
`,
	`a = [1, 2.5, null, true, { b = "c" }, ["d"]]
b = 1 + 2
c = !true
d = upper("x") == "X" ? [for x in y : x] : z.*.w
`,
	`worktree "w" {
  kind          = "throwaway"
  copy          = [".env", "config/**/*.local", "[!a]{b,c}"]
  setup         = <<-EOT
    npm ci
  EOT
  setup_timeout = "90s"
}
worktree "c" {
  kind  = "checkout"
  copy  = []
  setup = 3
}
`,
	"step \"a\" {\n  commnd = \"make\n}\n",
	"step \"a\" {\n  command = <<-EOT\n  \t mixed\n\t  indentation\n  EOT\n}\n",
	"step \"a\" { command = \"x\" }\n",
	"step \"a\" {\n  command = \"x\"\n  output_schema = { type = \"object\", required = [\"s\"], properties = { s = { enum = [\"low\", 2, -1.5, true, null], \"x/y\" = a } } }\n}\nstep \"b\" {\n  output_schema = \"s.json\"\n}\nstep \"c\" {\n  output_schema = [\"${x}\"]\n  output_schema {}\n}\n",
	"step \"a\" {\n  command = \"x\"\n  for_each = [\"x\", 2]\n}\nstep \"b\" {\n  needs = [\"a\"]\n  for_each = steps.a.output\n  when = item != 2\n  prompt = \"{{ item }}\"\n}\nstep \"c\" {\n  for_each = \"${x}\"\n}\n",
	"step \"a\" {\n  command = \"x\"\n}\nstep \"b\" {\n  needs = [\"a\", \"b\", 3, a]\n  command = \"y\"\n}\nstep \"c\" {\n  needs = \"a\"\n}\n",
	"step \"a\" {\n  command = <<-EOT\n  \u00a0 a\n   \u3000b\n   \u0301c\n    d\n  EOT\n}\n",
	"step \"a\" {\n  command = \"$$$${x} %%%{y} $$ %% $ % $$$$ \\u00\"\n}\n",
	"step \"a\" {\n  command = <<-EOT\n\t\tx\n\t  y\n   \n\n\tz\r\n    EOT\n}\n",
	"step \"\\u00e9$${x}\" {\n  command = <<EOT\n$$$${x} %%%{y}\nEOT\n}\n",
}

func FuzzHCL(f *testing.F) {
	for _, s := range append(hclFuzzSeeds, hclDepthCases...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		const file = "fuzz.hcl"
		p, diags := HCL(file, src)
		// Positions are in the text the front-end read: no byte order
		// mark, CRLF read as LF.
		src = source.Text(src)
		sourcetest.CheckDiagnostics(t, file, src, diags)
		if p == nil {
			t.Fatal("no process")
		}
		failed := false
		for _, d := range diags {
			failed = failed || d.Rule == ir.RuleSyntax
		}
		checkProcess(t, src, reflect.ValueOf(p).Elem(), failed)
		checkHCLDepth(t, src)
		checkHCLParserDepth(t, src)
	})
}

var (
	rangeTypeOf = reflect.TypeFor[ir.Range]()
	spansTypeOf = reflect.TypeFor[[]ir.Span]()
)

// checkProcess asserts that every range reachable from v lies inside src
// and that every string value's spans map it back to the file. In a file
// without a syntax error, every string hclsyntax read as a literal must have
// spans: the front-end decodes the file anew for them, and must agree with
// hclsyntax on its value.
func checkProcess(t *testing.T, src []byte, v reflect.Value, failed bool) {
	t.Helper()
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == rangeTypeOf {
			if r := v.Interface().(ir.Range); r.IsValid() {
				sourcetest.CheckRange(t, src, r, "process range")
			}
			return
		}
		if value, spans := v.FieldByName("Value"), v.FieldByName("Spans"); value.IsValid() && value.Kind() == reflect.String &&
			spans.IsValid() && spans.Type() == spansTypeOf {
			s, sp := value.String(), spans.Interface().([]ir.Span)
			switch {
			case len(sp) > 0:
				sourcetest.CheckSpans(t, src, s, sp)
			case v.FieldByName("Set").Bool() && !v.FieldByName("Bad").Bool() && !failed:
				t.Errorf("string %q has no spans", s)
			}
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				checkProcess(t, src, v.Field(i), failed)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			checkProcess(t, src, v.Index(i), failed)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			checkProcess(t, src, v.Elem(), failed)
		}
	}
}
