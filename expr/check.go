package expr

import (
	"slices"
	"sort"

	"github.com/cairn-dev/cairn/ir"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Env is what a when may read: the steps the step waits for, each with the
// type of its output, and the type of item.
type Env struct {
	// Steps are the steps the step waits for, directly or not, by name,
	// each with its output's type (cty.NilType for a step without an
	// output, cty.DynamicPseudoType for one of any shape).
	Steps map[string]cty.Type
	// Others are the process's other steps: a when that reads one is told
	// it does not wait for it.
	Others []string
	// Item is the type of a for_each's item; cty.NilType for a step
	// without for_each.
	Item cty.Type
}

// Check checks the expression's types in env: it must be a boolean, read
// only steps the step waits for and their outcome and output's fields,
// compare like with like and call only Functions. It returns every
// refusal, each at its place in the source.
func (x *Expr) Check(env Env) []Error {
	c := &checker{env: env}
	t := c.typeOf(x.e)
	if len(c.errs) == 0 && t != cty.Bool && t != cty.DynamicPseudoType {
		c.errs = append(c.errs, errAt(x.e.Range(), "the expression must be a condition (a boolean), not %s", typeName(t)))
	}
	return c.errs
}

// CheckList checks a for_each's types in env as Check does a when's, but
// the expression must give a list, and may not read item. It returns the
// type of the list's items: cty.DynamicPseudoType where it cannot say one.
func (x *Expr) CheckList(env Env) (cty.Type, []Error) {
	env.Item = cty.NilType
	c := &checker{env: env, list: true}
	t := c.typeOf(x.e)
	if len(c.errs) > 0 {
		return cty.DynamicPseudoType, c.errs
	}
	switch {
	case t == cty.DynamicPseudoType:
		return t, nil
	case t.IsListType() || t.IsSetType():
		return t.ElementType(), nil
	case t.IsTupleType():
		types := t.TupleElementTypes()
		if len(types) == 0 {
			return cty.DynamicPseudoType, nil
		}
		for _, e := range types[1:] {
			if !e.Equals(types[0]) {
				return cty.DynamicPseudoType, nil
			}
		}
		return types[0], nil
	}
	return cty.DynamicPseudoType, []Error{errAt(x.e.Range(), "it must give a list, such as steps.NAME.output.FIELD or [\"a\", \"b\"], not %s", typeName(t))}
}

type checker struct {
	env  Env
	errs []Error
	// list is set while checking a for_each.
	list bool
}

// key is the key whose expression c checks.
func (c *checker) key() string {
	if c.list {
		return "for_each"
	}
	return "when"
}

// bad records a refusal and returns the type that keeps the check going
// without more refusals about the same mistake.
func (c *checker) bad(r hcl.Range, format string, args ...any) cty.Type {
	c.errs = append(c.errs, errAt(r, format, args...))
	return cty.DynamicPseudoType
}

func (c *checker) typeOf(e hclsyntax.Expression) cty.Type {
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		return e.Val.Type()
	case *hclsyntax.TemplateExpr:
		if len(e.Parts) == 1 {
			if _, ok := e.Parts[0].(*hclsyntax.LiteralValueExpr); ok {
				return cty.String
			}
		}
		return c.bad(e.Range(), "a string with interpolations is not allowed in %s; compare the values themselves", c.key())
	case *hclsyntax.TemplateWrapExpr:
		return c.bad(e.Range(), "a string with interpolations is not allowed in %s; compare the values themselves", c.key())
	case *hclsyntax.ParenthesesExpr:
		return c.typeOf(e.Expression)
	case *hclsyntax.TupleConsExpr:
		types := make([]cty.Type, len(e.Exprs))
		for i, item := range e.Exprs {
			types[i] = c.typeOf(item)
		}
		return cty.Tuple(types)
	case *hclsyntax.ScopeTraversalExpr:
		return c.traversal(e)
	case *hclsyntax.UnaryOpExpr:
		t := c.typeOf(e.Val)
		switch e.Op {
		case hclsyntax.OpLogicalNot:
			c.want(e.Val.Range(), t, cty.Bool, "!")
			return cty.Bool
		case hclsyntax.OpNegate:
			c.want(e.Val.Range(), t, cty.Number, "-")
			return cty.Number
		}
	case *hclsyntax.BinaryOpExpr:
		return c.binary(e)
	case *hclsyntax.FunctionCallExpr:
		return c.call(e)
	}
	return c.bad(e.Range(), "%s is not allowed in "+c.key()+": it takes steps.NAME.outcome, steps.NAME.output, item, literals, == != < <= > >= && || ! and %s", describe(e), wordList(Functions))
}

// want refuses an operand of op that is not of type t.
func (c *checker) want(r hcl.Range, got, t cty.Type, op string) {
	if got != t && got != cty.DynamicPseudoType {
		c.bad(r, "%s takes %s, not %s", op, typeName(t), typeName(got))
	}
}

// opWords are the operators a when may use, as written.
var opWords = map[*hclsyntax.Operation]string{
	hclsyntax.OpEqual: "==", hclsyntax.OpNotEqual: "!=",
	hclsyntax.OpLessThan: "<", hclsyntax.OpLessThanOrEqual: "<=",
	hclsyntax.OpGreaterThan: ">", hclsyntax.OpGreaterThanOrEqual: ">=",
	hclsyntax.OpLogicalAnd: "&&", hclsyntax.OpLogicalOr: "||",
}

func (c *checker) binary(e *hclsyntax.BinaryOpExpr) cty.Type {
	l, r := c.typeOf(e.LHS), c.typeOf(e.RHS)
	op, ok := opWords[e.Op]
	if !ok {
		return c.bad(e.Range(), "arithmetic is not allowed in %s: it compares values with == != < <= > >= and joins conditions with && ||", c.key())
	}
	switch e.Op {
	case hclsyntax.OpEqual, hclsyntax.OpNotEqual:
		if primitive(l) && primitive(r) && l != r {
			c.bad(e.Range(), "%s compares %s with %s, which are never equal", op, typeName(l), typeName(r))
		}
	case hclsyntax.OpLogicalAnd, hclsyntax.OpLogicalOr:
		c.want(e.LHS.Range(), l, cty.Bool, op)
		c.want(e.RHS.Range(), r, cty.Bool, op)
	default:
		c.want(e.LHS.Range(), l, cty.Number, op)
		c.want(e.RHS.Range(), r, cty.Number, op)
	}
	return cty.Bool
}

// primitive reports whether t is a string, a number or a boolean.
func primitive(t cty.Type) bool { return t == cty.String || t == cty.Number || t == cty.Bool }

func (c *checker) call(e *hclsyntax.FunctionCallExpr) cty.Type {
	args := make([]cty.Type, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.typeOf(a)
	}
	arity := map[string]int{"contains": 2, "length": 1, "startswith": 2, "endswith": 2}
	n, ok := arity[e.Name]
	if !ok {
		s := ir.Suggest(e.Name, Functions)
		return c.bad(e.NameRange, "function %q is not allowed in "+c.key()+"; it takes %s%s", e.Name, wordList(Functions), ir.Meant(s))
	}
	if len(e.Args) != n || e.ExpandFinal {
		return c.bad(e.Range(), "%s takes %d argument%s, not %d", e.Name, n, map[bool]string{true: "", false: "s"}[n == 1], len(e.Args))
	}
	switch e.Name {
	case "contains":
		if t := args[0]; t != cty.DynamicPseudoType && !t.IsListType() && !t.IsTupleType() && !t.IsSetType() {
			c.bad(e.Args[0].Range(), "contains takes a list first, not %s", typeName(t))
		}
		return cty.Bool
	case "length":
		if t := args[0]; t != cty.DynamicPseudoType && t != cty.String && !t.IsListType() && !t.IsTupleType() && !t.IsSetType() && !t.IsObjectType() && !t.IsMapType() {
			c.bad(e.Args[0].Range(), "length takes a list, an object or a string, not %s", typeName(t))
		}
		return cty.Number
	}
	for i, t := range args {
		c.want(e.Args[i].Range(), t, cty.String, e.Name)
	}
	return cty.Bool
}

// traversal types steps.NAME.outcome, steps.NAME.output… and item….
func (c *checker) traversal(e *hclsyntax.ScopeTraversalExpr) cty.Type {
	tr := e.Traversal
	root := tr.RootName()
	var t cty.Type
	rest := tr[1:]
	switch root {
	case "item":
		if c.list {
			return c.bad(tr[0].SourceRange(), "for_each cannot read item: the items are what it gives")
		}
		if c.env.Item == cty.NilType {
			return c.bad(tr[0].SourceRange(), "item is set only in a step with for_each")
		}
		t = c.env.Item
	case "steps":
		if len(rest) < 2 {
			return c.bad(e.Range(), "write steps.NAME.outcome or steps.NAME.output")
		}
		name, ok := rest[0].(hcl.TraverseAttr)
		if !ok {
			return c.bad(rest[0].SourceRange(), "write steps.NAME: a step's name after steps.")
		}
		out, waits := c.env.Steps[name.Name]
		if !waits {
			if slices.Contains(c.env.Others, name.Name) {
				return c.bad(attrRange(name), "step %q is not one this step waits for; add it to the step's needs", name.Name)
			}
			var names []string
			for n := range c.env.Steps {
				names = append(names, n)
			}
			sort.Strings(names)
			return c.bad(attrRange(name), "unknown step %q%s", name.Name, ir.Meant(ir.Suggest(name.Name, names)))
		}
		field, ok := rest[1].(hcl.TraverseAttr)
		switch {
		case ok && field.Name == "outcome":
			if len(rest) > 2 {
				return c.bad(rest[2].SourceRange(), "a step's outcome is a string: %s", wordList(Outcomes))
			}
			return cty.String
		case ok && field.Name == "output":
			if out == cty.NilType {
				return c.bad(attrRange(field), "step %q has no output: give it an output_schema", name.Name)
			}
			t, rest = out, rest[2:]
		default:
			r := traverserRange(rest[1])
			got := ""
			if ok {
				got = field.Name
			}
			return c.bad(r, "steps.%s has outcome and output, not %q%s", name.Name, got, ir.Meant(ir.Suggest(got, []string{"outcome", "output"})))
		}
	default:
		return c.bad(tr[0].SourceRange(), "unknown name %q; "+c.key()+" reads steps.NAME.outcome, steps.NAME.output and item%s", root, ir.Meant(ir.Suggest(root, []string{"steps", "item"})))
	}
	for _, step := range rest {
		t = c.step(t, step)
		if t == cty.DynamicPseudoType {
			break
		}
	}
	return t
}

// step types one step of a traversal into a value of type t: a field of an
// object, an item of a list.
func (c *checker) step(t cty.Type, s hcl.Traverser) cty.Type {
	var key cty.Value
	switch s := s.(type) {
	case hcl.TraverseAttr:
		key = cty.StringVal(s.Name)
	case hcl.TraverseIndex:
		key = s.Key
	default:
		return c.bad(s.SourceRange(), "this is not allowed in %s", c.key())
	}
	switch {
	case t == cty.DynamicPseudoType:
		return t
	case t.IsObjectType():
		if key.Type() != cty.String {
			return c.bad(s.SourceRange(), "an object's fields have names, not numbers")
		}
		name := key.AsString()
		if !t.HasAttribute(name) {
			var names []string
			for n := range t.AttributeTypes() {
				names = append(names, n)
			}
			sort.Strings(names)
			return c.bad(traverserRange(s), "unknown field %q; the output's schema has %s%s", name, wordList(names), ir.Meant(ir.Suggest(name, names)))
		}
		return t.AttributeType(name)
	case t.IsMapType():
		return t.ElementType()
	case t.IsListType():
		if key.Type() != cty.Number {
			return c.bad(s.SourceRange(), "a list's items are numbered, not named")
		}
		return t.ElementType()
	}
	return c.bad(s.SourceRange(), "%s has no fields", typeName(t))
}

// attrRange is where a traversal's field is named, without its dot.
func attrRange(a hcl.TraverseAttr) hcl.Range {
	r := a.SrcRange
	if r.End.Byte-r.Start.Byte == len(a.Name)+1 {
		r.Start.Byte++
		r.Start.Column++
	}
	return r
}

// traverserRange is where a traversal's step is written, a field without
// its dot.
func traverserRange(s hcl.Traverser) hcl.Range {
	if a, ok := s.(hcl.TraverseAttr); ok {
		return attrRange(a)
	}
	return s.SourceRange()
}

// describe words an expression refused for its kind.
func describe(e hclsyntax.Expression) string {
	switch e.(type) {
	case *hclsyntax.ConditionalExpr:
		return "a conditional (?:)"
	case *hclsyntax.ForExpr:
		return "a for expression"
	case *hclsyntax.SplatExpr:
		return "a splat ([*])"
	case *hclsyntax.IndexExpr:
		return "an index that is not a literal"
	case *hclsyntax.ObjectConsExpr:
		return "an object"
	}
	return "this expression"
}

// wordList joins words as "a, b and c".
func wordList(words []string) string {
	switch len(words) {
	case 0:
		return "nothing"
	case 1:
		return words[0]
	}
	out := ""
	for i, w := range words {
		switch {
		case i == 0:
		case i == len(words)-1:
			out += " and "
		default:
			out += ", "
		}
		out += w
	}
	return out
}

// TypeAt is the type, in env, of what the expression holds at byte offset:
// the step's field or output the traversal there reads, else the whole
// expression's. ok is false where the source holds nothing typed, or what
// is there does not check.
func (x *Expr) TypeAt(offset int, env Env) (what, typ string, ok bool) {
	var found *hclsyntax.ScopeTraversalExpr
	hclsyntax.VisitAll(x.e, func(n hclsyntax.Node) hcl.Diagnostics {
		if t, isTr := n.(*hclsyntax.ScopeTraversalExpr); isTr {
			if r := t.Range(); r.Start.Byte <= offset && offset <= r.End.Byte {
				found = t
			}
		}
		return nil
	})
	c := &checker{env: env}
	var t cty.Type
	if found != nil {
		t, what = c.traversal(found), x.Source[found.Range().Start.Byte:found.Range().End.Byte]
	} else {
		t, what = c.typeOf(x.e), "when"
	}
	if len(c.errs) > 0 {
		return "", "", false
	}
	return what, typeName(t), true
}
