package ir

// JSONKind is the kind of a JSONValue.
type JSONKind uint8

// The kinds of JSON values.
const (
	JSONNull JSONKind = iota
	JSONString
	JSONNumber
	JSONBool
	JSONArray
	JSONObject
)

// JSONValue is a JSON value written in a process file in its own syntax (a
// TOML inline table, an HCL object, a YAML map), with where each part of it
// is written: a step's inline output_schema. Str is a string's value, or a
// number as JSON writes it ("3", "0.5").
type JSONValue struct {
	Kind    JSONKind
	Range   Range
	Str     string
	Bool    bool
	Items   []*JSONValue
	Members []JSONMember
}

// JSONMember is one "name": value of a JSON object, with its name's range.
type JSONMember struct {
	Name  string
	Key   Range
	Value *JSONValue
}

// Member returns the value of v's member called name, nil when v is no
// object or has none.
func (v *JSONValue) Member(name string) *JSONValue {
	if v == nil || v.Kind != JSONObject {
		return nil
	}
	for _, m := range v.Members {
		if m.Name == name {
			return m.Value
		}
	}
	return nil
}

// PlanOutput is a step's typed output (docs/design.md §7.1): the JSON
// Schema its output must match, as canonical JSON (compact, keys sorted),
// and where it was written: "inline", or the path of its .json file,
// relative to the repository's root.
type PlanOutput struct {
	Schema string `json:"schema"`
	Source string `json:"source"`
}

// OutputInline is the Source of an output schema written in the process
// file itself.
const OutputInline = "inline"

// HasOutputs reports whether a step of p declares a typed output.
func (p *Plan) HasOutputs() bool {
	for _, stage := range p.Stages {
		for _, s := range stage {
			if s.Output != nil {
				return true
			}
		}
	}
	return false
}
