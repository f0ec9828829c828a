package parse

import (
	"math"
	"strconv"

	"github.com/cairn-dev/cairn/internal/tomldoc"
	"github.com/cairn-dev/cairn/ir"
	"github.com/goccy/go-yaml/ast"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// outputSchema reads a TOML step's output_schema: an inline table, a JSON
// Schema, or a string, the path of its file.
func (fe *tomlProcess) outputSchema(e *tomldoc.TOMLEntry) ir.Field[*ir.JSONValue] {
	r := &fe.r
	switch e.Value.Kind {
	case tomldoc.KindString:
		s := r.String(e)
		return ir.Field[*ir.JSONValue]{Value: &ir.JSONValue{Kind: ir.JSONString, Str: s.Value, Range: s.Range}, Set: true, Key: s.Key, Range: s.Range, Spans: s.Spans}
	case tomldoc.KindTable:
		v, ok := TOMLJSON(r, e.Key, e.Value)
		return ir.Field[*ir.JSONValue]{Value: v, Set: true, Bad: !ok, Key: e.KeyRange, Range: e.Value.Range}
	}
	r.TypeError(e, "a table (an inline JSON Schema) or a string (the path of a .json file)")
	return ir.Field[*ir.JSONValue]{Set: true, Bad: true, Key: e.KeyRange, Range: e.Value.Range}
}

// TOMLJSON is the TOML value v, under key, as JSON; false when a part of
// it has no JSON form (a date-time, an infinite float), which r refuses.
func TOMLJSON(r *tomldoc.TOMLReader, key string, v *tomldoc.TOMLValue) (*ir.JSONValue, bool) {
	out := &ir.JSONValue{Range: v.Range}
	switch v.Kind {
	case tomldoc.KindString:
		out.Kind, out.Str = ir.JSONString, v.Str
	case tomldoc.KindInteger:
		out.Kind, out.Str = ir.JSONNumber, strconv.FormatInt(v.Int, 10)
	case tomldoc.KindFloat:
		if math.IsInf(v.Float, 0) || math.IsNaN(v.Float) {
			r.Report(ir.RuleType, v.Range, nil, "%q holds %v, which JSON cannot write", key, v.Float)
			return out, false
		}
		out.Kind, out.Str = ir.JSONNumber, strconv.FormatFloat(v.Float, 'g', -1, 64)
	case tomldoc.KindBool:
		out.Kind, out.Bool = ir.JSONBool, v.Bool
	case tomldoc.KindArray:
		out.Kind = ir.JSONArray
		ok := true
		for _, it := range v.Items {
			j, good := TOMLJSON(r, key, it)
			ok = ok && good
			out.Items = append(out.Items, j)
		}
		return out, ok
	case tomldoc.KindTable:
		out.Kind = ir.JSONObject
		ok := true
		for _, kv := range v.Table.Entries {
			j, good := TOMLJSON(r, kv.Key, kv.Value)
			ok = ok && good
			out.Members = append(out.Members, ir.JSONMember{Name: kv.Key, Key: kv.KeyRange, Value: j})
		}
		return out, ok
	default:
		r.Report(ir.RuleType, v.Range, nil, "%q holds %s, which JSON has no value for", key, tomldoc.Describe(v))
		return out, false
	}
	return out, true
}

// outputSchema reads an HCL step's output_schema: an object, a JSON
// Schema, or a string, the path of its file.
func (fe *hclProcess) outputSchema(a *hclsyntax.Attribute) ir.Field[*ir.JSONValue] {
	v := fe.literal(a.Expr)
	key := fe.rng(a.NameRange)
	switch v.kind {
	case hclString:
		s := fe.stringOf(a, v)
		return ir.Field[*ir.JSONValue]{Value: &ir.JSONValue{Kind: ir.JSONString, Str: s.Value, Range: s.Range}, Set: true, Key: key, Range: s.Range, Spans: s.Spans}
	case hclObject:
		j, ok := hclJSON(v)
		return ir.Field[*ir.JSONValue]{Value: j, Set: true, Bad: !ok || v.partial, Key: key, Range: v.rng}
	}
	fe.typeError(a, v, "an object (an inline JSON Schema) or a string (the path of a .json file)")
	return hclBad[*ir.JSONValue](fe, a, v)
}

// hclJSON is v as JSON; false when a part of it was refused.
func hclJSON(v *hclValue) (*ir.JSONValue, bool) {
	out := &ir.JSONValue{Range: v.rng}
	switch v.kind {
	case hclString:
		out.Kind, out.Str = ir.JSONString, v.str
	case hclNumber:
		out.Kind = ir.JSONNumber
		if v.num.IsInt() {
			out.Str = v.num.Text('f', 0)
		} else {
			f, _ := v.num.Float64()
			out.Str = strconv.FormatFloat(f, 'g', -1, 64)
		}
	case hclBool:
		out.Kind, out.Bool = ir.JSONBool, v.b
	case hclNull:
		out.Kind = ir.JSONNull
	case hclList:
		out.Kind = ir.JSONArray
		ok := true
		for _, it := range v.items {
			j, good := hclJSON(it)
			ok = ok && good
			out.Items = append(out.Items, j)
		}
		return out, ok
	case hclObject:
		out.Kind = ir.JSONObject
		ok := !v.partial
		for _, p := range v.pairs {
			j, good := hclJSON(p.value)
			ok = ok && good
			out.Members = append(out.Members, ir.JSONMember{Name: p.key, Key: p.keyRange, Value: j})
		}
		return out, ok
	default:
		return out, false
	}
	return out, true
}

// outputSchema reads a card step's output-schema: a map, a JSON Schema, or
// a string, the path of its file.
func (fe *cardProcess) outputSchema(e cardEntry) ir.Field[*ir.JSONValue] {
	if !fe.plain(e.value) {
		return cardBad[*ir.JSONValue](fe, e)
	}
	if s, rng, spans, ok := fe.scalarString(e.value); ok {
		return ir.Field[*ir.JSONValue]{Value: &ir.JSONValue{Kind: ir.JSONString, Str: s, Range: rng}, Set: true, Key: e.key, Range: rng, Spans: spans}
	}
	switch e.value.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		j, ok := fe.json(e.name, e.value)
		return ir.Field[*ir.JSONValue]{Value: j, Set: true, Bad: !ok, Key: e.key, Range: fe.valueRange(e)}
	}
	fe.typeError(e, "a map (an inline JSON Schema) or a string (the path of a .json file)")
	return cardBad[*ir.JSONValue](fe, e)
}

// json is the YAML node n, under key, as JSON; false when a part of it was
// refused.
func (fe *cardProcess) json(key string, n ast.Node) (*ir.JSONValue, bool) {
	out := &ir.JSONValue{Range: fe.nodeRange(n)}
	if !fe.plain(n) {
		return out, false
	}
	switch n := n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		out.Kind = ir.JSONObject
		entries, ok := fe.mapping(n, strconv.Quote(key))
		for _, e := range entries {
			j, good := fe.json(e.name, e.value)
			ok = ok && good
			out.Members = append(out.Members, ir.JSONMember{Name: e.name, Key: e.key, Value: j})
		}
		return out, ok
	case *ast.SequenceNode:
		out.Kind = ir.JSONArray
		ok := true
		for _, it := range n.Values {
			j, good := fe.json(key, it)
			ok = ok && good
			out.Items = append(out.Items, j)
		}
		return out, ok
	case *ast.IntegerNode:
		out.Kind = ir.JSONNumber
		switch x := n.Value.(type) {
		case int64:
			out.Str = strconv.FormatInt(x, 10)
		case uint64:
			out.Str = strconv.FormatUint(x, 10)
		default:
			fe.report(ir.RuleType, out.Range, nil, "%q holds a number JSON cannot write", key)
			return out, false
		}
	case *ast.FloatNode:
		if math.IsInf(n.Value, 0) || math.IsNaN(n.Value) {
			fe.report(ir.RuleType, out.Range, nil, "%q holds a number JSON cannot write", key)
			return out, false
		}
		out.Kind, out.Str = ir.JSONNumber, strconv.FormatFloat(n.Value, 'g', -1, 64)
	case *ast.BoolNode:
		out.Kind, out.Bool = ir.JSONBool, n.Value
	case *ast.NullNode:
		out.Kind = ir.JSONNull
	case *ast.InfinityNode, *ast.NanNode:
		fe.report(ir.RuleType, out.Range, nil, "%q holds a number JSON cannot write", key)
		return out, false
	default:
		s, rng, _, ok := fe.scalarString(n)
		if !ok {
			fe.report(ir.RuleType, out.Range, nil, "%q holds %s, which JSON has no value for", key, describeNode(n))
			return out, false
		}
		out.Kind, out.Str, out.Range = ir.JSONString, s, rng
	}
	return out, true
}
