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
// true or false, and fails, saying why, where Eval would. The compiled
// targets evaluate a when with it. It reads nothing but its input: every
// value of the process file in it is a JSON literal.
func (x *Expr) JQ() (string, error) {
	w := &jqWriter{}
	body, err := w.expr(x.e)
	if err != nil {
		return "", err
	}
	return jqAt + "(" + body + `) | if type == "boolean" then . else error("it is \(type), not a boolean") end`, nil
}

// ItemsJQ is a for_each as a jq program over its Input's JSON: it prints
// the list it gives, and fails, saying why, where Items would.
func (x *Expr) ItemsJQ() (string, error) {
	w := &jqWriter{}
	body, err := w.expr(x.e)
	if err != nil {
		return "", err
	}
	return jqAt + "(" + body + `) | if type == "array" then . else error("it is \(type), not a list") end`, nil
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

// jqAt is the jq function a traversal steps through a value with: a field
// an object has, an item a list has, and an error, as Eval's, for any
// other.
const jqAt = `def at($k): if type == "object" and ($k | type) == "string" then (if has($k) then .[$k] else error("it has no field \($k)") end) ` +
	`elif type == "array" and ($k | type) == "number" then (if $k >= 0 and $k < length then .[$k] else error("it has no item \($k)") end) ` +
	`else error("\(type) has no field \($k)") end; `

// traversal is a path into the input, each step through at: .steps |
// at("a") | at("output") | at("f") | at(0).
func traversal(tr hcl.Traversal) (string, error) {
	out := "(." + tr.RootName()
	for _, s := range tr[1:] {
		switch s := s.(type) {
		case hcl.TraverseAttr:
			k, _ := json.Marshal(s.Name)
			out += " | at(" + string(k) + ")"
		case hcl.TraverseIndex:
			k, err := literal(s.Key)
			if err != nil {
				return "", err
			}
			out += " | at(" + k + ")"
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
