package output

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Violation is the first place an output breaks its schema: Pointer, the
// JSON Pointer of the value at fault ("" for the whole output), and what is
// wrong with it. Its Error is the cause a failed step shows, the same in
// cairn run and the bash target: `output at /severity: value must be one of
// "low", "high"`.
type Violation struct {
	Pointer string
	Message string
}

func (v *Violation) Error() string {
	if v.Pointer == "" {
		return "output: " + v.Message
	}
	return "output at " + v.Pointer + ": " + v.Message
}

// Validate checks out, the JSON a step gave as its output, against schema,
// canonical JSON that Check accepted, and returns the first violation, nil
// when there is none. The order of its checks is the jq program's (JQ): at
// each value type, const and enum, then the checks of the value's own type,
// an object's required properties in the schema's order, then its
// properties by name, an array's items in order.
func Validate(schema string, out []byte) *Violation {
	v, err := decode(out)
	if err != nil {
		return &Violation{Message: NotJSON}
	}
	s, err := decode([]byte(schema))
	if err != nil {
		return &Violation{Message: "output_schema is not JSON"}
	}
	return validate(s, v, "")
}

// The causes of an output that is none.
const (
	// NotJSON is the message of an output that is no JSON value.
	NotJSON = "not a JSON value"
	// Missing is the message of a command step that wrote nothing to
	// $CAIRN_OUTPUT.
	Missing = "missing: the step wrote none to $CAIRN_OUTPUT"
	// MissingSession is the message of a session whose final message
	// held no JSON.
	MissingSession = "missing: the session's final message holds no JSON"
)

func validate(schema, v any, ptr string) *Violation {
	s, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	fail := func(format string, args ...any) *Violation {
		return &Violation{Pointer: ptr, Message: fmt.Sprintf(format, args...)}
	}
	if t, ok := s["type"]; ok {
		types := typeList(t)
		if !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
			return fail("value must be %s, not %s", typeWords(types), jsonType(v, true))
		}
	}
	if c, ok := s["const"]; ok && !equal(c, v) {
		return fail("value must be %s", jsonText(c))
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return equal(x, v) }) {
		return fail("value must be %s", oneOf(e))
	}
	switch v := v.(type) {
	case string:
		n := utf8.RuneCountInString(v)
		if m, ok := s["minLength"].(json.Number); ok && float64(n) < number(m) {
			return fail("value must be at least %s characters long", m)
		}
		if m, ok := s["maxLength"].(json.Number); ok && float64(n) > number(m) {
			return fail("value must be at most %s characters long", m)
		}
	case json.Number:
		if m, ok := s["minimum"].(json.Number); ok && number(v) < number(m) {
			return fail("value must be at least %s", m)
		}
		if m, ok := s["maximum"].(json.Number); ok && number(v) > number(m) {
			return fail("value must be at most %s", m)
		}
	case []any:
		if m, ok := s["minItems"].(json.Number); ok && float64(len(v)) < number(m) {
			return fail("value must have at least %s items", m)
		}
		if m, ok := s["maxItems"].(json.Number); ok && float64(len(v)) > number(m) {
			return fail("value must have at most %s items", m)
		}
		if items, ok := s["items"]; ok {
			for i, it := range v {
				if bad := validate(items, it, fmt.Sprintf("%s/%d", ptr, i)); bad != nil {
					return bad
				}
			}
		}
	case map[string]any:
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				name, _ := r.(string)
				if _, ok := v[name]; !ok {
					return &Violation{Pointer: ptr + "/" + escape(name), Message: "required value is missing"}
				}
			}
		}
		props, _ := s["properties"].(map[string]any)
		if ap, ok := s["additionalProperties"].(bool); ok && !ap {
			for _, name := range sortedKeys(v) {
				if _, ok := props[name]; !ok {
					return &Violation{Pointer: ptr + "/" + escape(name), Message: "property is not allowed: the schema lists no such property"}
				}
			}
		}
		for _, name := range sortedKeys(props) {
			if pv, ok := v[name]; ok {
				if bad := validate(props[name], pv, ptr+"/"+escape(name)); bad != nil {
					return bad
				}
			}
		}
	}
	return nil
}

// typeList is the types a type keyword's value t names.
func typeList(t any) []string {
	switch t := t.(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// hasType reports whether v is of the JSON Schema type t.
func hasType(v any, t string) bool {
	switch t {
	case "integer":
		n, ok := v.(json.Number)
		return ok && number(n) == math.Floor(number(n))
	case "number":
		_, ok := v.(json.Number)
		return ok
	}
	return jsonType(v, false) == t
}

// typeWords says types, the types of a type keyword: "a string", "a
// string or null".
func typeWords(types []string) string {
	words := make([]string, len(types))
	for i, t := range types {
		words[i] = withArticle(t)
	}
	return strings.Join(words, " or ")
}

// oneOf says the values of an enum: `"low"` for one, `one of "low",
// "high"` for more.
func oneOf(values []any) string {
	if len(values) == 1 {
		return jsonText(values[0])
	}
	texts := make([]string, len(values))
	for i, x := range values {
		texts[i] = jsonText(x)
	}
	return "one of " + strings.Join(texts, ", ")
}

// jsonText is v as canonical JSON.
func jsonText(v any) string {
	b, err := marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// equal reports whether a and b, decoded JSON values, are equal as jq's ==
// finds them: numbers by value, objects whatever their keys' order.
func equal(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		bn, ok := b.(json.Number)
		return ok && number(a) == number(bn)
	case []any:
		bs, ok := b.([]any)
		return ok && slices.EqualFunc(a, bs, equal)
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	}
	return a == b
}
