// Package schema makes the JSON Schemas (draft-07) of the files cairn reads
// from the key tables their front-ends refuse unknown keys by (a process
// file in TOML, a card's front matter, the user config, stubs files and test
// files), and of the events `cairn run --json` writes.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
	"github.com/cairn-dev/cairn/stubs"
)

// File is one kind of file cairn reads, with its key table.
type File struct {
	// Name is what `cairn schema NAME` calls it, and its schema's file
	// name in docs/schema (NAME.schema.json).
	Name  string
	Title string
	Keys  []ir.Key
}

// Files are the files that have a schema, in the order `cairn schema`
// lists them.
var Files = []File{
	{Name: "process", Title: "cairn process file (TOML)", Keys: parse.TOMLKeys},
	{Name: "card", Title: "cairn card front matter (YAML, between a .procedure.card's first two --- lines)", Keys: parse.CardKeys},
	{Name: "config", Title: "cairn user config ($CAIRN_HOME/config.toml)", Keys: config.Keys},
	{Name: "stubs", Title: "cairn stubs file (NAME.stubs.toml)", Keys: stubs.StubsKeys},
	{Name: "test", Title: "cairn test file (NAME.test.toml)", Keys: stubs.TestKeys},
}

// Names are the files' names.
func Names() []string {
	names := make([]string, len(Files))
	for i, f := range Files {
		names[i] = f.Name
	}
	return names
}

// Lookup returns the file called name.
func Lookup(name string) (File, bool) {
	for _, f := range Files {
		if f.Name == name {
			return f, true
		}
	}
	return File{}, false
}

// All are the names of every schema `cairn schema` prints: the files',
// then Events.
func All() []string {
	return append(Names(), Events)
}

// JSON is the schema called name (one of All), indented, ending in a
// newline.
func JSON(name string) ([]byte, error) {
	var root object
	if f, ok := Lookup(name); ok {
		root = object{
			{"$schema", "http://json-schema.org/draft-07/schema#"},
			{"title", f.Title},
		}
		root = append(root, table(f.Keys)...)
	} else if name == Events {
		root = eventsSchema()
	} else {
		return nil, fmt.Errorf("no schema %q; want %s", name, ir.OneOf(All()))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// member is one name and value of a JSON object.
type member struct {
	name  string
	value any
}

// object is a JSON object that keeps its members' order: a schema reads
// in the order of its key table.
type object []member

// MarshalJSON writes o's members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(m.name)
		if err != nil {
			return nil, err
		}
		value, err := marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping: patterns hold < and >
// rarely, but & and quotes in docs read better as written.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// table is the schema of a table of keys, less its description: an
// object of exactly those keys, as every front-end refuses the others.
func table(keys []ir.Key) object {
	props := object{}
	var required []string
	for _, k := range keys {
		props = append(props, member{k.Name, key(k)})
		if k.Required {
			required = append(required, k.Name)
		}
	}
	o := object{{"type", "object"}, {"properties", props}, {"additionalProperties", false}}
	if required != nil {
		o = append(o, member{"required", required})
	}
	return o
}

// key is the schema of one key, with its doc.
func key(k ir.Key) object {
	o := object{{"description", k.Doc}, {"markdownDescription", k.Doc}}
	if k.Or != "" {
		return append(o, member{"anyOf", []object{value(k, k.Type), value(k, k.Or)}})
	}
	return append(o, value(k, k.Type)...)
}

// value is the schema of a value of type t of key k.
func value(k ir.Key, t ir.KeyType) object {
	switch t {
	case ir.KeyString:
		return str(k)
	case ir.KeyInt, ir.KeyNumber:
		o := object{{"type", string(t)}}
		if len(k.Values) > 0 {
			var vs []json.Number
			for _, v := range k.Values {
				if _, err := strconv.ParseFloat(v, 64); err == nil {
					vs = append(vs, json.Number(v))
				}
			}
			o = append(o, member{"enum", vs})
		}
		if b := k.Min; b != nil {
			name := "minimum"
			if b.Exclusive {
				name = "exclusiveMinimum"
			}
			o = append(o, member{name, b.Value})
		}
		return o
	case ir.KeyBool:
		return object{{"type", "boolean"}}
	case ir.KeyStrings:
		return object{{"type", "array"}, {"items", str(ir.Key{Values: k.Values, Pattern: k.Pattern})}}
	case ir.KeyStringMap:
		o := object{{"type", "object"}}
		if names := names(k); names != nil {
			o = append(o, member{"propertyNames", names})
		}
		return append(o, member{"additionalProperties", str(ir.Key{Values: k.Values, Pattern: k.Pattern})})
	case ir.KeyTable:
		return table(k.Keys)
	case ir.KeyJSON:
		return object{{"type", "object"}}
	case ir.KeyTables:
		return object{{"type", "array"}, {"items", table(k.Keys)}}
	case ir.KeyTableMap:
		o := object{{"type", "object"}}
		if names := names(k); names != nil {
			o = append(o, member{"propertyNames", names})
		}
		return append(o, member{"additionalProperties", table(k.Keys)})
	}
	panic(fmt.Sprintf("key %q has no type", k.Name))
}

// str is the schema of a string key: an enum of its values, or, when the
// values only come first among an open set of names, any of them or a
// string of its pattern.
func str(k ir.Key) object {
	values := k.Values
	if k.Names == ir.NamesHarness {
		values = Builtins()
	}
	s := object{{"type", "string"}}
	if k.Pattern != "" {
		s = append(s, member{"pattern", k.Pattern})
	}
	if k.Pattern == ir.DurationPattern {
		s = append(s, member{"minLength", 1})
	}
	if k.MaxLength > 0 {
		s = append(s, member{"maxLength", k.MaxLength})
	}
	switch {
	case len(values) == 0:
		return s
	case k.Names == "":
		return object{{"type", "string"}, {"enum", values}}
	}
	return object{{"anyOf", []object{{{"type", "string"}, {"enum", values}}, s}}}
}

// names is the schema of a map's names, nil when any will do.
func names(k ir.Key) object {
	o := object{}
	if k.NamePattern != "" {
		o = append(o, member{"pattern", k.NamePattern})
	}
	if k.MaxLength > 0 {
		o = append(o, member{"maxLength", k.MaxLength})
	}
	if len(o) == 0 {
		return nil
	}
	return o
}

// Builtins are the names of the built-in harnesses, sorted.
func Builtins() []string {
	var names []string
	r := harness.NewRegistry(nil)
	for _, n := range r.Names() {
		if h, ok := r.Lookup(n); ok && h.Builtin {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}
