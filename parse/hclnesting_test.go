package parse

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/cairn-dev/cairn/internal/source"
)

// hclTokenDepth is hclDepth's oracle: the same count over the tokens that
// hclsyntax's own lexer makes of src, with the lexer's templates followed
// from them. It reports false when the lexer refused a token, where
// hclDepth, which reads on, may differ.
func hclTokenDepth(src []byte, limit int) (depth, bool) {
	tokens, diags := hclsyntax.LexConfig(src, "oracle.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		return depth{}, false
	}
	var n nesting
	var d depth
	// templates holds, for each template the lexer is in, the braces
	// open when a template sequence began (0 for a string or a heredoc).
	var templates []int
	braces := 0
	operand := false
	for i, tk := range tokens {
		frames := len(templates)
		switch tk.Type {
		case hclsyntax.TokenOBrace:
			braces++
			n.push(int(tk.Type))
		case hclsyntax.TokenOBrack, hclsyntax.TokenOParen:
			n.push(int(tk.Type))
		case hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc:
			templates = append(templates, 0)
			n.push(int(tk.Type))
		case hclsyntax.TokenTemplateInterp:
			braces++
			templates = append(templates, braces)
			n.push(int(tk.Type))
		case hclsyntax.TokenTemplateControl:
			braces++
			templates = append(templates, braces)
			keyword := ""
			if i+1 < len(tokens) && tokens[i+1].Type == hclsyntax.TokenIdent {
				keyword = string(tokens[i+1].Bytes)
			}
			switch keyword {
			case "if", "for":
				n.push(hclTemplateBlock)
			case "endif", "endfor":
				n.pop(hclTemplateBlock, hclTemplateBlock)
			}
			n.push(hclTemplateDirective)
		case hclsyntax.TokenCBrace:
			braces--
			n.pop(hclBrace, hclBrace)
		case hclsyntax.TokenCBrack:
			n.pop(hclBrack, hclBrack)
		case hclsyntax.TokenCParen:
			n.pop(hclParen, hclParen)
		case hclsyntax.TokenCQuote:
			templates = templates[:len(templates)-1]
			n.pop(hclQuote, hclQuote)
		case hclsyntax.TokenCHeredoc:
			templates = templates[:len(templates)-1]
			n.pop(hclHeredoc, hclHeredoc)
		case hclsyntax.TokenTemplateSeqEnd:
			if len(templates) > 0 && templates[len(templates)-1] == braces {
				templates = templates[:len(templates)-1]
			}
			braces--
			n.pop(hclSequence, hclTemplateDirective)
		case hclsyntax.TokenBang, hclsyntax.TokenQuestion:
			n.pending++
		case hclsyntax.TokenMinus:
			if !operand {
				n.pending++
			}
		case hclsyntax.TokenComma, hclsyntax.TokenEqual, hclsyntax.TokenFatArrow, hclsyntax.TokenEllipsis:
			n.pending = 0
		case hclsyntax.TokenNewline, hclsyntax.TokenComment:
			// A line comment takes the newline that ends it, and the
			// parser reads it as that newline.
			if tk.Type == hclsyntax.TokenNewline || bytes.HasSuffix(tk.Bytes, []byte("\n")) {
				if k := n.top(); k == 0 || k == hclBrace {
					n.pending = 0
				}
			}
		}
		if d.reach(n.level(), limit, tk.Range.Start.Byte, tk.Range.End.Byte) {
			return d, true
		}
		if len(templates) > frames && frames > limit {
			d.over, d.start, d.end = true, tk.Range.Start.Byte, tk.Range.End.Byte
			return d, true
		}
		switch tk.Type {
		case hclsyntax.TokenIdent, hclsyntax.TokenNumberLit, hclsyntax.TokenCBrace, hclsyntax.TokenCBrack,
			hclsyntax.TokenCParen, hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc:
			operand = true
		default:
			operand = false
		}
	}
	return d, true
}

// checkHCLDepth asserts that hclDepth counts src as its oracle does, at the
// limit the front-end uses and at small ones, which small files go past.
func checkHCLDepth(t *testing.T, src []byte) {
	t.Helper()
	src = source.Text(src)
	if !utf8.Valid(src) {
		// hclsyntax's lexer takes some bytes of no character into an
		// identifier, some not; hclDepth takes none, and so may count
		// more operators than the parser sees, never fewer brackets.
		return
	}
	for _, limit := range []int{1, 2, 3, 5, MaxNesting} {
		want, ok := hclTokenDepth(src, limit)
		if !ok {
			return
		}
		if got := hclDepth(src, limit); got != want {
			t.Fatalf("limit %d: hclDepth %+v; the lexer's tokens give %+v\n%q", limit, got, want, src)
		}
	}
}

// hclDepthCases are the corners of HCL's lexing that a bracket count could
// get wrong: brackets in strings, heredocs and comments, escapes of
// template sequences, and what "-" and a newline mean where they are.
var hclDepthCases = []string{
	`a = "[{(" # [[[` + "\n" + `b = "${ [ {a = "]"} ] }" // {{{` + "\n",
	"a = <<EOT\n[[[ ${ [1] } %{ if x }{{%{ endif }\n  EOT x\nEOT\nb = [\n]\n",
	"a = <<-EOT\n  $${ [ %%{ [\n  EOT\n",
	`a = "$$${[x]} $${ [ ${"\"[" } %%%{if a}x%{endif}"` + "\n",
	"a = /* [[[ */ - -1e-5 - x-y - (1) - !b\n",
	"a = /* never closed [[[\nb = [[[\n",
	"a = - - - [\n- - - 1]\nb = ! ! a ? b ? c : d : e\nc = { x = -1, y = - - 2 }\n",
	"a = [- - 1,\n- - 2] # comment\nb = !x # comment ends the item\nc = !y\n",
	"a = \"${ {b = \"${ { c = 1 } }\"} }\" ~}\n",
	"a = \"%{~ for x in y ~}${x}%{~ endfor ~}\" \"%{ iffy }\" \"%{\nif }\"\n",
	"a = <<EOT\n${ <<INNER\n[[\nINNER\n}\nEOT\nb = 1\n",
	"a = <<EOT\n  EOT\n",
	"a = <<EOT\n$\n%\nEOT\n",
	"a = <<EOT\n\u00a0EOT\u00a0\n",
	"a = <<EOT",
	"a = 1..2 + 1.e5 - 2 - 1.x\n",
	"a = [ \"${ ] [ \"${ ] [ \"${ ] }",
	"a = 1 == -1 != !x >= -2 <= -3 && -4 || -5 :: - 6 => -7 ... -8\n",
	"step \"a\" {\n  command = <<EOT\n    echo ${x}\n  EOT\n  env = { A = \"-${-1}\" }\n}\n",
}

func TestHCLDepthMatchesLexer(t *testing.T) {
	for _, src := range append(hclDepthCases, hclFuzzSeeds...) {
		checkHCLDepth(t, []byte(src))
	}
	// Each at its deepest, so that the limit is reached in every corner.
	for _, src := range hclDepthCases {
		checkHCLDepth(t, []byte(strings.Repeat(src, 3)))
	}
}

// TestHCLDepthAllocations: the pre-scan allocates its two stacks and
// nothing for each byte, refusing a deep file or reading a long one.
func TestHCLDepthAllocations(t *testing.T) {
	for name, src := range map[string]string{
		"deep":    "a = " + strings.Repeat(`[{("${`, 100_000) + "\n",
		"long":    strings.Repeat(hclDepthCases[0]+hclDepthCases[1]+hclDepthCases[4], 2_000),
		"heredoc": "a = <<EOT\n" + strings.Repeat("line ${x} %{ if y }[z]%{ endif }\n", 10_000) + "EOT\n",
	} {
		b := []byte(src)
		allocs := testing.AllocsPerRun(5, func() { hclDepth(b, MaxNesting) })
		if allocs > 2 {
			t.Errorf("%s: %.0f allocations; want the two stacks only", name, allocs)
		}
	}
}

func ExampleHCL_deep() {
	_, diags := HCL("deep.hcl", []byte("a = "+strings.Repeat("[", 1_000_000)+"\n"))
	for _, d := range diags {
		fmt.Printf("%s: %s\n", d.Range, d.Message)
	}
	// Output: deep.hcl:1:105: nested more than 100 levels deep; a process file needs only a few
}

// hclParserDepth is how deeply hclsyntax's parser recursed to build node,
// read from its tree: a level for each bracket, brace, parenthesis,
// template, prefix operator and conditional branch, none for what the
// parser reads in a loop (a chain of binary operators, of traversals or
// of index operations, a block's body items).
func hclParserDepth(node hclsyntax.Node) int {
	deepest := 0
	in := func(child hclsyntax.Node, levels int) {
		if child != nil && !reflectNil(child) {
			deepest = max(deepest, levels+hclParserDepth(child))
		}
	}
	switch n := node.(type) {
	case *hclsyntax.Body:
		for _, a := range n.Attributes {
			in(a.Expr, 0)
		}
		for _, b := range n.Blocks {
			in(b.Body, 1)
		}
	case *hclsyntax.ParenthesesExpr:
		in(n.Expression, 1)
	case *hclsyntax.RelativeTraversalExpr:
		in(n.Source, 0)
	case *hclsyntax.FunctionCallExpr:
		for _, a := range n.Args {
			in(a, 1)
		}
	case *hclsyntax.ConditionalExpr:
		in(n.Condition, 0)
		in(n.TrueResult, 1)
		in(n.FalseResult, 1)
	case *hclsyntax.IndexExpr:
		in(n.Collection, 0)
		in(n.Key, 1)
	case *hclsyntax.TupleConsExpr:
		for _, e := range n.Exprs {
			in(e, 1)
		}
	case *hclsyntax.ObjectConsExpr:
		for _, it := range n.Items {
			in(it.KeyExpr, 1)
			in(it.ValueExpr, 1)
		}
	case *hclsyntax.ObjectConsKeyExpr:
		in(n.Wrapped, 0)
	case *hclsyntax.ForExpr:
		in(n.CollExpr, 1)
		in(n.KeyExpr, 1)
		in(n.ValExpr, 1)
		in(n.CondExpr, 1)
	case *hclsyntax.SplatExpr:
		in(n.Source, 0)
		in(n.Each, 0)
	case *hclsyntax.BinaryOpExpr:
		in(n.LHS, 0)
		in(n.RHS, 0)
	case *hclsyntax.UnaryOpExpr:
		in(n.Val, 1)
	case *hclsyntax.TemplateExpr:
		for _, p := range n.Parts {
			in(p, 1)
		}
	case *hclsyntax.TemplateJoinExpr:
		in(n.Tuple, 0)
	case *hclsyntax.TemplateWrapExpr:
		in(n.Wrapped, 1)
	}
	return deepest
}

// reflectNil reports whether n is a nil pointer in an interface.
func reflectNil(n hclsyntax.Node) bool {
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// checkHCLParserDepth asserts that, in a file hclsyntax parses without an
// error, hclDepth counts at least half of how deeply hclsyntax's parser
// recursed: the pre-scan never lets a file through that the parser nests
// much deeper than the limit.
func checkHCLParserDepth(t *testing.T, src []byte) {
	t.Helper()
	src = source.Text(src)
	d := hclDepth(src, MaxNesting)
	if d.over {
		return
	}
	f, diags := hclsyntax.ParseConfig(src, "parser.hcl", hcl.InitialPos)
	if diags.HasErrors() || f == nil {
		return
	}
	if got := hclParserDepth(f.Body.(*hclsyntax.Body)); got > 2*d.deepest+2 {
		t.Fatalf("hclsyntax's tree is %d levels deep; hclDepth counts %d\n%q", got, d.deepest, src)
	}
}

func TestHCLParserDepth(t *testing.T) {
	for _, src := range append(hclDepthCases, hclFuzzSeeds...) {
		checkHCLParserDepth(t, []byte(src))
	}
}
