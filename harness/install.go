package harness

import "strings"

// Install is how a machine that has no agent CLI gets a built-in harness's:
// its npm package, at the version cairn's argv was verified against
// (.ci/agents.sh installs the same), never the one some machine happens to
// have.
type Install struct {
	Package, Version string
}

// installs are the built-in harnesses' packages.
var installs = map[string]Install{
	"claude":   {Package: "@anthropic-ai/claude-code", Version: "2.1.332"},
	"codex":    {Package: "@openai/codex", Version: "0.171.0"},
	"gemini":   {Package: "@google/gemini-cli", Version: "0.61.0"},
	"opencode": {Package: "opencode-ai", Version: "1.18.33"},
}

// Install returns the package that installs h's CLI; false for a custom
// harness, which cairn cannot install.
func (h *Harness) Install() (Install, bool) {
	if !h.Builtin {
		return Install{}, false
	}
	in, ok := installs[h.Name]
	return in, ok
}

// Key is an API key a session's CLI reads: the environment variable Env,
// filled from the secret named Secret, by the name its provider documents.
type Key struct {
	Env, Secret string
}

// opencodeKeys are the keys opencode reads for a model, by the provider its
// model names ("anthropic/claude-sonnet-4-5").
var opencodeKeys = map[string]Key{
	"anthropic":  {Env: "ANTHROPIC_API_KEY", Secret: "ANTHROPIC_API_KEY"},
	"openai":     {Env: "OPENAI_API_KEY", Secret: "OPENAI_API_KEY"},
	"google":     {Env: "GOOGLE_GENERATIVE_AI_API_KEY", Secret: "GEMINI_API_KEY"},
	"openrouter": {Env: "OPENROUTER_API_KEY", Secret: "OPENROUTER_API_KEY"},
}

// Keys returns the keys a session on h with model reads where no one has
// logged its CLI in (a CI runner), the one it prefers first: claude's
// ANTHROPIC_API_KEY, or the token of a Claude subscription that `claude
// setup-token` makes, CLAUDE_CODE_OAUTH_TOKEN (which claude reads when
// no API key is set); codex's CODEX_API_KEY (from the secret
// OPENAI_API_KEY), gemini's GEMINI_API_KEY, and for opencode the key of the
// model's provider. It is nil for a custom harness, and for an opencode
// model of a provider it does not know.
func (h *Harness) Keys(model string) []Key {
	if !h.Builtin {
		return nil
	}
	switch h.Name {
	case "claude":
		return []Key{{Env: "ANTHROPIC_API_KEY", Secret: "ANTHROPIC_API_KEY"}, {Env: "CLAUDE_CODE_OAUTH_TOKEN", Secret: "CLAUDE_CODE_OAUTH_TOKEN"}}
	case "codex":
		return []Key{{Env: "CODEX_API_KEY", Secret: "OPENAI_API_KEY"}}
	case "gemini":
		return []Key{{Env: "GEMINI_API_KEY", Secret: "GEMINI_API_KEY"}}
	case "opencode":
		provider, _, ok := strings.Cut(model, "/")
		if !ok {
			return nil
		}
		if k, ok := opencodeKeys[provider]; ok {
			return []Key{k}
		}
	}
	return nil
}
