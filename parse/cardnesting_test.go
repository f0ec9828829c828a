package parse

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"

	"github.com/cairn-dev/cairn/internal/source"
)

// yamlTreeDepth is how deeply the YAML parser nests what it reads of src,
// which is how deeply it recursed, and whether it read src without an
// error; a tree is measured even when the parser stopped at an error, once
// its lexer took every token.
func yamlTreeDepth(src []byte) (deepest int, ok bool) {
	tokens := lexer.Tokenize(string(src))
	if tokens.InvalidToken() != nil {
		return 0, false
	}
	var f *ast.File
	var err error
	func() {
		defer func() { _ = recover() }()
		f, err = parser.Parse(tokens, 0)
	}()
	if f == nil {
		return 0, false
	}
	for _, doc := range f.Docs {
		if doc != nil {
			ast.Walk(&astDepth{deepest: &deepest}, doc)
		}
	}
	return deepest, err == nil
}

// checkCardDepth asserts that cardDepth counts as deeply as the YAML parser
// nests, within a factor: at least half as deep (the pre-scan never lets
// through what the parser nests much deeper than the limit, even when it
// stops at an error after), and, in YAML the parser reads without an error
// and without node properties, at most twice as deep (it refuses no card
// the parser nests shallowly). The parser nests the lines after a property
// in it, or not, by rules of its own; the pre-scan always does, and may
// count deeper than it nests: a card with a tag, an anchor or an alias is
// refused anyway. It checks src whole and its front matter, as Card
// pre-scans it.
//
// A small src is also checked repeated: a shape the parser nests deeper at
// each repetition must be counted deeper at each too, or a file of
// thousands of them would pass the pre-scan.
func checkCardDepth(t *testing.T, src []byte) {
	t.Helper()
	src = source.Text(src)
	yaml := [][]byte{src}
	if end, refusal := frontMatter("fuzz.procedure.card", src); refusal == nil {
		yaml = append(yaml, src[:end])
	}
	if len(src) < 256 {
		yaml = append(yaml, bytes.Repeat(src, 8))
	}
	for _, y := range yaml {
		d := cardDepth(y, MaxNesting)
		if d.over {
			continue
		}
		tree, ok := yamlTreeDepth(y)
		properties := bytes.ContainsAny(y, "!&*")
		if tree > 2*d.deepest+4 || ok && !properties && d.deepest > 2*tree+4 {
			t.Fatalf("the YAML tree is %d nodes deep; cardDepth counts %d levels\n%q", tree, d.deepest, y)
		}
	}
}

// cardDepthCases are the corners of YAML a bracket count could get wrong:
// brackets and indicators in scalars, comments and block scalars, scalars
// over several lines, flow collections, properties.
var cardDepthCases = []string{
	"---\na: \"[{\" # [[[\nb: '[[''' \nc: [x, {y: z}, \"]\"]\nd: x[0] - y: z\n---\n",
	"---\nk: |\n  text: [x\n  - more {\n l: \"q [\n  r\" \nm: plain\n  cont - x [\n---\n",
	"---\na:\n- b\n- c:\n  - d\n  - e: f\n    g: h\ni: j\n---\n",
	"---\n- - - x\n  - y\n- !t &a [1, {b: c}]\n? x\n: y\n---\n",
	"---\nkey: !tag\n  - a\n  - b\nother: &anchor\n  c: d\nalias: *anchor\n---\n",
	"---\nurl: http://x.y/z\nflow: {a: http://x, b: [c:d, e]}\n---\n",
	"---\nfolded: >-\n  a\n    b\n\n  c\nlit: |2\n    x\n  y\nz: 1\n---\n",
	"---\nsteps:\n  - id: a\n    run:\n      shells: [\"echo [{(\", '- ? :']\n      agents:\n        - prompt: >-\n            a: b\n          max-turns: 3\n---\n",
	"---\n[a, b]: c\n\"q\": r\n's': t\n<<: {u: v}\n---\n",
	"--- |\n  a: [\n...\n--- \n- x\n",
	"---\na: b\n  - c\n  - [d\nf: g\n---\n",
	"---\n%YAML 1.2\n---\na: 1\n",
	// The parser nests a key after an entry that ends its line in the
	// entry, however it is indented.
	strings.Repeat("a:\n-\n", 16) + "z: 1\n",
	strings.Repeat("- !t\n", 16) + "z: 1\n",
	strings.Repeat("a: !t\n", 16) + "z: 1\n",
	// A quote right after "&" or "*" starts the name, over lines: the
	// property still ends the line (found by FuzzCard).
	strings.Repeat("0: !0 &\"\n\"000", 8),
	strings.Repeat("0: !0 &'\n'000", 8),
	strings.Repeat("a: &\"x\"\n", 8) + "z: 1\n",
	"---\na: *\"b\n\"\nc: d\n---\n",
}

func TestCardDepthMatchesParser(t *testing.T) {
	for _, src := range append(cardDepthCases, cardFuzzSeeds...) {
		checkCardDepth(t, []byte(src))
	}
}

// TestCardDepthAllocations: the pre-scan allocates its two stacks and
// nothing for each byte.
func TestCardDepthAllocations(t *testing.T) {
	for name, src := range map[string]string{
		"deep":  "---\n" + strings.Repeat("- [{a: !t &x ", 100_000) + "\n",
		"long":  strings.Repeat(cardDepthCases[0]+cardDepthCases[1]+cardDepthCases[7], 2_000),
		"lines": "---\n" + strings.Repeat("k:\n  - x: |\n      y\n", 10_000),
	} {
		b := []byte(src)
		allocs := testing.AllocsPerRun(5, func() { cardDepth(b, MaxNesting) })
		if allocs > 2 {
			t.Errorf("%s: %.0f allocations; want the two stacks only", name, allocs)
		}
	}
}

// TestCardDepthRepeatedShapes repeats small shapes of YAML, made at random
// (with a fixed seed) of the pieces the lexer tells apart, twelve times
// over, and holds the count to the parser's tree as checkCardDepth does:
// a shape the parser nests deeper at each repetition (a key after an entry
// ending its line, a property ending its line) must be counted deeper at
// each too.
func TestCardDepthRepeatedShapes(t *testing.T) {
	pieces := []string{"a:", "a: ", "- ", "-", "? ", "!t ", "!t", "&x ", "&x", "*x", "[", "]", "{", "}", ",",
		"\n", "\n", "\n", "  ", " ", "|", ">", `"q"`, "'q'", "#c", "---", "...", ":", "b", "<<: ", "%Y", "\t",
		": ", "\"a\nb\"", "|-\n", "   ", "x y", "? a", "&x a:", "*x :"}
	r := rand.New(rand.NewSource(1))
	for range 5_000 {
		var shape strings.Builder
		for range 1 + r.Intn(10) {
			shape.WriteString(pieces[r.Intn(len(pieces))])
		}
		checkCardDepth(t, bytes.Repeat([]byte(shape.String()), 12))
	}
}
