package views

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/record"
)

// TestGraphEscapes: a label holding what Mermaid or DOT would read as
// syntax stays text in both.
func TestGraphEscapes(t *testing.T) {
	t.Parallel()
	g := Graph{Title: `a "b"`, Nodes: []GraphNode{{Name: "x", Detail: "session, \"m\" <b>&#1;\n`c`\\", Outcome: record.Failed}}}
	var m, d strings.Builder
	if err := g.WriteMermaid(&m); err != nil {
		t.Fatal(err)
	}
	if want := `  s0["<b>x</b><br/>session, #quot;m#quot; #lt;b#gt;#38;#35;1; #96;c#96;\<br/>failed"]`; !strings.Contains(m.String(), want+"\n") {
		t.Errorf("mermaid:\n%s\nwant a line %s", m.String(), want)
	}
	if !strings.Contains(m.String(), "  class s0 failed\n") {
		t.Errorf("mermaid has no class for the failed step:\n%s", m.String())
	}
	if err := g.WriteDot(&d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`digraph "a \"b\"" {`, `  s0 [label="x\nsession, \"m\" <b>&#1;\n` + "`c`" + `\\\nfailed", fillcolor="#ffebe9", color="#cf222e"];`} {
		if !strings.Contains(d.String(), want+"\n") {
			t.Errorf("dot:\n%s\nwant a line %s", d.String(), want)
		}
	}
}
