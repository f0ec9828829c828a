package schema

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/pelletier/go-toml/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
	"github.com/cairn-dev/cairn/stubs"
)

// compile compiles the schema of the file called name with a real
// consumer of draft-07.
func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	b, err := JSON(name)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := name + ".schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return s
}

// fileKind is the schema a file's name says it is read by, "" for none.
func fileKind(file string) string {
	base := filepath.Base(file)
	switch {
	case strings.HasSuffix(base, parse.StubsSuffix):
		return "stubs"
	case strings.HasSuffix(base, parse.TestSuffix):
		return "test"
	case base == "config.toml" || strings.HasSuffix(base, ".config.toml"):
		return "config"
	case strings.HasSuffix(base, parse.CardSuffix):
		return "card"
	case strings.HasSuffix(base, ".toml"):
		return "process"
	}
	return ""
}

// instance is a file's data as JSON values: a TOML file's, or a card's
// front matter.
func instance(t *testing.T, kind string, src []byte) any {
	t.Helper()
	var v map[string]any
	if kind == "card" {
		parts := strings.SplitN(string(src), "\n---", 2)
		if err := yaml.Unmarshal([]byte(strings.TrimPrefix(parts[0], "---\n")), &v); err != nil {
			return nil
		}
	} else if err := toml.Unmarshal(src, &v); err != nil {
		return nil
	}
	if v == nil {
		v = map[string]any{}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// frontEnd is what a file's front-end, and for a process the rules that
// depend on the file alone (check --lint), say of it.
func frontEnd(kind, file string, src []byte) []ir.Diagnostic {
	var p *ir.Process
	var diags []ir.Diagnostic
	switch kind {
	case "config":
		_, diags = config.Read(file, src)
		return diags
	case "stubs":
		_, diags = stubs.Read(file, src)
		return diags
	case "test":
		_, diags = stubs.ReadTest(file, src)
		return diags
	case "card":
		p, diags = parse.Card(file, src)
	default:
		p, diags = parse.TOML(file, src)
	}
	env := &check.Env{Config: &config.Config{}, Harnesses: harness.NewRegistry(nil), Lint: true}
	_, diags = check.Check(context.Background(), p, diags, env)
	return diags
}

// structural reports whether ds hold a refusal of a key or a value's type,
// which the schemas refuse too.
func structural(ds []ir.Diagnostic) bool {
	return slices.ContainsFunc(ds, func(d ir.Diagnostic) bool {
		return d.Rule == ir.RuleUnknownKey || d.Rule == ir.RuleType
	})
}

// TestGoldenFilesValidate holds every golden and example file a schema
// covers to its schema: a file its front-end (and --lint) accepts must
// validate, and one refused for an unknown key or a wrong type must not.
func TestGoldenFilesValidate(t *testing.T) {
	schemas := map[string]*jsonschema.Schema{}
	for _, name := range Names() {
		schemas[name] = compile(t, name)
	}
	var files []string
	for _, root := range []string{"../golden", "../examples", "../config/testdata"} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && fileKind(p) != "" {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	valid := map[string]int{}
	for _, file := range files {
		kind := fileKind(file)
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		inst := instance(t, kind, src)
		if inst == nil {
			continue
		}
		diags := frontEnd(kind, file, src)
		err = schemas[kind].Validate(inst)
		switch {
		case !ir.HasErrors(diags) && err != nil:
			t.Errorf("%s: accepted by cairn, refused by the %s schema: %v", file, kind, err)
		case structural(diags) && err == nil:
			t.Errorf("%s: refused by cairn (%s), accepted by the %s schema", file, diags[0].Message, kind)
		case !ir.HasErrors(diags):
			valid[kind]++
		}
	}
	for _, name := range Names() {
		if valid[name] == 0 {
			t.Errorf("no valid %s file was validated", name)
		}
	}
	t.Logf("valid files validated: %v", valid)
}

// TestSchemaRefuses checks the schemas refuse what the front-ends and lint
// refuse: an unknown key, a value outside its enum, a name off its pattern,
// a budget not above 0, a missing required key.
func TestSchemaRefuses(t *testing.T) {
	for _, tc := range []struct{ kind, src string }{
		{"process", "version = 1\ncommnd = \"x\"\n"},
		{"process", "description = \"no version\"\n"},
		{"process", "version = 2\n"},
		{"process", "version = 1\n[[steps]]\nname = \"Bad_Name\"\ncommand = \"true\"\n"},
		{"process", "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"x\"\neffort = \"huge\"\n"},
		{"process", "version = 1\n[[steps]]\nname = \"a\"\ncommand = \"true\"\ntimeout = \"5 minutes\"\n"},
		{"process", "version = 1\n[[steps]]\nname = \"a\"\ncommand = \"true\"\nenv = { 1X = \"y\" }\n"},
		{"process", "version = 1\n[limits]\nbudget_usd = 0\n"},
		{"process", "version = 1\n[worktrees.a]\n"},
		{"process", "version = 1\n[worktrees.a]\nkind = \"scratch\"\n"},
		{"card", "---\nsteps:\n  - id: a\n    run:\n      agents:\n        - model: balanced\n---\n"},
		{"card", "---\nrun_expiry: 30d\n---\n"},
		{"config", "effort = \"huge\"\n"},
		{"config", "[harnesses.mybot]\npreflight = [\"mybot\"]\n"},
		{"config", "[resources]\nmin_free_memory = \"2 parsecs\"\n"},
		{"stubs", "[stubs.a]\nverdict = \"maybe\"\n"},
		{"stubs", "[stubs.a]\nusage = { turns = -1 }\n"},
		{"test", "directive = \"x\"\n"},
		{"test", "process = \"a\"\n[expect.steps]\na = \"exploded\"\n"},
	} {
		inst := instance(t, tc.kind, []byte(tc.src))
		if inst == nil {
			t.Fatalf("%s does not parse:\n%s", tc.kind, tc.src)
		}
		if compile(t, tc.kind).Validate(inst) == nil {
			t.Errorf("the %s schema accepts\n%s", tc.kind, tc.src)
		}
	}
}

// TestSchemaAccepts checks what the schemas allow beyond enums: a custom
// harness, a model name, a test file's stubs file, never as an expiry.
func TestSchemaAccepts(t *testing.T) {
	for _, tc := range []struct{ kind, src string }{
		{"process", "version = 1\nrun_expiry = \"never\"\n[[steps]]\nname = \"a\"\nprompt = \"x\"\nharness = \"mybot\"\nmodel = \"opus\"\ntimeout = \"1h30m\"\n"},
		{"process", "version = 1\n[[steps]]\nname = \"a\"\nprompt = \"x\"\nharness = \"codex\"\nmodel = \"strong\"\n"},
		{"config", "[resources]\nmin_free_memory = \"512MiB\"\n[models.claude]\nbalanced = \"sonnet\"\n"},
		{"test", "process = \"a\"\nstubs = \"a.stubs.toml\"\n"},
		{"test", "process = \"a\"\n[stubs.a]\nresult = \"x\"\n"},
	} {
		if err := compile(t, tc.kind).Validate(instance(t, tc.kind, []byte(tc.src))); err != nil {
			t.Errorf("the %s schema refuses\n%s\n%v", tc.kind, tc.src, err)
		}
	}
}

// keyPaths are the dotted paths of every key of keys, a map's name or an
// array's item written "*".
func keyPaths(prefix string, keys []ir.Key) []string {
	var out []string
	for _, k := range keys {
		p := prefix + k.Name
		out = append(out, p)
		switch k.Type {
		case ir.KeyTable:
			out = append(out, keyPaths(p+".", k.Keys)...)
		case ir.KeyTables, ir.KeyTableMap:
			out = append(out, keyPaths(p+".*.", k.Keys)...)
		}
	}
	return out
}

// schemaPaths are the same paths read off a generated schema.
func schemaPaths(prefix string, s map[string]any) []string {
	var out []string
	props, _ := s["properties"].(map[string]any)
	for name, v := range props {
		p := prefix + name
		out = append(out, p)
		out = append(out, subPaths(p, v.(map[string]any))...)
	}
	return out
}

func subPaths(p string, v map[string]any) []string {
	if alts, ok := v["anyOf"].([]any); ok {
		var out []string
		for _, a := range alts {
			out = append(out, subPaths(p, a.(map[string]any))...)
		}
		return out
	}
	switch {
	case v["properties"] != nil:
		return schemaPaths(p+".", v)
	case v["type"] == "array" && v["items"].(map[string]any)["properties"] != nil:
		return schemaPaths(p+".*.", v["items"].(map[string]any))
	case v["type"] == "object":
		if ap, ok := v["additionalProperties"].(map[string]any); ok && ap["properties"] != nil {
			return schemaPaths(p+".*.", ap)
		}
	}
	return nil
}

// sample is a value of k's type its front-end reads without a type error.
func sample(k ir.Key) any {
	switch k.Type {
	case ir.KeyString:
		return "x"
	case ir.KeyInt:
		return 1
	case ir.KeyNumber:
		return 1.5
	case ir.KeyBool:
		return true
	case ir.KeyStrings:
		return []any{"x"}
	case ir.KeyStringMap:
		return map[string]any{"X": "x"}
	}
	return wrap(k, required(k.Keys, map[string]any{}))
}

// required is table with a sample of each required key of keys it lacks.
func required(keys []ir.Key, table map[string]any) map[string]any {
	for _, k := range keys {
		if _, ok := table[k.Name]; !ok && k.Required {
			table[k.Name] = sample(k)
		}
	}
	return table
}

// wrap is the table inner as the value of the table key k: the table, an
// array holding it, or a map holding it under "a".
func wrap(k ir.Key, inner map[string]any) any {
	switch k.Type {
	case ir.KeyTables:
		return []any{inner}
	case ir.KeyTableMap:
		return map[string]any{"a": inner}
	}
	return inner
}

// docWith is a document holding the key at path (in keys, a table of
// tables' or a map's item written "*"), or, with unknown, the tables on
// path with an unknown key in the last.
func docWith(keys []ir.Key, path []string, unknown bool) map[string]any {
	k, _ := ir.LookupKey(keys, path[0])
	rest := path[1:]
	if len(rest) > 0 && rest[0] == "*" {
		rest = rest[1:]
	}
	switch {
	case len(rest) > 0:
		return map[string]any{k.Name: wrap(k, required(k.Keys, docWith(k.Keys, rest, unknown)))}
	case unknown:
		return map[string]any{k.Name: wrap(k, required(k.Keys, map[string]any{"zz_unknown": "x"}))}
	}
	return map[string]any{k.Name: sample(k)}
}

// encode writes doc as a file of kind.
func encode(t *testing.T, kind string, doc map[string]any) []byte {
	t.Helper()
	if kind == "card" {
		b, err := yaml.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		return append(append([]byte("---\n"), b...), "---\n"...)
	}
	b, err := toml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKeySets checks that each schema's keys are its front-end's: the
// schema has exactly the key table's keys, the front-end reads each of them
// (no unknown-key, no type refusal of a value of the key's type), and
// refuses any other key in each of its tables.
func TestKeySets(t *testing.T) {
	for _, f := range Files {
		t.Run(f.Name, func(t *testing.T) {
			want := keyPaths("", f.Keys)
			b, err := JSON(f.Name)
			if err != nil {
				t.Fatal(err)
			}
			var s map[string]any
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			got := schemaPaths("", s)
			sort.Strings(want)
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Errorf("schema keys:\n%v\nkey table:\n%v", got, want)
			}
			for _, p := range want {
				path := strings.Split(p, ".")
				src := encode(t, f.Name, docWith(f.Keys, path, false))
				file := "x.toml"
				if f.Name == "card" {
					file = "x" + parse.CardSuffix
				}
				for _, d := range frontEndOnly(f.Name, file, src) {
					if d.Rule == ir.RuleUnknownKey || d.Rule == ir.RuleType {
						t.Errorf("%s: %s refused in\n%s", p, d.Message, src)
					}
				}
				k := lookupPath(f.Keys, path)
				if !k.Type.HasKeys() {
					continue
				}
				src = encode(t, f.Name, docWith(f.Keys, path, true))
				if !slices.ContainsFunc(frontEndOnly(f.Name, file, src), func(d ir.Diagnostic) bool { return d.Rule == ir.RuleUnknownKey }) {
					t.Errorf("%s: an unknown key is not refused in\n%s", p, src)
				}
			}
		})
	}
}

// lookupPath is the key at path, its "*" skipped.
func lookupPath(keys []ir.Key, path []string) ir.Key {
	var k ir.Key
	for _, name := range path {
		if name == "*" {
			continue
		}
		k, _ = ir.LookupKey(keys, name)
		keys = k.Keys
	}
	return k
}

// frontEndOnly is what the front-end of kind says of src, without rules.
func frontEndOnly(kind, file string, src []byte) []ir.Diagnostic {
	var diags []ir.Diagnostic
	switch kind {
	case "config":
		_, diags = config.Read(file, src)
	case "stubs":
		_, diags = stubs.Read(file, src)
	case "test":
		_, diags = stubs.ReadTest(file, src)
	case "card":
		_, diags = parse.Card(file, src)
	default:
		_, diags = parse.TOML(file, src)
	}
	return diags
}
