package expr

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// JQ is the expression as a jq program over its Input's JSON: it prints
// true or false, and fails where Eval would, a failed traversal and a
// result that is null or no boolean in Eval's words. It is JQDefs, then
// JQBody. It reads nothing but its input: every value of the process file
// in it is a JSON literal.
func (x *Expr) JQ() (string, error) {
	body, err := x.JQBody()
	if err != nil {
		return "", err
	}
	return JQDefs + body, nil
}

// JQBody is JQ without JQDefs: the compiled targets, which evaluate a
// when with it, hold JQDefs once for all of their expressions.
func (x *Expr) JQBody() (string, error) {
	w := &jqWriter{}
	body, err := w.expr(x.e)
	if err != nil {
		return "", err
	}
	return "(" + body + `) | if type == "boolean" then . elif type == "null" then error("it is null") ` +
		`else error("it is \(kind), not a boolean") end`, nil
}

// ItemsJQ is a for_each as a jq program over its Input's JSON: it prints
// the list it gives, and fails, saying why, where Items would. It is
// JQDefs, then ItemsJQBody.
func (x *Expr) ItemsJQ() (string, error) {
	body, err := x.ItemsJQBody()
	if err != nil {
		return "", err
	}
	return JQDefs + body, nil
}

// ItemsJQBody is ItemsJQ without JQDefs, as JQBody is JQ without them.
func (x *Expr) ItemsJQBody() (string, error) {
	w := &jqWriter{}
	body, err := w.expr(x.e)
	if err != nil {
		return "", err
	}
	return "(" + body + `) | if type == "array" then . elif type == "null" then error("it is null") ` +
		`else error("it is \(kind), not a list") end`, nil
}

type jqWriter struct{ vars int }

// bind is a fresh jq variable.
func (w *jqWriter) bind() string {
	w.vars++
	return "$v" + strconv.Itoa(w.vars)
}

func (w *jqWriter) expr(e hclsyntax.Expression) (string, error) {
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		return literal(e.Val)
	case *hclsyntax.TemplateExpr:
		if len(e.Parts) == 1 {
			if l, ok := e.Parts[0].(*hclsyntax.LiteralValueExpr); ok {
				return literal(l.Val)
			}
		}
	case *hclsyntax.ParenthesesExpr:
		return w.expr(e.Expression)
	case *hclsyntax.TupleConsExpr:
		out := "["
		for i, item := range e.Exprs {
			s, err := w.expr(item)
			if err != nil {
				return "", err
			}
			if i > 0 {
				out += ", "
			}
			out += s
		}
		return out + "]", nil
	case *hclsyntax.ScopeTraversalExpr:
		return traversal(e.Traversal)
	case *hclsyntax.UnaryOpExpr:
		s, err := w.expr(e.Val)
		if err != nil {
			return "", err
		}
		switch e.Op {
		case hclsyntax.OpLogicalNot:
			return "(" + s + " | not)", nil
		case hclsyntax.OpNegate:
			return "(0 - " + s + ")", nil
		}
	case *hclsyntax.BinaryOpExpr:
		l, err := w.expr(e.LHS)
		if err != nil {
			return "", err
		}
		r, err := w.expr(e.RHS)
		if err != nil {
			return "", err
		}
		op, ok := map[*hclsyntax.Operation]string{
			hclsyntax.OpEqual: "==", hclsyntax.OpNotEqual: "!=",
			hclsyntax.OpLessThan: "<", hclsyntax.OpLessThanOrEqual: "<=",
			hclsyntax.OpGreaterThan: ">", hclsyntax.OpGreaterThanOrEqual: ">=",
			hclsyntax.OpLogicalAnd: "and", hclsyntax.OpLogicalOr: "or",
		}[e.Op]
		if ok {
			return "(" + l + " " + op + " " + r + ")", nil
		}
	case *hclsyntax.FunctionCallExpr:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			s, err := w.expr(a)
			if err != nil {
				return "", err
			}
			args[i] = s
		}
		switch {
		case e.Name == "contains" && len(args) == 2:
			v := w.bind()
			return fmt.Sprintf("(%s as %s | any(%s[]; . == %s))", args[1], v, args[0], v), nil
		case e.Name == "length" && len(args) == 1:
			return "(" + args[0] + " | length)", nil
		case (e.Name == "startswith" || e.Name == "endswith") && len(args) == 2:
			v := w.bind()
			return fmt.Sprintf("(%s as %s | %s | %s(%s))", args[1], v, args[0], e.Name, v), nil
		}
	}
	return "", fmt.Errorf("%s cannot be written in jq", describe(e))
}

// JQDefs define the jq functions the programs of JQBody and ItemsJQBody
// call. A traversal steps through a value with them, as HCL's: attr($k; $r), a field an object has, and index($k; $r), an item
// a list has or a field an object has; any other fails in the words of
// Eval's error (HCL's diagnostic), $r the step's range. kind is a value's
// type as Eval's errors name it.
const JQDefs = `def kind: {"null": "null", "boolean": "a boolean", "number": "a number", "string": "a string", "array": "a list", "object": "an object"}[type]; ` +
	`def prim: {"boolean": "bool", "number": "number", "string": "string"}[type]; ` +
	`def attr($k; $r): if type == "object" then (if has($k) then .[$k] ` +
	`else error("\($r): Unsupported attribute; This object does not have an attribute named \($k | tojson)") end) ` +
	`elif type == "null" then error("\($r): Attempt to get attribute from null value; This value is null, so it does not have any attributes") ` +
	`elif type == "array" then error("\($r): Unsupported attribute; This value does not have any attributes") ` +
	`else error("\($r): Unsupported attribute; Can't access attributes on a primitive-typed value (\(prim))") end; ` +
	`def index($k; $r): "\($r): Invalid index; The given key does not identify an element in this collection value" as $no | ` +
	`if type == "null" then error("\($r): Attempt to index null value; This value is null, so it does not have any indices") ` +
	`elif type == "array" then (if ($k | type) != "number" then error("\($no): a number is required") ` +
	`elif $k < 0 then error("\($no): a negative number is not a valid index for a sequence") ` +
	`elif $k < length and $k == ($k | floor) then .[$k] else error($no) end) ` +
	`elif type == "object" then (if ($k | type) != "string" then error("\($no). An object only supports looking up attributes by name, not by numeric index") ` +
	`elif has($k) then .[$k] else error($no) end) ` +
	`else error("\($r): Invalid index; This value does not have any indices") end; `

// traversal is a path into the input, each step through attr or index
// with its range: .steps | attr("a"; "when:1,7-9") | attr("output"; …) |
// index(0; …).
func traversal(tr hcl.Traversal) (string, error) {
	out := "(." + tr.RootName()
	for _, s := range tr[1:] {
		r, _ := json.Marshal(s.SourceRange().String())
		switch s := s.(type) {
		case hcl.TraverseAttr:
			k, _ := json.Marshal(s.Name)
			out += " | attr(" + string(k) + "; " + string(r) + ")"
		case hcl.TraverseIndex:
			k, err := literal(s.Key)
			if err != nil {
				return "", err
			}
			out += " | index(" + k + "; " + string(r) + ")"
		default:
			return "", fmt.Errorf("a traversal step jq cannot read")
		}
	}
	return out + ")", nil
}

// literal is v as a JSON literal.
func literal(v cty.Value) (string, error) {
	if v.IsNull() {
		return "null", nil
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return "", err
	}
	return "(" + string(b) + ")", nil
}
