package schema

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The JSON cairn prints is held to its schemas here, not in cmd/cairn: there
// the test binary is every cairn and fake gh the tests start, and each start
// would pay the library's package init, which compiles every draft's
// metaschemas. cmd/cairn's tests hold the files validated here equal to
// cairn's real output.

// checkOutputSchema compiles docs/check-output.schema.json, the JSON Schema
// of `cairn check --format json`.
func checkOutputSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	file := filepath.Join("..", "docs", "check-output.schema.json")
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("check-output.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("check-output.schema.json")
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return s
}

// validates is what s says of doc, nil when it accepts it; t fails if doc
// is no JSON.
func validates(t *testing.T, s *jsonschema.Schema, name string, doc []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", name, err, doc)
	}
	return s.Validate(inst)
}

// TestCheckOutputValidates holds the output of `cairn check --format json`
// to docs/check-output.schema.json: golden/output/check (a refused file, a
// valid file with every kind of action, diagnostics of no file) and
// golden/plan's JSON, each equal to cairn's output in cmd/cairn's tests.
func TestCheckOutputValidates(t *testing.T) {
	s := checkOutputSchema(t)
	var files []string
	for _, pattern := range []string{"../golden/output/check/*.json", "../golden/plan/*.json"} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		if len(matches) == 0 {
			t.Fatalf("no file matches %s", pattern)
		}
		files = append(files, matches...)
	}
	for _, file := range files {
		doc, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := validates(t, s, file, doc); err != nil {
			t.Errorf("%s does not match the schema: %v", file, err)
		}
	}
	for _, bad := range []string{
		`{"version":1,"diagnostics":null,"plans":[]}`,
		`{"version":1,"diagnostics":[],"plans":[],"extra":true}`,
		`{"version":1,"diagnostics":[{"file":"","line":0,"column":0,"end_line":0,"end_column":0,"severity":"fatal","rule":"x","message":"m","related":[],"fixes":[]}],"plans":[]}`,
		`{"version":1,"diagnostics":[{"file":"f","line":1,"column":1,"end_line":1,"end_column":2,"severity":"error","rule":"x","message":"m","related":[],"fixes":[{"message":"m","edits":[]}]}],"plans":[]}`,
	} {
		if validates(t, s, "a refused document", []byte(bad)) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}

// TestRunEventsValidate holds every line of golden/output/events, the events
// of cairn run, test and resume with --json (cmd/cairn's TestRunEventsSchema
// holds them equal to cairn's output), to the events schema, with its
// formats asserted.
func TestRunEventsValidate(t *testing.T) {
	b, err := JSON("events")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("events.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("events.schema.json")
	if err != nil {
		t.Fatal(err)
	}

	files, err := filepath.Glob("../golden/output/events/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no file matches ../golden/output/events/*.jsonl")
	}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if err := validates(t, s, file, sc.Bytes()); err != nil {
				t.Errorf("%s:%d: %s\n%v", file, n, sc.Bytes(), err)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	// The schema is no empty promise: it refuses a field a type does not
	// carry, a missing one, an unknown type and a time that is no time.
	for _, bad := range []string{
		`{"v":1,"type":"run_start","time":"2026-01-02T03:04:05Z","run":"p","process":"p","dir":"/d","outcome":"failed"}`,
		`{"v":1,"type":"step_end","time":"2026-01-02T03:04:05Z","run":"p","step":"a","exit_code":0,"duration_ms":1}`,
		`{"v":1,"type":"step_halfway","time":"2026-01-02T03:04:05Z","run":"p"}`,
		`{"v":1,"type":"warning","time":"yesterday","run":"p","message":"m"}`,
		`{"v":2,"type":"warning","time":"2026-01-02T03:04:05Z","run":"p","message":"m"}`,
	} {
		if validates(t, s, "a refused event", []byte(bad)) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}
