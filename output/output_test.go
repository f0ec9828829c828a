package output

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

const triage = `{"additionalProperties":false,"properties":{"files":{"items":{"type":"string"},"maxItems":2,"type":"array"},"score":{"maximum":10,"minimum":0,"type":"integer"},"severity":{"enum":["low","high"]},"title":{"maxLength":5,"minLength":2,"type":"string"}},"required":["severity","title"],"type":"object"}`

// TestValidate: the first violation of an output, with its JSON Pointer,
// in the order the jq program checks.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		out, want string
	}{
		{`{"severity":"high","title":"ok"}`, ""},
		{`{"severity":"high","title":"ok","files":["a"],"score":3}`, ""},
		{`[]`, "output: value must be an object, not an array"},
		{`{"title":"ok"}`, "output at /severity: required value is missing"},
		{`{"severity":"medium","title":"ok"}`, `output at /severity: value must be one of "low", "high"`},
		{`{"severity":"low","title":"o"}`, "output at /title: value must be at least 2 characters long"},
		{`{"severity":"low","title":"éééééé"}`, "output at /title: value must be at most 5 characters long"},
		{`{"severity":"low","title":"ok","score":1.5}`, "output at /score: value must be an integer, not a number"},
		{`{"severity":"low","title":"ok","score":11}`, "output at /score: value must be at most 10"},
		{`{"severity":"low","title":"ok","score":-1}`, "output at /score: value must be at least 0"},
		{`{"severity":"low","title":"ok","files":["a",2]}`, "output at /files/1: value must be a string, not a number"},
		{`{"severity":"low","title":"ok","files":["a","b","c"]}`, "output at /files: value must have at most 2 items"},
		{`{"severity":"low","title":"ok","extra/x":1}`, "output at /extra~1x: property is not allowed: the schema lists no such property"},
		{`{"severity":`, "output: " + NotJSON},
		{`1 2`, "output: " + NotJSON},
	} {
		got := ""
		if v := Validate(triage, []byte(tc.out)); v != nil {
			got = v.Error()
		}
		if got != tc.want {
			t.Errorf("Validate(%s) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

// TestValidateAgreesWithLibrary: what Validate accepts, the JSON Schema
// library accepts, and what it refuses the library refuses.
func TestValidateAgreesWithLibrary(t *testing.T) {
	schemas := []string{
		triage,
		`{"type":["string","null"],"const":null}`,
		`{"type":"array","minItems":1,"items":{"type":"object","required":["a"],"properties":{"a":{"type":"number","minimum":0.5}}}}`,
		`{"enum":[1,"1",{"a":[1,2]},null,true]}`,
	}
	outs := []string{`null`, `true`, `1`, `1.0`, `0.25`, `"1"`, `"x"`, `[]`, `[{"a":1}]`, `[{"a":0.1}]`, `[{}]`,
		`{"a":[1,2]}`, `{"a":[2,1]}`, `{"severity":"low","title":"ok"}`, `{"severity":"low"}`, `{"severity":"low","title":"ok","x":1}`}
	for _, s := range schemas {
		v, err := decode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		sch, err := compile(v)
		if err != nil {
			t.Fatalf("compile %s: %v", s, err)
		}
		for _, o := range outs {
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(o))
			if err != nil {
				t.Fatal(err)
			}
			lib := sch.Validate(inst) == nil
			ours := Validate(s, []byte(o)) == nil
			if lib != ours {
				t.Errorf("schema %s, output %s: library valid=%v, Validate valid=%v", s, o, lib, ours)
			}
		}
	}
}

// TestCheck: keywords outside the subset are refused at their pointer; a
// schema the library refuses is refused with where it says.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   []string
	}{
		{triage, nil},
		{`{"type":"object","properties":{"a":{"pattern":"x","format":"email"}}}`, []string{"/properties/a/format keyword", "/properties/a/pattern keyword"}},
		{`{"additionalProperties":{"type":"string"}}`, []string{"/additionalProperties"}},
		{`{"items":[{"type":"string"}]}`, []string{"/items"}},
		{`{"type":"strin"}`, []string{"/type"}},
		{`{"$schema":"file:///etc/passwd"}`, []string{""}},
		{`[]`, []string{""}},
	} {
		var got []string
		for _, p := range Check(tc.schema) {
			s := p.Pointer
			if p.Keyword {
				s += " keyword"
			}
			got = append(got, s)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Check(%s) = %q, want %q (%v)", tc.schema, got, tc.want, Check(tc.schema))
		}
	}
}

// TestFromText: the last ```json fence, else the whole text when it is
// JSON.
func TestFromText(t *testing.T) {
	for _, tc := range []struct {
		text, want string
		ok         bool
	}{
		{"done\n```json\n{\"a\":1}\n```\nthen\n```json\n{\"a\":2}\n```\n", "{\"a\":2}\n", true},
		{" {\"a\":1}\n", `{"a":1}`, true},
		{"no json here", "", false},
		{"```json\n{\"a\":1}\n", "", false},
		{"```\n{}\n```", "", false},
	} {
		got, ok := FromText(tc.text)
		if string(got) != tc.want || ok != tc.ok {
			t.Errorf("FromText(%q) = %q, %v; want %q, %v", tc.text, got, ok, tc.want, tc.ok)
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

// libraryProblem is the Problem the library's error err, from compiling a
// schema, says: where in the schema the metaschema found it wrong, and why.
func libraryProblem(err error) Problem {
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

// TestCheckAgreesWithLibrary: of a schema of the keywords of Keywords only,
// Check finds what the JSON Schema library finds checking it against its
// draft's metaschema, at the same pointer, in the same words.
func TestCheckAgreesWithLibrary(t *testing.T) {
	const d4, d6, d7, d2019 = `"$schema":"http://json-schema.org/draft-04/schema#",`, `"$schema":"http://json-schema.org/draft-06/schema#",`,
		`"$schema":"http://json-schema.org/draft-07/schema",`, `"$schema":"https://json-schema.org/draft/2019-09/schema",`
	for _, s := range []string{
		triage,
		`{"type":"strin"}`, `{"type":3}`, `{"type":[]}`, `{"type":["string","string"]}`, `{"type":["string","x"]}`,
		`{"type":["string",1]}`, `{"type":["string","null"]}`, `{"properties":{"a":{"type":"x"}}}`,
		`{"required":"a"}`, `{"required":[1]}`, `{"required":["a","a"]}`, `{"required":[]}`, `{"required":["a","b"]}`,
		`{"enum":3}`, `{"enum":[]}`, `{"enum":[1,1]}`, `{"enum":[1,"1",null]}`, `{"const":{"a":1}}`,
		`{"minimum":"1"}`, `{"maximum":true}`, `{"minimum":-1.5e3}`, `{"maximum":null}`,
		`{"minLength":-1}`, `{"minLength":1.5}`, `{"minLength":-1.5}`, `{"minLength":1.0}`, `{"maxLength":"2"}`,
		`{"minItems":-2}`, `{"maxItems":1e400}`, `{"maxItems":1e2}`, `{"items":{"minItems":-1}}`,
		`{"title":1}`, `{"description":null}`, `{"title":"t","description":"d"}`,
		`{"properties":[]}`, `{"properties":3}`, `{"properties":{"a/b~":{"title":[]}}}`,
		`{"$schema":1}`, `{"$schema":"x"}`, `{"$schema":"file:///etc/passwd"}`, `{"$schema":"HTTP://json-schema.org/schema"}`,
		`{"properties":{"a":{"$schema":"x"}}}`, `{"properties":{"a":{"$schema":3}}}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema"}`, `{"$schema":"https://json-schema.org/draft/2020-12/schema#"}`,
		`{"$schema":"http://json-schema.org/schema#"}`, `{"$schema":"https://json-schema.org/draft-04/schema"}`,
		`{` + d4 + `"required":[]}`, `{` + d4 + `"enum":[]}`, `{` + d4 + `"minLength":1.0}`, `{` + d4 + `"required":["a","a"]}`,
		`{` + d6 + `"enum":[]}`, `{` + d6 + `"required":[]}`, `{` + d7 + `"enum":[]}`, `{` + d7 + `"enum":[1,1.0]}`,
		`{` + d7 + `"enum":[{"a":[1]},{"a":[1.0]}]}`, `{` + d7 + `"properties":{"b":{"enum":[]}}}`, `{` + d2019 + `"enum":[]}`,
		`{` + d4 + `"properties":{"b":{"$schema":"https://json-schema.org/draft/2020-12/schema","enum":[]}}}`,
		`{"properties":{"b":{"$schema":"http://json-schema.org/draft-04/schema#","enum":[]}}}`,
	} {
		v, err := decode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		var want []Problem
		if _, err := compile(v); err != nil {
			want = []Problem{libraryProblem(err)}
		}
		if got := Check(s); !slices.Equal(got, want) {
			t.Errorf("Check(%s) = %+v, the library finds %+v", s, got, want)
		}
	}
}
