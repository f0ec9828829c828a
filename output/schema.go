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
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
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
// outside Keywords, in pointer order; else, when the library of JSON Schema
// cannot compile it, why.
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
	if _, err := compile(v); err != nil {
		return []Problem{compileProblem(err)}
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

// noLoader refuses every URL: a schema cairn checks names no other.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("cairn loads no schema from %q", url)
}

// compile compiles the schema v with the JSON Schema library, which loads
// nothing but the metaschemas it holds.
func compile(v any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	const url = "cairn:///output_schema.json"
	if err := c.AddResource(url, v); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// compileProblem is the Problem of err, from compiling a schema: where in
// the schema the metaschema found it wrong, when it says.
func compileProblem(err error) Problem {
	var sv *jsonschema.SchemaValidationError
	if errors.As(err, &sv) {
		var ve *jsonschema.ValidationError
		if errors.As(sv.Err, &ve) {
			for len(ve.Causes) > 0 {
				ve = ve.Causes[0]
			}
			ptr := ""
			for _, tok := range ve.InstanceLocation {
				ptr += "/" + escape(tok)
			}
			msg := ve.ErrorKind.LocalizedString(message.NewPrinter(language.English))
			return Problem{Pointer: ptr, Message: "output_schema is not a valid JSON Schema: " + msg}
		}
	}
	return Problem{Message: "output_schema is not a valid JSON Schema: " + err.Error()}
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
