package expr

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Step is what a when reads of a step it waits for: its outcome and its
// output, as JSON (nil for none).
type Step struct {
	Outcome string
	Output  json.RawMessage
}

// Input is the document a when is evaluated over, and the one its jq
// program reads: {"steps": {NAME: {"outcome": …, "output": …}}, "item": …}.
type Input struct {
	Steps map[string]Step
	// Item is the for_each item's JSON; nil for none.
	Item json.RawMessage
}

// MarshalJSON writes in as its jq program reads it.
func (in Input) MarshalJSON() ([]byte, error) {
	type step struct {
		Outcome string          `json:"outcome"`
		Output  json.RawMessage `json:"output"`
	}
	doc := struct {
		Steps map[string]step `json:"steps"`
		Item  json.RawMessage `json:"item"`
	}{Steps: map[string]step{}, Item: orNull(in.Item)}
	for name, s := range in.Steps {
		doc.Steps[name] = step{Outcome: s.Outcome, Output: orNull(s.Output)}
	}
	return json.Marshal(doc)
}

func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// Eval evaluates the expression over in: true runs the step, false skips
// it. An error (a field the output lacks, a null compared) says what went
// wrong.
func (x *Expr) Eval(in Input) (bool, error) {
	v, err := x.value(in)
	switch {
	case err != nil:
		return false, err
	case v.Type() != cty.Bool:
		return false, fmt.Errorf("it is %s, not a boolean", typeName(v.Type()))
	}
	return v.True(), nil
}

// Items evaluates a for_each over in: the items of the list it gives, each
// as JSON. An error (a field the output lacks, a value that is no list)
// says what went wrong.
func (x *Expr) Items(in Input) ([]json.RawMessage, error) {
	v, err := x.value(in)
	if err != nil {
		return nil, err
	}
	if t := v.Type(); !t.IsListType() && !t.IsTupleType() && !t.IsSetType() {
		return nil, fmt.Errorf("it is %s, not a list", typeName(t))
	}
	items := []json.RawMessage{}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if !e.IsWhollyKnown() {
			return nil, errors.New("an item is unknown")
		}
		b, err := ctyjson.Marshal(e, e.Type())
		if err != nil {
			return nil, err
		}
		items = append(items, b)
	}
	return items, nil
}

// value evaluates the expression over in to a known value that is not
// null.
func (x *Expr) value(in Input) (cty.Value, error) {
	steps := map[string]cty.Value{}
	for name, s := range in.Steps {
		out, err := jsonValue(s.Output)
		if err != nil {
			return cty.NilVal, fmt.Errorf("the output of step %q: %w", name, err)
		}
		steps[name] = cty.ObjectVal(map[string]cty.Value{"outcome": cty.StringVal(s.Outcome), "output": out})
	}
	item, err := jsonValue(in.Item)
	if err != nil {
		return cty.NilVal, fmt.Errorf("item: %w", err)
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"steps": cty.ObjectVal(steps), "item": item},
		Functions: functions,
	}
	v, diags := x.e.Value(ctx)
	if diags.HasErrors() {
		var msgs []string
		for _, d := range diags.Errs() {
			msgs = append(msgs, lowerFirst(strings.TrimSuffix(d.Error(), ".")))
		}
		return cty.NilVal, errors.New(strings.Join(msgs, "; "))
	}
	if !v.IsKnown() || v.IsNull() {
		return cty.NilVal, errors.New("it is null")
	}
	return v, nil
}

// jsonValue is a JSON document as a cty value, null for none.
func jsonValue(b json.RawMessage) (cty.Value, error) {
	if len(b) == 0 {
		return cty.NullVal(cty.DynamicPseudoType), nil
	}
	t, err := ctyjson.ImpliedType(b)
	if err != nil {
		return cty.NilVal, err
	}
	return ctyjson.Unmarshal(b, t)
}

// functions are the functions a when may call (Functions).
var functions = map[string]function.Function{
	"contains":   stdlib.ContainsFunc,
	"length":     lengthFunc,
	"startswith": affixFunc(strings.HasPrefix),
	"endswith":   affixFunc(strings.HasSuffix),
}

// lengthFunc is the length of a list, an object (its fields) or a string
// (its characters).
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		switch t := v.Type(); {
		case v.IsNull():
			return cty.NilVal, errors.New("length of null")
		case t == cty.String:
			return cty.NumberIntVal(int64(utf8.RuneCountInString(v.AsString()))), nil
		case t.IsObjectType():
			return cty.NumberIntVal(int64(len(t.AttributeTypes()))), nil
		case t.IsListType(), t.IsTupleType(), t.IsSetType(), t.IsMapType():
			return cty.NumberIntVal(int64(v.LengthInt())), nil
		}
		return cty.NilVal, fmt.Errorf("length of %s", typeName(v.Type()))
	},
})

// affixFunc is startswith or endswith, by has.
func affixFunc(has func(s, affix string) bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "value", Type: cty.String}, {Name: "affix", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.BoolVal(has(args[0].AsString(), args[1].AsString())), nil
		},
	})
}
