package parse

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// deepMessage is how both front-ends start refusing a file nested too deep.
var deepMessage = fmt.Sprintf("nested more than %d levels deep", MaxNesting)

// checkDeep asserts that diags is the one refusal of a file nested too deep,
// at line and col.
func checkDeep(t *testing.T, what string, diags []ir.Diagnostic, line, col int) {
	t.Helper()
	if len(diags) != 1 || diags[0].Rule != ir.RuleSyntax || !strings.Contains(diags[0].Message, deepMessage) ||
		int(diags[0].Range.Start.Line) != line || int(diags[0].Range.Start.Column) != col {
		t.Errorf("%s: %v; want one syntax error %q at %d:%d", what, diags, deepMessage, line, col)
	}
}

func TestHCLNesting(t *testing.T) {
	// A million brackets overflowed hclsyntax's stack; the rest are
	// refused as surely at ten thousand.
	src := []byte("a = " + strings.Repeat("[", 1_000_000) + "\n")
	_, diags := HCL("deep.hcl", src)
	checkDeep(t, "a million brackets", diags, 1, 5+MaxNesting)

	const n = 10_000
	for _, tc := range []struct {
		name, open string
		// col is the column of the token that goes too deep, after
		// "a = ".
		col int
	}{
		{"brackets", "[", 5 + MaxNesting},
		{"braces", "{", 5 + MaxNesting},
		{"parentheses", "(", 5 + MaxNesting},
		{"interpolations", `"${`, 5 + 3*(MaxNesting/2)},
		{"calls", "f(", 5 + 2*MaxNesting + 1},
		{"nots", "!", 5 + MaxNesting},
		{"negations", "-", 5 + MaxNesting},
		{"conditionals", "a ? b : ", 5 + 8*MaxNesting + 2},
		{"for expressions", "[for x in ", 0},
	} {
		src := []byte("a = " + strings.Repeat(tc.open, n) + "\n")
		p, diags := HCL("deep.hcl", src)
		if p == nil {
			t.Fatalf("%s: no process", tc.name)
		}
		col := tc.col
		if col == 0 {
			// Counted by the tokens, which do not all open a level.
			col = int(diags[0].Range.Start.Column)
		}
		checkDeep(t, tc.name, diags, 1, col)
	}

	// Blocks nest by their braces, a line each.
	src = []byte(strings.Repeat("step {\n", n))
	_, diags = HCL("deep.hcl", src)
	checkDeep(t, "blocks", diags, MaxNesting+1, 6)

	// Directives nest by their if and for blocks: each directive closes.
	src = []byte(`a = "` + strings.Repeat("%{ if a }", n) + `"` + "\n")
	_, diags = HCL("deep.hcl", src)
	checkDeep(t, "if blocks", diags, 1, 6+9*(MaxNesting-2))
}

// TestHCLNestingAllowed: what a process file nests, and nesting that
// closes, however long the file, is left to hclsyntax.
func TestHCLNestingAllowed(t *testing.T) {
	for _, src := range []string{
		hclCanonical,
		"a = " + strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting) + "\n",
		"a = [" + strings.Repeat("[1], -1, !x, y ? z : w, ", 2_000) + "]\n",
		strings.Repeat("step \"s\" {\n  command = \"echo ${x} %{ if y }z%{ endif }\"\n  env = { A = \"-${-1}\" }\n}\n", 2_000),
		"a = " + strings.Repeat("1 - ", 2_000) + "1\n",
		"a = \"%{ for x in y }${x}%{ endfor }\"\n" + strings.Repeat("b = <<EOT\n${[[{}]]}\nEOT\n", 2_000),
	} {
		_, diags := HCL("ok.hcl", []byte(src))
		for _, d := range diags {
			if strings.Contains(d.Message, deepMessage) {
				t.Errorf("%.60q…: %v", src, d)
			}
		}
	}
}

func TestCardNesting(t *testing.T) {
	src := []byte("---\na: " + strings.Repeat("[", 1_000_000) + "\n---\n")
	_, diags := Card("deep.procedure.card", src)
	checkDeep(t, "a million brackets", diags, 2, 3+MaxNesting)

	const n = 10_000
	for _, tc := range []struct {
		name, open string
		line, col  int
	}{
		{"flow sequences", "[", 2, MaxNesting + 1},
		{"flow mappings", "{", 2, MaxNesting + 1},
		{"flow mapping keys", "{a: ", 2, 0},
		{"block sequences", "- ", 2, 0},
		{"complex keys", "? ", 2, 0},
		{"tags", "!a ", 2, 0},
		{"tags on their lines", "!a\n", MaxNesting + 2, 1},
		{"tagged entries", "- !a\n", MaxNesting/2 + 2, 1},
		{"entries that end their line", "a:\n-\n", MaxNesting + 2, 1},
	} {
		src := []byte("---\n" + strings.Repeat(tc.open, n) + "x\n---\n")
		p, diags := Card("deep.procedure.card", src)
		if p == nil {
			t.Fatalf("%s: no process", tc.name)
		}
		line, col := tc.line, tc.col
		if len(diags) > 0 && line == 0 {
			line = int(diags[0].Range.Start.Line)
		}
		if len(diags) > 0 && col == 0 {
			col = int(diags[0].Range.Start.Column)
		}
		checkDeep(t, tc.name, diags, line, col)
	}

	// Keys indented further on each line nest a level each.
	var b strings.Builder
	b.WriteString("---\n")
	for i := range 200 {
		fmt.Fprintf(&b, "%sk:\n", strings.Repeat(" ", i))
	}
	b.WriteString("---\n")
	_, diags = Card("deep.procedure.card", []byte(b.String()))
	checkDeep(t, "indentation", diags, MaxNesting+2, MaxNesting+1)
}

// TestCardNestingAllowed: a card of many steps, indented as cards are, is
// left to the YAML parser.
func TestCardNestingAllowed(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nsteps:\n")
	for i := range 2_000 {
		fmt.Fprintf(&b, "  - id: s%d\n    run:\n      shells: [\"echo [{(\", '- ? :']\n      agents:\n        - prompt: >-\n            a: b\n          max-turns: 3\n", i)
	}
	b.WriteString("---\n")
	// Indentation nests no deeper than the collections it makes.
	indented := "---\na:\n" + strings.Repeat(" ", 300) + "b:\n" + strings.Repeat(" ", 600) + "c: |\n" +
		strings.Repeat(" ", 900) + "text\n---\n"
	for _, src := range []string{cardSeed, b.String(), indented} {
		_, diags := Card("ok.procedure.card", []byte(src))
		for _, d := range diags {
			if strings.Contains(d.Message, deepMessage) {
				t.Errorf("%.60q…: %v", src, d)
			}
		}
	}
}

// deepFiles are files of 16 MiB, the most cairn reads, nested millions of
// levels deep, right away or after 16 MiB of lines.
func deepFiles() map[string][]byte {
	const size = 16 << 20
	lines := strings.Repeat("\n", size-1_000)
	return map[string][]byte{
		"deep.hcl":            []byte("a = " + strings.Repeat("[", size-5) + "\n"),
		"late.hcl":            []byte(lines + "a = " + strings.Repeat("(", 500) + "\n"),
		"deep.procedure.card": []byte("---\na: " + strings.Repeat("[", size-12) + "\n---\n"),
		"late.procedure.card": []byte("---\n" + lines + "a: " + strings.Repeat("- ", 300) + "\n---\n"),
	}
}

// TestDeepRefusalAllocations: a file of 16 MiB nested millions of levels
// deep is refused having allocated nothing in proportion to it, where the
// parsers' tokens and trees took gigabytes before the refusal.
func TestDeepRefusalAllocations(t *testing.T) {
	for file, src := range deepFiles() {
		read := HCL
		if strings.HasSuffix(file, CardSuffix) {
			read = Card
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, diags := read(file, src)
		runtime.ReadMemStats(&after)
		if len(diags) != 1 || !strings.Contains(diags[0].Message, deepMessage) {
			t.Errorf("%s: %v; want the one refusal of its nesting", file, diags)
		}
		if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 1<<20 {
			t.Errorf("%s: refused having allocated %d KiB; want less than 1 MiB", file, allocated>>10)
		}
	}
}
