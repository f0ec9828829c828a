package parse

import (
	"reflect"
	"testing"

	"github.com/goccy/go-yaml/ast"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/source/sourcetest"
)

// cardFuzzSeeds are realistic cards and the corners of YAML they meet:
// block scalars of every chomping, flow collections, quoting, anchors,
// several documents, a missing fence.
var cardFuzzSeeds = []string{
	cardSeed,
	"---\nsteps:\n  - id: a\n    run:\n      shells:\n        - |+\n          keep\n\n        - >\n          folded\n            more\n          lines\n\n          para\n---\n",
	"---\nsteps: [{id: a, run: {shells: [\"echo \\\"x\\\"\", 'it''s'], agents: [{prompt: p, max-turns: 99999999999999999999}]}}]\n---\n",
	"---\ndescription: &a x\nrun-expiry: *a\nsteps:\n  - <<: {id: b}\n    !!str id: c\n---\n",
	"---\na: 1\n...\n---\n",
	"---\r\ndescription: crlf\r\nsteps:\r\n  - id: é\r\n    run:\r\n      shells:\r\n        - |-\r\n          echo é\r\n---\r\n",
	"---\n? complex\n: key\n1: x\nnull: y\n---\n",
	"---\nsteps:\n  - id: a\n    run:\n      shells:\n        - |2-\n            indented\n          by two\n---\n",
	"description: no fence\n",
	"---\naccess: read\nsteps:\n  - id: a\n    run:\n      agents:\n        - {prompt: p, access: full}\n        - prompt: q\n          access: [write]\n---\n",
	"---\ngithub:\n  runs-on: self-hosted\n  schedule: [\"0 3 * * *\", 5]\n  timeout-minutes: 30\n  runs_on: x\n---\n",
	"---\nbudget-usd: 4.50\nsteps:\n  - id: a\n    run:\n      agents:\n        - {prompt: p, budget-usd: 1}\n        - prompt: q\n          budget-usd: abc\n        - prompt: r\n          budget-usd: [.nan]\n---\n",
	"---\nsteps:\n  - id: a\n  - id: a\n  - 3\n  - [x]\n---\nbody\n---\n",
	"---\nsteps:\n  - id: a\n    output-schema: {type: object, required: [s], properties: {s: {enum: [low, 2, 1.5, true, null, .inf]}}}\n    run: {shells: [x]}\n  - id: b\n    output-schema: s.json\n  - id: c\n    output-schema: [1, {a: *x}]\n---\n",
	"---\nsteps:\n  - id: a\n    for-each: '[\"x\", 2]'\n    run: {shells: [x]}\n  - id: b\n    needs: [a]\n    for-each: steps.a.output\n    when: item != 2\n  - id: c\n    for-each: [1, 2]\n---\n",
	"---\nsteps:\n  - id: a\n    run: {shells: [x]}\n  - id: b\n    needs: [a, b, 3, {x: y}]\n  - id: c\n    needs: a\n---\n",
}

func FuzzCard(f *testing.F) {
	for _, s := range append(cardFuzzSeeds, cardDepthCases...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		const file = "fuzz.procedure.card"
		p, diags := Card(file, src)
		// Positions are in the text the front-end read: no byte order
		// mark, CRLF read as LF.
		src = source.Text(src)
		sourcetest.CheckDiagnostics(t, file, src, diags)
		if p == nil {
			t.Fatal("no process")
		}
		// Cards fall back to no spans where YAML unescapes or folds a
		// value, so a string without spans is no failure here.
		checkProcess(t, src, reflect.ValueOf(p).Elem(), true)
		checkCardDepth(t, src)
	})
}

// astDepth is an ast.Visitor that records the depth of the deepest node.
type astDepth struct {
	depth   int
	deepest *int
}

func (v *astDepth) Visit(ast.Node) ast.Visitor {
	*v.deepest = max(*v.deepest, v.depth+1)
	return &astDepth{depth: v.depth + 1, deepest: v.deepest}
}
