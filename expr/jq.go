package expr

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// JQ is the expression as a jq program over its Input's JSON: it prints
// true or false, or fails, where Eval does, with Eval's words. It is
// JQDefs, then JQBody. It reads nothing but its input: every value of the
// process file in it is a JSON literal.
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
	body, err := jqRecord(x.e)
	if err != nil {
		return "", err
	}
	return body + ` | known | if type == "boolean" then . else error("it is \(kind), not a boolean") end`, nil
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
	body, err := jqRecord(x.e)
	if err != nil {
		return "", err
	}
	return body + ` | known | if type == "array" then . else error("it is \(kind), not a list") end`, nil
}

// rng is an expression's range as a JSON string, as a diagnostic's
// subject prints it.
func rng(r hcl.Range) string {
	b, _ := json.Marshal(r.String())
	return string(b)
}

// jqRecord writes an expression as a jq filter that gives what HCL's
// evaluation gives, as one of three records (JQDefs): {"v": VALUE}, a
// value; {"e": "DIAGNOSTICS", "t": TYPE}, no value, and why, in Eval's
// words; {"u": true, "t": TYPE}, an unknown value with no diagnostic
// (HCL's for a function given a null it cannot type, and what is made of
// it), which Eval calls null. TYPE is the type HCL gives what has no
// value ("dyn" for none), which an operator converts as it would a value
// of it; "n" marks an unknown that may be null.
func jqRecord(e hclsyntax.Expression) (string, error) {
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		return value(e.Val)
	case *hclsyntax.TemplateExpr:
		if len(e.Parts) == 1 {
			if l, ok := e.Parts[0].(*hclsyntax.LiteralValueExpr); ok {
				return value(l.Val)
			}
		}
	case *hclsyntax.ParenthesesExpr:
		return jqRecord(e.Expression)
	case *hclsyntax.TupleConsExpr:
		items, err := jqRecords(e.Exprs)
		if err != nil {
			return "", err
		}
		return "tuple([" + strings.Join(items, ", ") + "])", nil
	case *hclsyntax.ScopeTraversalExpr:
		tr, err := traversal(e.Traversal)
		if err != nil {
			return "", err
		}
		return "cap(" + tr + ")", nil
	case *hclsyntax.UnaryOpExpr:
		s, err := jqRecord(e.Val)
		if err != nil {
			return "", err
		}
		switch e.Op {
		case hclsyntax.OpLogicalNot:
			return fmt.Sprintf("unary(%s; %q; %s; %s; not)", s, "bool", rng(e.Val.Range()), rng(e.Range())), nil
		case hclsyntax.OpNegate:
			return fmt.Sprintf("unary(%s; %q; %s; %s; 0 - .)", s, "number", rng(e.Val.Range()), rng(e.Range())), nil
		}
	case *hclsyntax.BinaryOpExpr:
		l, err := jqRecord(e.LHS)
		if err != nil {
			return "", err
		}
		r, err := jqRecord(e.RHS)
		if err != nil {
			return "", err
		}
		ranges := rng(e.LHS.Range()) + "; " + rng(e.RHS.Range()) + "; " + rng(e.Range())
		switch e.Op {
		case hclsyntax.OpEqual:
			return "eq(" + l + "; " + r + ")", nil
		case hclsyntax.OpNotEqual:
			return "(eq(" + l + "; " + r + ") | if has(\"v\") then .v |= not else . end)", nil
		case hclsyntax.OpLogicalAnd:
			return "land(" + l + "; " + r + "; " + ranges + ")", nil
		case hclsyntax.OpLogicalOr:
			return "lor(" + l + "; " + r + "; " + ranges + ")", nil
		}
		op, ok := map[*hclsyntax.Operation]string{
			hclsyntax.OpLessThan: "<", hclsyntax.OpLessThanOrEqual: "<=",
			hclsyntax.OpGreaterThan: ">", hclsyntax.OpGreaterThanOrEqual: ">=",
		}[e.Op]
		if ok {
			return "cmp(" + l + "; " + r + "; " + ranges + "; .[0] " + op + " .[1])", nil
		}
	case *hclsyntax.FunctionCallExpr:
		args, err := jqRecords(e.Args)
		if err != nil {
			return "", err
		}
		params, impl, result := "", "", `{u: true, t: "bool", n: true}`
		switch {
		case e.Name == "contains" && len(args) == 2:
			params, impl = `[{"n": "list", "t": "any"}, {"n": "value", "t": "any", "null": true}]`, "containsf"
			result = `{u: true, t: "bool"}`
		case e.Name == "length" && len(args) == 1:
			params, impl, result = `[{"n": "value", "t": "any"}]`, "lengthf", `{u: true, t: "number", n: true}`
		case (e.Name == "startswith" || e.Name == "endswith") && len(args) == 2:
			params, impl = `[{"n": "value", "t": "string"}, {"n": "affix", "t": "string"}]`, "{v: (.[1] as $a | .[0] | "+e.Name+"($a))}"
		default:
			return "", fmt.Errorf("%s cannot be written in jq", describe(e))
		}
		starts := make([]string, len(e.Args))
		for i, a := range e.Args {
			starts[i] = rng(a.StartRange())
		}
		name, _ := json.Marshal(e.Name)
		return fmt.Sprintf("call([%s]; %s; [%s]; %s; %s; %s; %s)", strings.Join(args, ", "), params,
			strings.Join(starts, ", "), name, rng(e.StartRange()), result, impl), nil
	}
	return "", fmt.Errorf("%s cannot be written in jq", describe(e))
}

// jqRecords are the filters of es (jqRecord).
func jqRecords(es []hclsyntax.Expression) ([]string, error) {
	out := make([]string, len(es))
	for i, e := range es {
		s, err := jqRecord(e)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// JQDefs define the jq functions the programs of JQBody and ItemsJQBody
// call: each evaluates as HCL does, over the records jqRecord writes.
//
// A traversal steps through a value with attr($k; $r), a field an object
// has, and index($k; $r), an item a list has or a field an object has;
// any other fails in the words of HCL's diagnostic, $r the step's range,
// and cap makes the failure a record. conv($t) converts a value as cty
// does to a bool, a number or a string ("any" takes it as it is), or
// says why not ({"c": …}). cmp, eq, land, lor, unary and call are the
// operators and a function call: their operands' diagnostics, then the
// conversions', joined with "; " as Eval joins them; a null an operation
// cannot take; land, lor and their short-circuits as HCL's. known is the
// end: a record's value, or its diagnostics as the error, an unknown as
// "it is null". kind is a value's type as Eval's errors name it.
const JQDefs = `def kind: {"null": "null", "boolean": "a boolean", "number": "a number", "string": "a string", "array": "a list", "object": "an object"}[type];
def prim: {"boolean": "bool", "number": "number", "string": "string"}[type];
def ctyt: {"boolean": "bool", "number": "number", "string": "string", "array": "tuple", "object": "object"}[type];
def attr($k; $r): if type == "object" then (if has($k) then .[$k] else error("\($r): Unsupported attribute; This object does not have an attribute named \($k | tojson)") end)
  elif type == "null" then error("\($r): Attempt to get attribute from null value; This value is null, so it does not have any attributes")
  elif type == "array" then error("\($r): Unsupported attribute; This value does not have any attributes")
  else error("\($r): Unsupported attribute; Can't access attributes on a primitive-typed value (\(prim))") end;
def index($k; $r): "\($r): Invalid index; The given key does not identify an element in this collection value" as $no |
  if type == "null" then error("\($r): Attempt to index null value; This value is null, so it does not have any indices")
  elif type == "array" then (if ($k | type) != "number" then error("\($no): a number is required")
    elif $k < 0 then error("\($no): a negative number is not a valid index for a sequence")
    elif $k < length and $k == ($k | floor) then .[$k] else error($no) end)
  elif type == "object" then (if ($k | type) != "string" then error("\($no). An object only supports looking up attributes by name, not by numeric index")
    elif has($k) then .[$k] else error($no) end)
  else error("\($r): Invalid index; This value does not have any indices") end;
def cap(f): try (f | {v: .}) catch {e: ., t: "dyn"};
def diags: [.[] | .e // empty];
def conv($t): if has("v") | not then
    (if $t == "any" or .t == $t then .
    elif .t == "dyn" or .t == "string" or $t == "string" and (.t == "number" or .t == "bool") then .t = $t
    else . + {c: "\($t) required, but have \(.t)"} end)
  elif .v == null or $t == "any" then .
  else .v as $x | ($x | type) as $k |
    if $t == "number" then
      (if $k == "number" then .
      elif $k != "string" then {c: "number required, but have \($x | ctyt)"}
      elif $x | test("^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$") then {v: ($x | ltrimstr("+") | tonumber)}
      elif $x | test("^[+]?[iI]nf$") then {v: infinite}
      elif $x | test("^-[iI]nf$") then {v: -infinite}
      else {c: "a number is required"} end)
    elif $t == "bool" then
      (if $k == "boolean" then .
      elif $x == "true" or $x == "1" then {v: true}
      elif $x == "false" or $x == "0" then {v: false}
      elif $k != "string" then {c: "bool required, but have \($x | ctyt)"}
      elif ($x | ascii_downcase) == "true" or ($x | ascii_downcase) == "false" then {c: "a bool is required; to convert from string, use lowercase \($x | ascii_downcase | tojson)"}
      else {c: "a bool is required"} end)
    elif $k == "string" then .
    elif $k == "number" or $k == "boolean" then {v: ($x | tostring)}
    else {c: "string required, but have \($x | ctyt)"} end end;
def fail($d; $t): {e: ($d | join("; ")), t: $t};
def operands($a; $b; $t; $rl; $rr): [($a | conv($t)), ($b | conv($t))] as $c |
  [($c[0].c // empty | "\($rl): Invalid operand; Unsuitable value for left operand: \(.)"),
   ($c[1].c // empty | "\($rr): Invalid operand; Unsuitable value for right operand: \(.)")] as $bad |
  if $bad != [] then fail($bad + ([$a, $b] | diags); "bool") else {c: $c} end;
def call2($c; $r; $t; f): ($c | diags) as $d |
  if $d != [] then fail($d; $t)
  elif any($c[]; has("u")) then {u: true, t: $t}
  elif any($c[]; .v == null) then fail(["\($r): Operation failed; Error during operation: argument must not be null"]; $t)
  else {v: ([$c[].v] | f)} end;
def cmp($a; $b; $rl; $rr; $r; f): operands($a; $b; "number"; $rl; $rr) | if has("e") then . else call2(.c; $r; "bool"; f) end;
def eq($a; $b): ([$a, $b] | diags) as $d |
  if $d != [] then fail($d; "bool")
  elif $a.u and $b.u then {u: true, t: "bool"}
  elif $a.u or $b.u then (if $a.u then [$a, $b.v] else [$b, $a.v] end) as [$x, $k] |
    if $x.t == "dyn" or ($k == null and $x.n) or ($k != null and ($k | ctyt) == $x.t) then {u: true, t: "bool"} else {v: false} end
  else {v: ($a.v == $b.v)} end;
def land($a; $b; $rl; $rr; $r): operands($a; $b; "bool"; $rl; $rr) | if has("e") then . else .c as [$x, $y] |
  if ($x | has("v") | not) and ($y | has("v") | not) and $x.u then $x
  elif ($x | has("v")) and $x.v != true then {v: false}
  elif ($y | has("v")) and $y.v != true then {v: false}
  elif ($x | has("v") | not) and ($y | has("v")) and $y.v == true then $x
  elif ($y | has("v") | not) and ($x | has("v")) and $x.v == true then $y
  else call2(.c; $r; "bool"; .[0] and .[1]) end end;
def lor($a; $b; $rl; $rr; $r): operands($a; $b; "bool"; $rl; $rr) | if has("e") then . else .c as [$x, $y] |
  if ($x | has("v") | not) and ($y | has("v") | not) and $x.u then $x
  elif ($x | has("v")) and $x.v == true then {v: true}
  elif ($y | has("v")) and $y.v == true then {v: true}
  elif ($x | has("v") | not) and ($y | has("v")) then $x
  elif ($y | has("v") | not) and ($x | has("v")) then $y
  else call2(.c; $r; "bool"; .[0] or .[1]) end end;
def unary($a; $t; $rv; $r; f): ($a | conv($t)) as $c |
  [$c.e // empty, ($c.c // empty | "\($rv): Invalid operand; Unsuitable value for unary operand: \(.)")] as $d |
  if $d != [] then fail($d; $t) else call2([$c]; $r; $t; .[0] | f) end;
def tuple($items): ($items | diags) as $d |
  if $d != [] then fail($d; "tuple") elif any($items[]; has("u")) then {u: true, t: "tuple"} else {v: [$items[].v]} end;
def call($args; $params; $starts; $name; $r; $unknown; f):
  [range($args | length) as $i | $args[$i] | conv($params[$i].t)] as $c |
  [range($c | length) as $i | ($c[$i].e // empty), ($c[$i].c // empty | "\($starts[$i]): Invalid function argument; Invalid value for \($params[$i].n | tojson) parameter: \(.)")] as $d |
  if $d != [] then fail($d; "dyn")
  else first((range($c | length) as $i | select($c[$i] | has("v") and .v == null or .u and .t == "dyn") |
      if $c[$i].u or $params[$i].null then {u: true, t: "dyn"}
      else fail(["\($starts[$i]): Invalid function argument; Invalid value for \($params[$i].n | tojson) parameter: argument must not be null"]; "dyn") end),
    (if any($c[]; has("u")) then $unknown
    else [$c[].v] | f | if has("x") then fail(["\($r): Error in function call; Call to function \($name | tojson) failed: \(.x)"]; "dyn") else . end end)) end;
def containsf: .[1] as $v | .[0] | if type != "array" then {x: "argument must be list, tuple, or set"} else {v: any(.[]; . == $v)} end;
def lengthf: .[0] | if type == "string" or type == "array" or type == "object" then {v: length} else {x: "length of \(kind)"} end;
def known: if has("e") then error(.e) elif has("u") or .v == null then error("it is null") else .v end;
`

// traversal is a path into the input, each step through attr or index
// with its range: .steps | attr("a"; "when:1,7-9") | attr("output"; …) |
// index(0; …).
func traversal(tr hcl.Traversal) (string, error) {
	out := "(." + tr.RootName()
	for _, s := range tr[1:] {
		r := rng(s.SourceRange())
		switch s := s.(type) {
		case hcl.TraverseAttr:
			k, _ := json.Marshal(s.Name)
			out += " | attr(" + string(k) + "; " + r + ")"
		case hcl.TraverseIndex:
			k, err := literal(s.Key)
			if err != nil {
				return "", err
			}
			out += " | index(" + k + "; " + r + ")"
		default:
			return "", fmt.Errorf("a traversal step jq cannot read")
		}
	}
	return out + ")", nil
}

// value is v as a record: {v: LITERAL}.
func value(v cty.Value) (string, error) {
	l, err := literal(v)
	if err != nil {
		return "", err
	}
	return "{v: " + l + "}", nil
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
