// Package output is a step's typed output (docs/design.md §7.1): the subset
// of JSON Schema cairn checks an output against, identically in cairn run
// and in the compiled targets, the validator, the jq program the bash target
// validates with, and how an output is read from a session's final text.
package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// Keywords are the JSON Schema keywords cairn checks an output against, in
// the order messages list them: those the bash target's jq program checks
// exactly as cairn run does, and the annotations that check nothing.
var Keywords = []string{
	"type", "properties", "required", "items", "enum", "const", "additionalProperties",
	"minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems",
	"title", "description", "$schema",
}

// Types are the values of the type keyword.
var Types = []string{"null", "boolean", "object", "array", "number", "string", "integer"}

// Problem is what is wrong with a schema, at Pointer, the JSON Pointer of
// the value at fault inside it (of the keyword itself when Keyword is set).
type Problem struct {
	Pointer string
	Keyword bool
	Message string
}

func (p Problem) Error() string { return p.Message }

// Canonical is the JSON of v, compact and with its objects' keys sorted:
// how a plan carries a schema.
func Canonical(v *ir.JSONValue) string {
	b, err := marshal(value(v))
	if err != nil {
		// value holds nothing json cannot write.
		panic(err)
	}
	return string(b)
}

// CanonicalJSON is the JSON text b, compact and with its objects' keys
// sorted; an error when b is no JSON value.
func CanonicalJSON(b []byte) (string, error) {
	v, err := decode(b)
	if err != nil {
		return "", err
	}
	out, err := marshal(v)
	return string(out), err
}

// decode reads b, one JSON value, with its numbers as json.Number.
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err == nil {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// marshal writes v compact, keys sorted, "<" and "&" as they are.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// value is v as encoding/json values.
func value(v *ir.JSONValue) any {
	switch v.Kind {
	case ir.JSONString:
		return v.Str
	case ir.JSONNumber:
		return json.Number(v.Str)
	case ir.JSONBool:
		return v.Bool
	case ir.JSONArray:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = value(it)
		}
		return out
	case ir.JSONObject:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			out[m.Name] = value(m.Value)
		}
		return out
	}
	return nil
}

// Check returns what is wrong with schema, canonical JSON: every keyword
// outside Keywords, in pointer order; else a $schema naming a metaschema
// cairn does not hold, or else a keyword's value its draft's metaschema
// refuses, the first in pointer order.
func Check(schema string) []Problem {
	v, err := decode([]byte(schema))
	if err != nil {
		return []Problem{{Message: fmt.Sprintf("output_schema is not JSON: %v", err)}}
	}
	var out []Problem
	subset(v, "", &out)
	if len(out) > 0 {
		return out
	}
	if p := unknownSchema(v, ""); p != nil {
		return []Problem{*p}
	}
	d := draft(2020)
	if obj, ok := v.(map[string]any); ok {
		if url, ok := obj["$schema"].(string); ok {
			d, _ = draftOf(url)
		}
	}
	if p := metaschema(v, "", d); p != nil {
		return []Problem{*p}
	}
	return nil
}

// subset finds the keywords outside Keywords in the schema v at ptr.
func subset(v any, ptr string, out *[]Problem) {
	obj, ok := v.(map[string]any)
	if !ok {
		*out = append(*out, Problem{Pointer: ptr, Message: fmt.Sprintf("output_schema: a schema must be an object, not %s", jsonType(v, true))})
		return
	}
	for _, k := range sortedKeys(obj) {
		at := ptr + "/" + escape(k)
		if !slices.Contains(Keywords, k) {
			*out = append(*out, Problem{Pointer: at, Keyword: true, Message: fmt.Sprintf("output_schema: keyword %q is not supported; cairn checks %s", k, strings.Join(Keywords, ", "))})
			continue
		}
		switch k {
		case "properties":
			if props, ok := obj[k].(map[string]any); ok {
				for _, name := range sortedKeys(props) {
					subset(props[name], at+"/"+escape(name), out)
				}
			}
		case "items":
			subset(obj[k], at, out)
		case "additionalProperties":
			if _, ok := obj[k].(bool); !ok {
				*out = append(*out, Problem{Pointer: at, Message: "output_schema: additionalProperties must be true or false; cairn checks no schema of additional properties"})
			}
		}
	}
}

// Check's second pass, below, holds the values of the keywords of Keywords
// to what the metaschema of the schema's draft of JSON Schema allows them,
// as a JSON Schema library checking the schema against its metaschema does
// (TestCheckAgreesWithLibrary holds them to one), without one: compiling
// every draft's metaschemas cost each start of cairn 11 ms and 1.7 MB.

// draft is a draft of JSON Schema, by its number (4, 6, 7) or year (2019,
// 2020): what the metaschemas of the drafts say of the keywords of
// Keywords differs only in how few items an enum or a required may list,
// and whether an enum's items must differ.
type draft int

// draftOf is the draft whose metaschema url names (http or https, with or
// without an empty fragment); false for any other url: cairn loads no
// schema.
func draftOf(url string) (draft, bool) {
	u, ok := strings.CutPrefix(strings.TrimSuffix(url, "#"), "http://")
	if !ok {
		if u, ok = strings.CutPrefix(strings.TrimSuffix(url, "#"), "https://"); !ok {
			return 0, false
		}
	}
	switch u {
	case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema":
		return 2020, true
	case "json-schema.org/draft/2019-09/schema":
		return 2019, true
	case "json-schema.org/draft-07/schema":
		return 7, true
	case "json-schema.org/draft-06/schema":
		return 6, true
	case "json-schema.org/draft-04/schema":
		return 4, true
	}
	return 0, false
}

// invalid is the Problem of the value at ptr that the metaschema refuses.
func invalid(ptr, format string, args ...any) *Problem {
	return &Problem{Pointer: ptr, Message: "output_schema is not a valid JSON Schema: " + fmt.Sprintf(format, args...)}
}

// unknownSchema finds, in the schema v at ptr, a $schema that names no
// metaschema cairn holds: the first, in pointer order.
func unknownSchema(v any, ptr string) *Problem {
	obj, _ := v.(map[string]any)
	for _, k := range sortedKeys(obj) {
		var p *Problem
		switch k {
		case "$schema":
			if url, ok := obj[k].(string); ok {
				if _, ok := draftOf(url); !ok {
					return invalid("", "failing loading %q: cairn loads no schema from %q", url, url)
				}
			}
		case "properties":
			props, _ := obj[k].(map[string]any)
			for _, name := range sortedKeys(props) {
				if p = unknownSchema(props[name], ptr+"/properties/"+escape(name)); p != nil {
					return p
				}
			}
		case "items":
			p = unknownSchema(obj[k], ptr+"/items")
		}
		if p != nil {
			return p
		}
	}
	return nil
}

// metaschema finds, in the schema v at ptr, a value of a keyword that the
// metaschema of draft d refuses: the first, in pointer order. v holds
// only keywords of Keywords, as subset found.
func metaschema(v any, ptr string, d draft) *Problem {
	obj, _ := v.(map[string]any)
	for _, k := range sortedKeys(obj) {
		at, val := ptr+"/"+escape(k), obj[k]
		var p *Problem
		switch k {
		case "type":
			p = typeValue(val, at)
		case "required":
			p = arrayValue(val, at, true, d == 4, true)
		case "enum":
			p = arrayValue(val, at, false, d <= 7, d <= 7)
		case "minimum", "maximum":
			if _, ok := val.(json.Number); !ok {
				p = invalid(at, "got %s, want number", jsonType(val, false))
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			n, ok := val.(json.Number)
			switch {
			case !ok || !hasType(n, "integer"):
				p = invalid(at, "got %s, want integer", jsonType(val, false))
			case number(n) < 0:
				p = invalid(at, "minimum: got %s, want 0", n)
			}
		case "title", "description", "$schema":
			if _, ok := val.(string); !ok {
				p = invalid(at, "got %s, want string", jsonType(val, false))
			}
		case "properties":
			props, ok := val.(map[string]any)
			if !ok {
				p = invalid(at, "got %s, want object", jsonType(val, false))
				break
			}
			for _, name := range sortedKeys(props) {
				if p = metaschema(props[name], at+"/"+escape(name), d); p != nil {
					break
				}
			}
		case "items":
			p = metaschema(val, at, d)
		}
		if p != nil {
			return p
		}
	}
	return nil
}

// typeValue is the Problem of val, the value of a type keyword at ptr,
// unless it is one of Types or an array of one or more of them, each once.
func typeValue(val any, ptr string) *Problem {
	ok := false
	switch t := val.(type) {
	case string:
		ok = slices.Contains(Types, t)
	case []any:
		ok = len(t) > 0
		for i, x := range t {
			s, isString := x.(string)
			ok = ok && isString && slices.Contains(Types, s) && !slices.Contains(t[:i], x)
		}
	}
	if ok {
		return nil
	}
	return invalid(ptr, "value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'")
}

// arrayValue is the Problem of val, the value at ptr of a keyword whose
// value is an array: of strings only when ofStrings, of one item or more
// when nonEmpty, of items that differ when unique.
func arrayValue(val any, ptr string, ofStrings, nonEmpty, unique bool) *Problem {
	arr, ok := val.([]any)
	if !ok {
		return invalid(ptr, "got %s, want array", jsonType(val, false))
	}
	for i, x := range arr {
		if _, ok := x.(string); ofStrings && !ok {
			return invalid(fmt.Sprintf("%s/%d", ptr, i), "got %s, want string", jsonType(x, false))
		}
	}
	if nonEmpty && len(arr) == 0 {
		return invalid(ptr, "minItems: got 0, want 1")
	}
	for j := range arr {
		for i := range j {
			if unique && equal(arr[i], arr[j]) {
				return invalid(ptr, "items at %d and %d are equal", i, j)
			}
		}
	}
	return nil
}

// sortedKeys are obj's keys in byte order, as canonical JSON writes them.
func sortedKeys[V any](obj map[string]V) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// escape is a JSON Pointer's reference token for name.
func escape(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// Tokens are the reference tokens of ptr, a JSON Pointer, unescaped.
func Tokens(ptr string) []string {
	if ptr == "" {
		return nil
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
}

// jsonType names the type of v, a decoded JSON value, with its article
// when article is set: "an object", "a string".
func jsonType(v any, article bool) string {
	var t string
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		t = "boolean"
	case json.Number, float64:
		t = "number"
	case string:
		t = "string"
	case []any:
		t = "array"
	case map[string]any:
		t = "object"
	}
	if article {
		return withArticle(t)
	}
	return t
}

// withArticle is t, a type's name, as a message says it: "an object",
// "a string", "null".
func withArticle(t string) string {
	switch t {
	case "null":
		return t
	case "object", "array", "integer":
		return "an " + t
	}
	return "a " + t
}

// number is n as a float64, as jq holds numbers: one too large is
// infinite to both.
func number(n json.Number) float64 {
	f, _ := strconv.ParseFloat(string(n), 64)
	return f
}
