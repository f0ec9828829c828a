package harness

import (
	"slices"
	"strings"
	"testing"
)

// TestArgvOutputSchema: claude takes a session's output schema as
// --json-schema, codex exec as an --output-schema file cairn writes into
// the session's files (before resume, where both take it); gemini,
// opencode and a custom harness take none, their prompt asks instead.
func TestArgvOutputSchema(t *testing.T) {
	const schema = `{"type":"object"}`
	r := testRegistry()
	for _, tc := range []struct {
		name, resume string
		want         []string
		file         bool
	}{
		{name: "claude", want: []string{"--json-schema", schema}},
		{name: "claude", resume: "s1", want: []string{"--json-schema", schema}},
		{name: "codex", want: []string{"--output-schema", "/f/output-schema.json", "-"}, file: true},
		{name: "codex", resume: "t1", want: []string{"--output-schema", "/f/output-schema.json", "resume", "t1", "-"}, file: true},
		{name: "gemini"},
		{name: "opencode"},
		{name: "mybot"},
	} {
		h, _ := r.Lookup(tc.name)
		inv := Invocation{Prompt: "p", Worktree: "/w", OutputFile: "o", FilesDir: "/f", OutputSchema: schema, Resume: tc.resume, Access: "write"}
		c, err := h.Command(inv)
		if err != nil {
			t.Fatal(err)
		}
		if h.TakesOutputSchema() != (tc.want != nil) || TakesOutputSchema(tc.name) != (tc.want != nil) {
			t.Errorf("%s: TakesOutputSchema is %v", tc.name, h.TakesOutputSchema())
		}
		joined := strings.Join(c.Argv, "\x00")
		if tc.want == nil {
			if strings.Contains(joined, "schema") {
				t.Errorf("%s: %q passes a schema", tc.name, c.Argv)
			}
			continue
		}
		if !strings.Contains(joined, strings.Join(tc.want, "\x00")) {
			t.Errorf("%s (resume %q): %q; want it to hold %q", tc.name, tc.resume, c.Argv, tc.want)
		}
		has := slices.ContainsFunc(c.Files, func(f File) bool { return f.Name == "output-schema.json" && f.Text == schema })
		if has != tc.file {
			t.Errorf("%s: files %v", tc.name, c.Files)
		}
		inv.OutputSchema = ""
		if c, _ := h.Command(inv); strings.Contains(strings.Join(c.Argv, " "), "schema") {
			t.Errorf("%s: %q passes a schema it was not given", tc.name, c.Argv)
		}
	}
}
