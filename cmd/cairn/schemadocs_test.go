package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/schema"
)

// TestSchemaDocs fails when docs/schema drifts from what `cairn schema`
// prints, the schemas made from the front-ends' key tables;
// UPDATE_GOLDEN=1 rewrites them.
func TestSchemaDocs(t *testing.T) {
	t.Parallel()
	for _, name := range schema.All() {
		stdout, stderr, code := cairnIn(t, t.TempDir(), "schema", name)
		if code != exitOK || len(stderr) > 0 {
			t.Fatalf("cairn schema %s: exit %d, stderr %s", name, code, stderr)
		}
		compareGolden(t, filepath.Join("..", "..", "docs", "schema", name+".schema.json"), stdout)
	}
}

// TestSchemaUnknown checks that cairn schema refuses a file it has no
// schema of, naming those it has.
func TestSchemaUnknown(t *testing.T) {
	t.Parallel()
	_, stderr, code := cairnIn(t, t.TempDir(), "schema", "workflow")
	if code != exitUsage || !strings.Contains(string(stderr), `no schema "workflow"; want process, card, config, stubs, test or events`) {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
}
