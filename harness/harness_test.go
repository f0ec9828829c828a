package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

func testRegistry() *Registry {
	return NewRegistry([]ir.CustomHarness{
		{Name: "mybot", Command: []string{"mybot", "--model", "{{.Model}}", "{{if .Effort}}--effort={{.Effort}}{{end}}", "--turns={{.MaxTurns}}", "--dir", "{{.Worktree}}"}},
		{Name: "claude", Command: []string{"not-claude"}},
	})
}

func TestArgv(t *testing.T) {
	r := testRegistry()
	full := Invocation{Prompt: "do it", Model: "M", Effort: "high", MaxTurns: 30, Worktree: "/w", OutputFile: "/r/out.md"}
	bare := Invocation{Prompt: "do it", MaxTurns: 20, Worktree: "/w", OutputFile: "/r/out.md"}
	for _, tc := range []struct {
		harness string
		inv     Invocation
		want    string
		stdin   bool
	}{
		{"claude", full, `claude|-p|--output-format|json|--permission-mode|acceptEdits|--model|M|--effort|high|--max-turns|30`, true},
		{"claude", bare, `claude|-p|--output-format|json|--permission-mode|acceptEdits|--max-turns|20`, true},
		{"claude", Invocation{Effort: "max", MaxTurns: 5}, `claude|-p|--output-format|json|--permission-mode|acceptEdits|--effort|max|--max-turns|5`, true},
		{"codex", full, `codex|exec|--json|-o|/r/out.md|--sandbox|workspace-write|-m|M|-c|model_reasoning_effort=high|-C|/w|-`, true},
		{"codex", bare, `codex|exec|--json|-o|/r/out.md|--sandbox|workspace-write|-C|/w|-`, true},
		{"codex", Invocation{Effort: "max", Worktree: "/w", OutputFile: "o"}, `codex|exec|--json|-o|o|--sandbox|workspace-write|-c|model_reasoning_effort=xhigh|-C|/w|-`, true},
		{"gemini", full, `gemini|-p||-m|M|--output-format|json|--approval-mode|auto_edit|--skip-trust`, true},
		{"gemini", bare, `gemini|-p||--output-format|json|--approval-mode|auto_edit|--skip-trust`, true},
		{"opencode", full, `opencode|run|do it|-m|M|--variant|high|--format|json|--dir|/w|--auto`, false},
		{"opencode", bare, `opencode|run|do it|--format|json|--dir|/w|--auto`, false},
		{"opencode", Invocation{Prompt: "p", Effort: "low", Worktree: "/w"}, `opencode|run|p|--variant|minimal|--format|json|--dir|/w|--auto`, false},
		{"opencode", Invocation{Prompt: "p", Effort: "medium", Worktree: "/w"}, `opencode|run|p|--format|json|--dir|/w|--auto`, false},
		{"opencode", Invocation{Prompt: "p", Effort: "xhigh", Worktree: "/w"}, `opencode|run|p|--variant|max|--format|json|--dir|/w|--auto`, false},
		{"mybot", full, `mybot|--model|M|--effort=high|--turns=30|--dir|/w`, true},
		{"mybot", bare, `mybot|--model|--turns=20|--dir|/w`, true},
		{"claude", Invocation{Effort: "bogus"}, `claude|-p|--output-format|json|--permission-mode|acceptEdits`, true},
		{"claude", Invocation{Resume: "s-1", MaxTurns: 20}, `claude|-p|--output-format|json|--permission-mode|acceptEdits|--resume|s-1|--max-turns|20`, true},
		{"codex", Invocation{Resume: "t-1", Worktree: "/w", OutputFile: "o"}, `codex|exec|--json|-o|o|--sandbox|workspace-write|-C|/w|resume|t-1|-`, true},
		{"opencode", Invocation{Prompt: "p", Resume: "ses_1", Worktree: "/w"}, `opencode|run|p|--session|ses_1|--format|json|--dir|/w|--auto`, false},
	} {
		h, ok := r.Lookup(tc.harness)
		if !ok {
			t.Fatalf("Lookup(%q) found nothing", tc.harness)
		}
		argv, err := h.Argv(tc.inv)
		if err != nil {
			t.Errorf("%s: Argv(%+v): %v", tc.harness, tc.inv, err)
			continue
		}
		if got := strings.Join(argv, "|"); got != tc.want {
			t.Errorf("%s: Argv(%+v)\n got %s\nwant %s", tc.harness, tc.inv, got, tc.want)
		}
		if h.PromptOnStdin() != tc.stdin {
			t.Errorf("%s: PromptOnStdin() = %v; want %v", tc.harness, h.PromptOnStdin(), tc.stdin)
		}
	}
}

func TestArgvCustomErrors(t *testing.T) {
	r := NewRegistry([]ir.CustomHarness{
		{Name: "broken", Command: []string{"bot", "{{.Model"}},
		{Name: "unknown-field", Command: []string{"bot", "{{.Prompt}}"}},
		{Name: "empty"},
	})
	for _, name := range []string{"broken", "unknown-field", "empty"} {
		h, _ := r.Lookup(name)
		if argv, err := h.Argv(Invocation{}); err == nil {
			t.Errorf("%s: Argv = %q; want an error", name, argv)
		}
	}
}

func TestEfforts(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		harness string
		takes   string
		mapped  string // effort → value for each of ir.Efforts, "-" when not taken
	}{
		{"claude", "low medium high xhigh max", "low medium high xhigh max"},
		{"codex", "low medium high xhigh max", "low medium high xhigh xhigh"},
		{"gemini", "", "- - - - -"},
		{"opencode", "low medium high xhigh max", "minimal  high max max"},
		{"mybot", "low medium high xhigh max", "low medium high xhigh max"},
	} {
		h, _ := r.Lookup(tc.harness)
		if got := strings.Join(h.Efforts(), " "); got != tc.takes {
			t.Errorf("%s: Efforts() = %q; want %q", tc.harness, got, tc.takes)
		}
		var mapped []string
		for _, e := range ir.Efforts {
			v, ok := h.Effort(e)
			if !ok {
				v = "-"
			}
			mapped = append(mapped, v)
		}
		if got := strings.Join(mapped, " "); got != tc.mapped {
			t.Errorf("%s: mapped efforts %q; want %q", tc.harness, got, tc.mapped)
		}
		if _, ok := h.Effort("minimal"); ok {
			t.Errorf("%s takes effort \"minimal\"", tc.harness)
		}
	}
}

func TestTiers(t *testing.T) {
	r := testRegistry()
	claude, _ := r.Lookup("claude")
	for tier, want := range map[string]string{"efficient": "haiku", "balanced": "sonnet", "strong": "opus", "strongest": "fable"} {
		if got, ok := claude.TierModel(tier); !ok || got != want {
			t.Errorf("claude.TierModel(%q) = %q, %v; want %q", tier, got, ok, want)
		}
	}
	for _, name := range []string{"codex", "gemini", "opencode", "mybot"} {
		h, _ := r.Lookup(name)
		for _, tier := range ir.Tiers {
			if m, ok := h.TierModel(tier); ok {
				t.Errorf("%s.TierModel(%q) = %q; want no built-in mapping", name, tier, m)
			}
		}
	}
}

func TestRegistry(t *testing.T) {
	r := testRegistry()
	if got, want := r.Names(), []string{"claude", "codex", "gemini", "mybot", "opencode"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q; want %q", got, want)
	}
	claude, _ := r.Lookup("claude")
	if !claude.Builtin {
		t.Error("a custom [harnesses.claude] replaced the built-in claude")
	}
	if mybot, _ := r.Lookup("mybot"); mybot.Builtin {
		t.Error("mybot is marked built in")
	}
	if _, ok := r.Lookup("nope"); ok {
		t.Error("Lookup(\"nope\") found a harness")
	}
	if got := NewRegistry(nil).Names(); len(got) != 4 {
		t.Errorf("NewRegistry(nil).Names() = %q; want the four built-ins", got)
	}
}
