package parse

import (
	"github.com/goccy/go-yaml/token"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/cairn-dev/cairn/ir"
)

// MaxNesting is how deeply an HCL file or a card's front matter may nest
// before its parser is given it: the parsers recurse once a level or more,
// and a file of a million open brackets would overflow the stack (a few
// thousand already cost seconds and hundreds of MiB). A process nests a
// handful of levels; TOML's parser stops at its own limit.
const MaxNesting = 100

// nesting tracks how deeply the tokens of a file nest, as a parser would
// recurse on them: each open bracket is a level, plus the operators it
// recurses on (prefix operators, conditionals) since the last item of that
// bracket began, which do not close.
type nesting struct {
	// open holds, for each open level, its kind and the operators counted
	// in the level around it when it opened.
	open []openLevel
	// depth is the levels open and the operators counted around them;
	// pending is the operators of the current item.
	depth, pending int
}

// openLevel is one level of nesting: what closes it, and the operators of
// the level around it, counted again once it closes.
type openLevel struct {
	kind    int
	pending int
}

// push opens a level of kind.
func (n *nesting) push(kind int) {
	n.open = append(n.open, openLevel{kind: kind, pending: n.pending})
	n.depth += 1 + n.pending
	n.pending = 0
}

// pop closes the innermost open level of one of kinds, and every level
// inside it, which a syntax error left open; a closer that matches no open
// level closes none.
func (n *nesting) pop(kinds ...int) {
	for i := len(n.open) - 1; i >= 0; i-- {
		for _, k := range kinds {
			if n.open[i].kind != k {
				continue
			}
			for j := len(n.open) - 1; j >= i; j-- {
				n.depth -= 1 + n.open[j].pending
			}
			n.pending = n.open[i].pending
			n.open = n.open[:i]
			return
		}
	}
}

// top is the kind of the innermost open level, or 0 when none is.
func (n *nesting) top() int {
	if len(n.open) == 0 {
		return 0
	}
	return n.open[len(n.open)-1].kind
}

// level is how deep the current token is.
func (n *nesting) level() int {
	return n.depth + n.pending
}

// The kinds of HCL nesting levels: the token type that opens each, and two
// of cairn's own for a template directive and the if or for it begins.
const (
	hclTemplateDirective = -1 - iota
	hclTemplateBlock
)

// hclTooDeep returns the first token of tokens that nests deeper than
// MaxNesting, and false when none does. It counts what hclsyntax's parser
// recurses on: brackets, braces, parentheses, quotes and heredocs, template
// interpolations and directives, the if and for blocks of templates, prefix
// operators (! and -) and conditionals (?).
func hclTooDeep(tokens hclsyntax.Tokens) (hclsyntax.Token, bool) {
	var n nesting
	operand := false
	for i, tk := range tokens {
		switch tk.Type {
		case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen,
			hclsyntax.TokenTemplateInterp, hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc:
			n.push(int(tk.Type))
		case hclsyntax.TokenTemplateControl:
			keyword := ""
			if i+1 < len(tokens) && tokens[i+1].Type == hclsyntax.TokenIdent {
				keyword = string(tokens[i+1].Bytes)
			}
			switch keyword {
			case "if", "for":
				n.push(hclTemplateBlock)
			case "endif", "endfor":
				n.pop(hclTemplateBlock)
			}
			n.push(hclTemplateDirective)
		case hclsyntax.TokenCBrace:
			n.pop(int(hclsyntax.TokenOBrace))
		case hclsyntax.TokenCBrack:
			n.pop(int(hclsyntax.TokenOBrack))
		case hclsyntax.TokenCParen:
			n.pop(int(hclsyntax.TokenOParen))
		case hclsyntax.TokenCQuote:
			n.pop(int(hclsyntax.TokenOQuote))
		case hclsyntax.TokenCHeredoc:
			n.pop(int(hclsyntax.TokenOHeredoc))
		case hclsyntax.TokenTemplateSeqEnd:
			n.pop(int(hclsyntax.TokenTemplateInterp), hclTemplateDirective)
		case hclsyntax.TokenBang, hclsyntax.TokenQuestion:
			n.pending++
		case hclsyntax.TokenMinus:
			if !operand {
				n.pending++
			}
		case hclsyntax.TokenComma, hclsyntax.TokenEqual, hclsyntax.TokenFatArrow, hclsyntax.TokenEllipsis:
			n.pending = 0
		case hclsyntax.TokenNewline:
			// A newline ends an attribute or an object's item; inside
			// parentheses, brackets and templates it is only space.
			if k := n.top(); k == 0 || k == int(hclsyntax.TokenOBrace) {
				n.pending = 0
			}
		}
		if n.level() > MaxNesting {
			return tk, true
		}
		switch tk.Type {
		case hclsyntax.TokenIdent, hclsyntax.TokenNumberLit, hclsyntax.TokenCBrace, hclsyntax.TokenCBrack,
			hclsyntax.TokenCParen, hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc:
			operand = true
		default:
			operand = false
		}
	}
	return hclsyntax.Token{}, false
}

// hclNesting refuses an HCL file that nests deeper than MaxNesting before
// hclsyntax parses it, at the token that goes too deep; a lexical error
// before that token is reported instead, as hclsyntax would report it
// first. It reports whether the file was refused.
func (fe *hclProcess) hclNesting(src []byte) bool {
	tokens, lexed := hclsyntax.LexConfig(src, fe.file, hcl.InitialPos)
	tk, deep := hclTooDeep(tokens)
	if !deep {
		return false
	}
	var first *hcl.Diagnostic
	for _, d := range lexed {
		if d.Severity == hcl.DiagError && d.Subject != nil && d.Subject.Start.Byte < tk.Range.Start.Byte && (first == nil || before(d, first)) {
			first = d
		}
	}
	if first != nil {
		fe.report(ir.RuleSyntax, fe.rng(*first.Subject), nil, "%s", hclMessage(first))
		return true
	}
	fe.report(ir.RuleSyntax, fe.rng(tk.Range), nil, "nested more than %d levels deep; a process file needs only a few", MaxNesting)
	return true
}

// cardTooDeep returns the first token of a card's front matter that nests
// deeper than MaxNesting, and nil when none does.
func cardTooDeep(tokens token.Tokens) *token.Token {
	_, over := cardNesting(tokens, MaxNesting)
	return over
}

// cardNesting returns how deeply the tokens of a card's front matter nest,
// up to the first token deeper than limit, and that token (nil when there
// is none). In block context a line indented by n columns is at most n+2
// levels deep (a nested collection is indented further, or two columns
// along its line), and each indicator after the line's start (-, ?, :, a
// tag, an anchor) may open one more; a line after one that ends in a tag or
// an anchor is counted on from it, as the YAML parser nests the next line's
// node in it. Flow collections nest by their brackets, with the indicators
// since their last entry.
func cardNesting(tokens token.Tokens, limit int) (int, *token.Token) {
	var n nesting
	deepest, base, line := 0, 0, 0
	afterProperty := false
	for _, tk := range tokens {
		if tk.Type == token.CommentType {
			continue
		}
		if tk.Position.Line != line && len(n.open) == 0 {
			line = tk.Position.Line
			if !afterProperty {
				base, n.pending = 0, 0
			}
			base = max(base, tk.Position.Column+1)
		}
		afterProperty = false
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			n.push(int(tk.Type))
		case token.SequenceEndType:
			n.pop(int(token.SequenceStartType))
		case token.MappingEndType:
			n.pop(int(token.MappingStartType))
		case token.SequenceEntryType, token.MappingKeyType, token.MappingValueType:
			n.pending++
		case token.TagType, token.AnchorType:
			n.pending++
			afterProperty = true
		case token.CollectEntryType:
			n.pending = 0
		}
		level := base + n.level()
		if level > limit {
			return deepest, tk
		}
		deepest = max(deepest, level)
	}
	return deepest, nil
}
