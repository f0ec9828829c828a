package harness

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// TestInstallsAreVerified holds every built-in harness's package to the
// version .ci/agents.sh installs for the real-agent suite: a compiled
// workflow installs what that suite verified, and nothing else.
func TestInstallsAreVerified(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", ".ci", "agents.sh"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(@?[a-z0-9-]+(?:/[a-z0-9-]+)?)@([0-9][^\s]*)$`).FindAllStringSubmatch(string(b), -1) {
		pinned[m[1]] = m[2]
	}
	r := NewRegistry(nil)
	for _, name := range r.Names() {
		h, _ := r.Lookup(name)
		in, ok := h.Install()
		if !ok {
			t.Errorf("built-in harness %q has no package to install", name)
			continue
		}
		if v, ok := pinned[in.Package]; !ok || v != in.Version {
			t.Errorf("harness %q installs %s@%s; .ci/agents.sh verifies %q", name, in.Package, in.Version, v)
		}
	}
	custom := NewRegistry([]ir.CustomHarness{{Name: "mybot", Command: []string{"mybot"}}})
	h, _ := custom.Lookup("mybot")
	if in, ok := h.Install(); ok {
		t.Errorf("a custom harness installs %+v", in)
	}
}

// TestKeys names the keys each harness reads by their documented names,
// and none for what cairn cannot know.
func TestKeys(t *testing.T) {
	r := NewRegistry([]ir.CustomHarness{{Name: "mybot", Command: []string{"mybot"}}})
	for _, tc := range []struct {
		harness, model string
		want           []Key
	}{
		{"claude", "opus", []Key{{"ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"}, {"CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"}}},
		{"codex", "", []Key{{"CODEX_API_KEY", "OPENAI_API_KEY"}}},
		{"gemini", "gemini-2.5-pro", []Key{{"GEMINI_API_KEY", "GEMINI_API_KEY"}}},
		{"opencode", "anthropic/claude-sonnet-4-5", []Key{{"ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"}}},
		{"opencode", "google/gemini-2.5-pro", []Key{{"GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"}}},
		{"opencode", "acme/model", nil},
		{"opencode", "", nil},
		{"mybot", "big", nil},
	} {
		h, _ := r.Lookup(tc.harness)
		if got := h.Keys(tc.model); !slices.Equal(got, tc.want) {
			t.Errorf("%s with model %q: Keys = %+v; want %+v", tc.harness, tc.model, got, tc.want)
		}
	}
}
