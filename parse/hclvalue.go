package parse

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/cairn-dev/cairn/ir"
)

// hclFile is an HCL file being read: its bytes, where its lines start, and
// the refusals so far. Positions are computed from hclsyntax's byte offsets,
// so that columns count characters as the TOML front-end's do (hclsyntax
// counts grapheme clusters).
type hclFile struct {
	file  string
	src   []byte
	lines []int
	diags []ir.Diagnostic
}

// clampOffset returns off moved inside src.
func clampOffset(off int, src []byte) int {
	return max(0, min(off, len(src)))
}

// text returns the bytes of r, or none when hclsyntax left r ending before
// it starts (it may after a syntax error).
func (f *hclFile) text(r hcl.Range) []byte {
	start := clampOffset(r.Start.Byte, f.src)
	return f.src[start:max(start, clampOffset(r.End.Byte, f.src))]
}

// pos returns the position of byte offset off.
func (f *hclFile) pos(off int) ir.Pos {
	off = clampOffset(off, f.src)
	line := sort.Search(len(f.lines), func(i int) bool { return f.lines[i] > off }) - 1
	return ir.Pos{Line: int32(line + 1), Column: int32(1 + utf8.RuneCount(f.src[f.lines[line]:off])), Offset: int32(off)}
}

// rng converts an hclsyntax range.
func (f *hclFile) rng(r hcl.Range) ir.Range {
	return f.span(r.Start.Byte, r.End.Byte)
}

// span returns the range of bytes start up to end.
func (f *hclFile) span(start, end int) ir.Range {
	start = clampOffset(start, f.src)
	return ir.Range{File: f.file, Start: f.pos(start), End: f.pos(max(start, end))}
}

// report records an error of rule at r.
func (f *hclFile) report(rule string, at ir.Range, related []ir.Related, format string, args ...any) {
	f.diags = append(f.diags, ir.Diagnostic{
		Rule:     rule,
		Severity: ir.Error,
		Message:  fmt.Sprintf(format, args...),
		Range:    at,
		Related:  related,
	})
}

// reportFixes records an error of rule at r that fixes resolve.
func (f *hclFile) reportFixes(rule string, at ir.Range, fixes []ir.Fix, format string, args ...any) {
	f.diags = append(f.diags, ir.Diagnostic{
		Rule:     rule,
		Severity: ir.Error,
		Message:  fmt.Sprintf(format, args...),
		Range:    at,
		Fixes:    fixes,
	})
}

// replaceWith is the fix, described by message, that writes text in place
// of what r holds.
func replaceWith(r ir.Range, text, message string) []ir.Fix {
	return []ir.Fix{{Message: message, Edits: []ir.Edit{{Range: r, NewText: text}}}}
}

// hclKind is the type of a literal HCL value.
type hclKind int

// The kinds of literal values, and hclRefused for an expression that is
// not one (refused already) or that a syntax error broke.
const (
	hclRefused hclKind = iota
	hclString
	hclNumber
	hclBool
	hclNull
	hclList
	hclObject
)

// String names k the way type refusals say it.
func (k hclKind) String() string {
	switch k {
	case hclString:
		return "a string"
	case hclNumber:
		return "a number"
	case hclBool:
		return "a boolean"
	case hclNull:
		return "null"
	case hclList:
		return "a list"
	case hclObject:
		return "an object"
	}
	return "an expression"
}

// hclValue is a literal value with its range. Which fields mean anything
// depends on kind.
type hclValue struct {
	kind  hclKind
	rng   ir.Range
	str   string
	spans []ir.Span
	num   *big.Float
	b     bool
	items []*hclValue
	pairs []hclPair
	// partial marks an object some of whose items were refused and left
	// out.
	partial bool
}

// hclPair is one KEY = value of an object.
type hclPair struct {
	key      string
	keyRange ir.Range
	value    *hclValue
}

// literal reads e as a literal value, refusing (rule hcl-expression) every
// part of it that is not one: a variable, a call, an operation, a
// conditional, an interpolation or directive in a string.
func (fe *hclProcess) literal(e hclsyntax.Expression) *hclValue {
	v := &hclValue{rng: fe.rng(e.Range())}
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		fromCty(v, e.Val)
	case *hclsyntax.UnaryOpExpr:
		// -1 is a negative number to the user, an operation to hclsyntax.
		lit, ok := e.Val.(*hclsyntax.LiteralValueExpr)
		if e.Op == hclsyntax.OpNegate && ok && lit.Val.IsKnown() && !lit.Val.IsNull() && lit.Val.Type() == cty.Number {
			v.kind = hclNumber
			v.num = new(big.Float).Neg(lit.Val.AsBigFloat())
			return v
		}
		fe.notLiteral(e)
	case *hclsyntax.TemplateExpr:
		fe.template(v, e)
	case *hclsyntax.TemplateWrapExpr:
		fe.templatePart(e.Wrapped)
	case *hclsyntax.TupleConsExpr:
		v.kind = hclList
		v.items = make([]*hclValue, 0, len(e.Exprs))
		for _, item := range e.Exprs {
			v.items = append(v.items, fe.literal(item))
		}
	case *hclsyntax.ObjectConsExpr:
		v.kind = hclObject
		fe.object(v, e)
	default:
		fe.notLiteral(e)
	}
	return v
}

// fromCty fills v from the value of a literal: unknown only where a syntax
// error left a placeholder.
func fromCty(v *hclValue, val cty.Value) {
	switch {
	case !val.IsKnown():
	case val.IsNull():
		v.kind = hclNull
	case val.Type() == cty.String:
		v.kind, v.str = hclString, val.AsString()
	case val.Type() == cty.Number:
		v.kind, v.num = hclNumber, val.AsBigFloat()
	case val.Type() == cty.Bool:
		v.kind, v.b = hclBool, val.True()
	}
}

// object reads the items of an object constructor, refusing a key given
// twice (the first is kept) and any key that is not a name or a string.
func (fe *hclProcess) object(v *hclValue, e *hclsyntax.ObjectConsExpr) {
	seen := map[string]ir.Range{}
	for _, item := range e.Items {
		key, keyRange, ok := fe.objectKey(item.KeyExpr)
		value := fe.literal(item.ValueExpr)
		if !ok {
			v.partial = true
			continue
		}
		if first, dup := seen[key]; dup {
			fe.report(ir.RuleDuplicate, keyRange, []ir.Related{{Range: first, Message: "first defined here"}},
				"key %q is already defined in this object", key)
			continue
		}
		seen[key] = keyRange
		v.pairs = append(v.pairs, hclPair{key: key, keyRange: keyRange, value: value})
	}
}

// objectKey reads the key of an object item: a bare name or a literal
// string.
func (fe *hclProcess) objectKey(e hclsyntax.Expression) (string, ir.Range, bool) {
	at := fe.rng(e.Range())
	k, ok := e.(*hclsyntax.ObjectConsKeyExpr)
	if !ok {
		fe.notLiteral(e)
		return "", at, false
	}
	if !k.ForceNonLiteral {
		if name := hcl.ExprAsKeyword(k.Wrapped); name != "" {
			return name, at, true
		}
	}
	if k.ForceNonLiteral {
		fe.notLiteral(k.Wrapped)
		return "", at, false
	}
	kv := fe.literal(k.Wrapped)
	switch kv.kind {
	case hclString:
		return kv.str, at, true
	case hclRefused:
		return "", at, false
	}
	fe.report(ir.RuleType, at, nil, "an object's keys must be names or strings, not %s", kv.kind)
	return "", at, false
}

// notLiteral refuses e, an expression that is not a literal value.
func (fe *hclProcess) notLiteral(e hclsyntax.Expression) {
	at := fe.rng(e.Range())
	if v, ok := e.(*hclsyntax.ScopeTraversalExpr); ok && len(v.Traversal) == 1 {
		// A bare word is most often a string without its quotes.
		name := v.Traversal.RootName()
		fe.reportFixes(ir.RuleHCLExpression, at, replaceWith(at, strconv.Quote(name), fmt.Sprintf("write %s as the string %q", name, name)),
			"variable %q is not a literal; did you mean the string %q?", name, name)
		return
	}
	fe.report(ir.RuleHCLExpression, at, nil, "%s is not a literal; a process file takes literal values only", describeExpr(e))
}

// describeExpr says what a non-literal expression is.
func describeExpr(e hclsyntax.Expression) string {
	switch e := e.(type) {
	case *hclsyntax.ScopeTraversalExpr, *hclsyntax.RelativeTraversalExpr, *hclsyntax.IndexExpr, *hclsyntax.SplatExpr:
		return "a reference"
	case *hclsyntax.FunctionCallExpr:
		return fmt.Sprintf("a call of function %q", e.Name)
	case *hclsyntax.ConditionalExpr:
		return "a conditional"
	case *hclsyntax.BinaryOpExpr, *hclsyntax.UnaryOpExpr:
		return "an operation"
	case *hclsyntax.ForExpr:
		return "a for expression"
	case *hclsyntax.ParenthesesExpr:
		return "an expression in parentheses"
	}
	return "an expression"
}

// template reads a quoted string or heredoc, which is a literal when it
// holds no interpolation or directive; its text and spans come from
// decoding the file anew (see templateText).
func (fe *hclProcess) template(v *hclValue, e *hclsyntax.TemplateExpr) {
	var b strings.Builder
	literal := true
	for _, part := range e.Parts {
		if lit, ok := part.(*hclsyntax.LiteralValueExpr); ok {
			val := lit.Val
			if !val.IsKnown() {
				literal = false // a syntax error's placeholder
				continue
			}
			if !val.IsNull() && val.Type() == cty.String {
				b.WriteString(val.AsString())
				continue
			}
		}
		literal = false
		fe.templatePart(part)
	}
	if !literal {
		return
	}
	v.kind = hclString
	v.str, v.spans = fe.templateText(e.SrcRange, b.String())
}

// templatePart refuses an interpolation or directive of a template. An
// interpolation is pointed at from its "${" to its "}"; the message says how
// to write the same text literally.
func (fe *hclProcess) templatePart(part hclsyntax.Expression) {
	r := part.Range()
	start := clampOffset(r.Start.Byte, fe.src)
	// After a syntax error, hclsyntax may leave a range that ends before
	// it starts.
	end := max(start, clampOffset(r.End.Byte, fe.src))
	src := fe.src
	if bytes.HasPrefix(src[start:], []byte("%{")) {
		text := "%{…}"
		if i := bytes.IndexByte(src[start:end], '}'); i >= 0 && shortText(src[start:start+i+1]) {
			text = string(src[start : start+i+1])
		}
		fe.report(ir.RuleHCLExpression, fe.span(start, end), nil,
			"template directive %q is not a literal; write \"%%%%{\" for a literal \"%%{\"", text)
		return
	}
	i := start
	for i > 0 && isTemplateFiller(src[i-1]) {
		i--
	}
	j := end
	for j < len(src) && isTemplateFiller(src[j]) {
		j++
	}
	if i >= 2 && string(src[i-2:i]) == "${" && j < len(src) && src[j] == '}' {
		start, end = i-2, j+1
	}
	text := string(src[start:end])
	if !strings.HasPrefix(text, "${") || !shortText(src[start:end]) {
		fe.report(ir.RuleHCLExpression, fe.span(start, end), nil,
			"interpolation \"${…}\" is not a literal; write \"$${\" for a literal \"${\"")
		return
	}
	fe.report(ir.RuleHCLExpression, fe.span(start, end), nil,
		"interpolation %q is not a literal; write %q for a literal %q", text, "$"+text, text)
}

// isTemplateFiller reports whether c may stand between "${" or "}" and the
// expression they hold: blanks, and the "~" that strips them.
func isTemplateFiller(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '~'
}

// shortText reports whether b is short enough to quote in a message.
func shortText(b []byte) bool {
	return len(b) <= 40 && !bytes.ContainsAny(b, "\r\n") && utf8.Valid(b)
}

// String reads a as a string.
func (fe *hclProcess) String(a *hclsyntax.Attribute) ir.Field[string] {
	return fe.stringOf(a, fe.literal(a.Expr))
}

// stringOf reads v, the value of a, as a string.
func (fe *hclProcess) stringOf(a *hclsyntax.Attribute, v *hclValue) ir.Field[string] {
	if v.kind == hclString {
		return ir.Field[string]{Value: v.str, Set: true, Key: fe.rng(a.NameRange), Range: v.rng, Spans: v.spans}
	}
	fe.typeError(a, v, "a string")
	return hclBad[string](fe, a, v)
}

// Expression reads a as an expression kept as its source text, with a
// span that maps it back into the file: what package expr parses. A quoted
// string with no interpolation is read as the expression it holds, as a
// TOML file writes one.
func (fe *hclProcess) Expression(a *hclsyntax.Attribute) ir.Field[string] {
	if t, ok := a.Expr.(*hclsyntax.TemplateExpr); ok && len(t.Parts) == 1 {
		if _, ok := t.Parts[0].(*hclsyntax.LiteralValueExpr); ok {
			return fe.String(a)
		}
	}
	r := a.Expr.Range()
	at := fe.rng(r)
	return ir.Field[string]{Value: string(fe.text(r)), Set: true, Key: fe.rng(a.NameRange), Range: at, Spans: []ir.Span{{Offset: 0, Start: at.Start}}}
}

// Duration reads a as a string that holds a duration, refusing a number
// with the string it was likely meant to be in unit (30 and "s" give "30s").
func (fe *hclProcess) Duration(a *hclsyntax.Attribute, unit string) ir.Field[string] {
	v := fe.literal(a.Expr)
	if v.kind != hclNumber {
		return fe.stringOf(a, v)
	}
	number := ""
	if v.num.IsInt() {
		number = v.num.Text('f', 0)
	}
	var fixes []ir.Fix
	if d := ir.DurationOf(number, unit); d != "" {
		fixes = replaceWith(v.rng, strconv.Quote(d), fmt.Sprintf("write %s as %q", number, d))
	}
	fe.reportFixes(ir.RuleType, v.rng, fixes, "%q must be a string, not %s%s", a.Name, v.kind, ir.DurationHint(number, unit))
	return hclBad[string](fe, a, v)
}

// Int reads a as an integer.
func (fe *hclProcess) Int(a *hclsyntax.Attribute) ir.Field[int] {
	v := fe.literal(a.Expr)
	if v.kind != hclNumber {
		fe.typeError(a, v, "an integer")
		return hclBad[int](fe, a, v)
	}
	if !v.num.IsInt() {
		fe.report(ir.RuleType, v.rng, nil, "%q must be an integer, not a fractional number", a.Name)
		return hclBad[int](fe, a, v)
	}
	n, acc := v.num.Int64()
	if acc != big.Exact || n < math.MinInt || n > math.MaxInt {
		fe.report(ir.RuleType, v.rng, nil, "%q is too large", a.Name)
		return hclBad[int](fe, a, v)
	}
	return ir.Field[int]{Value: int(n), Set: true, Key: fe.rng(a.NameRange), Range: v.rng}
}

// Budget reads a as a budget: a number, or a string, kept Quoted for rule
// invalid-value to refuse. A number too large for a float64 is infinite,
// which that rule refuses too.
func (fe *hclProcess) Budget(a *hclsyntax.Attribute) ir.Field[ir.Budget] {
	v := fe.literal(a.Expr)
	switch v.kind {
	case hclNumber:
		usd, _ := v.num.Float64()
		return ir.Field[ir.Budget]{Value: ir.Budget{USD: usd}, Set: true, Key: fe.rng(a.NameRange), Range: v.rng}
	case hclString:
		return ir.Field[ir.Budget]{Value: ir.Budget{Quoted: true, Text: v.str}, Set: true, Key: fe.rng(a.NameRange), Range: v.rng}
	}
	fe.typeError(a, v, "a number")
	return hclBad[ir.Budget](fe, a, v)
}

// Bool reads a as a boolean.
func (fe *hclProcess) Bool(a *hclsyntax.Attribute) ir.Field[bool] {
	v := fe.literal(a.Expr)
	if v.kind == hclBool {
		return ir.Field[bool]{Value: v.b, Set: true, Key: fe.rng(a.NameRange), Range: v.rng}
	}
	fe.typeError(a, v, "a boolean")
	return hclBad[bool](fe, a, v)
}

// Strings reads a as a list of strings. Each item that is not a string is
// refused at the item and kept as a Bad item; the list is then Bad too.
func (fe *hclProcess) Strings(a *hclsyntax.Attribute) ir.Strings {
	v := fe.literal(a.Expr)
	if v.kind != hclList {
		fe.typeError(a, v, "a list of strings")
		return hclBad[[]ir.Field[string]](fe, a, v)
	}
	out := ir.Strings{Value: make([]ir.Field[string], 0, len(v.items)), Set: true, Key: fe.rng(a.NameRange), Range: v.rng}
	for _, item := range v.items {
		if item.kind != hclString {
			if item.kind != hclRefused {
				fe.report(ir.RuleType, item.rng, nil, "items of %q must be strings, not %s", a.Name, item.kind)
			}
			out.Bad = true
			out.Value = append(out.Value, ir.Field[string]{Set: true, Bad: true, Range: item.rng})
			continue
		}
		out.Value = append(out.Value, ir.Field[string]{Value: item.str, Set: true, Range: item.rng, Spans: item.spans})
	}
	return out
}

// StringMap reads a as an object of strings, { NAME = "value" }, in file
// order. A value that is not a string is refused at the value and left out.
func (fe *hclProcess) StringMap(a *hclsyntax.Attribute) ir.Field[[]ir.Pair] {
	v := fe.literal(a.Expr)
	if v.kind != hclObject {
		fe.typeError(a, v, "an object")
		return hclBad[[]ir.Pair](fe, a, v)
	}
	out := ir.Field[[]ir.Pair]{Value: make([]ir.Pair, 0, len(v.pairs)), Set: true, Key: fe.rng(a.NameRange), Range: v.rng}
	for _, kv := range v.pairs {
		val := kv.value
		if val.kind != hclString {
			if val.kind != hclRefused {
				fe.report(ir.RuleType, val.rng, nil, "%q in %q must be a string, not %s", kv.key, a.Name, val.kind)
			}
			out.Bad = true
			continue
		}
		out.Value = append(out.Value, ir.Pair{Name: kv.key, Field: ir.Field[string]{
			Value: val.str, Set: true, Key: kv.keyRange, Range: val.rng, Spans: val.spans,
		}})
	}
	if v.partial {
		out.Bad = true
	}
	return out
}

// typeError refuses v, the value of a, which is not the want ("a string")
// a takes; a value refused already is not refused again.
func (fe *hclProcess) typeError(a *hclsyntax.Attribute, v *hclValue, want string) {
	if v.kind == hclRefused {
		return
	}
	fe.report(ir.RuleType, v.rng, nil, "%q must be %s, not %s", a.Name, want, v.kind)
}

// hclBad is the field of an attribute whose value was refused.
func hclBad[T any](fe *hclProcess, a *hclsyntax.Attribute, v *hclValue) ir.Field[T] {
	return ir.Field[T]{Set: true, Bad: true, Key: fe.rng(a.NameRange), Range: v.rng}
}
