package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
)

// The answers below are what the real CLIs printed (claude 2.1.332, codex
// 0.171.0, opencode 1.18.33), offline, logged in and not.
const (
	claudeOut = `case "$1 $2" in
"--version ") echo "2.1.332 (Claude Code)" ;;
"auth status")
  if [ -n "$ANTHROPIC_API_KEY" ]; then
    printf '{\n  "loggedIn": true,\n  "authMethod": "api_key",\n  "apiProvider": "firstParty",\n  "apiKeySource": "ANTHROPIC_API_KEY"\n}\n'
  else
    printf '{\n  "loggedIn": false,\n  "authMethod": "none",\n  "apiProvider": "firstParty"\n}\n'; exit 1
  fi ;;
*) exit 2 ;;
esac`
	codexOut = `case "$1 $2" in
"--version ") echo "codex-cli 0.171.0" ;;
"login status")
  echo 'WARNING: proceeding, even though we could not create PATH aliases' >&2
  if [ -f "$HOME/.codex/auth.json" ]; then echo "Logged in using an API key - sk-tes***" >&2; else echo "Not logged in" >&2; exit 1; fi ;;
*) exit 2 ;;
esac`
	opencodeOut = `case "$1 $2" in
"--version ") echo "1.18.33" ;;
"auth list")
  printf '\342\224\214  Credentials \033[90m~/.local/share/opencode/auth.json\n\342\224\202\n\342\224\224  0 credentials\n\n'
  if [ -n "$ANTHROPIC_API_KEY" ]; then
    printf '\342\224\214  Environment\n\342\224\202\n\342\227\217  Anthropic \033[90mANTHROPIC_API_KEY\n\342\224\202\n\342\224\224  1 environment variable\n\n'
  fi
  printf '\033[0m\n' ;;
*) exit 2 ;;
esac`
)

func TestLogin(t *testing.T) {
	t.Parallel()
	_, env := fakePath(t, map[string]string{
		"claude":   claudeOut,
		"codex":    codexOut,
		"gemini":   `echo 0.61.0`,
		"opencode": opencodeOut,
		"mybot":    `echo 1.0`,
	})
	loggedInHome := t.TempDir()
	if err := os.MkdirAll(filepath.Join(loggedInHome, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(loggedInHome, ".codex", "auth.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	geminiHome := func(settings string, oauth bool) string {
		home := t.TempDir()
		dir := filepath.Join(home, ".gemini")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if settings != "" {
			if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if oauth {
			if err := os.WriteFile(filepath.Join(dir, "oauth_creds.json"), []byte(`{}`), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return home
	}
	yes, no := "true", "false"
	for _, tc := range []struct {
		name     string
		harness  string
		env      []string
		loggedIn string // "true", "false" or "" (unknown)
		login    string
	}{
		{"claude with a key", "claude", []string{"ANTHROPIC_API_KEY=sk-test"}, yes, "ANTHROPIC_API_KEY"},
		{"claude without", "claude", nil, no, "claude auth status: not logged in"},
		{"codex without", "codex", nil, no, "codex login status: not logged in"},
		{"codex logged in", "codex", []string{"HOME=" + loggedInHome}, yes, "codex login status"},
		{"codex with CODEX_API_KEY", "codex", []string{"CODEX_API_KEY=sk-x"}, yes, "CODEX_API_KEY"},
		{"gemini without", "gemini", nil, no, "no GEMINI_API_KEY and no auth type in gemini's settings.json"},
		{"gemini with a key", "gemini", []string{"GEMINI_API_KEY=k"}, yes, "GEMINI_API_KEY"},
		{"gemini vertex express", "gemini", []string{"GOOGLE_GENAI_USE_VERTEXAI=true", "GOOGLE_API_KEY=k"}, yes, "GOOGLE_GENAI_USE_VERTEXAI with GOOGLE_API_KEY"},
		{"gemini vertex without", "gemini", []string{"GOOGLE_GENAI_USE_VERTEXAI=true"}, no, "GOOGLE_GENAI_USE_VERTEXAI without GOOGLE_API_KEY or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION"},
		{"gemini google login", "gemini", []string{"HOME=" + geminiHome("{\n  // chosen at first start\n  \"security\": {\"auth\": {\"selectedType\": \"oauth-personal\"}}\n}", true)}, yes, "settings.json selects Google login with " + filepath.Join("HOME", ".gemini", "oauth_creds.json")},
		{"gemini google login lost", "gemini", []string{"HOME=" + geminiHome(`{"selectedAuthType": "oauth-personal"}`, false)}, no, "settings.json selects Google login but no Google login: run gemini once and log in"},
		{"gemini keychain", "gemini", []string{"HOME=" + geminiHome(`{"security": {"auth": {"selectedType": "gemini-api-key"}}}`, false)}, "", "settings.json selects an API key, and GEMINI_API_KEY is not set"},
		{"opencode without", "opencode", nil, no, "opencode auth list: no credentials and no provider key variable"},
		{"opencode with a key", "opencode", []string{"ANTHROPIC_API_KEY=sk-x"}, yes, "opencode auth list: Anthropic ANTHROPIC_API_KEY"},
		{"custom harness", "mybot", nil, "", ""},
	} {
		h, ok := NewRegistry([]ir.CustomHarness{{Name: "mybot", Command: []string{"mybot"}, Preflight: []string{"mybot", "--version"}}}).Lookup(tc.harness)
		if !ok {
			t.Fatalf("%s: no harness %q", tc.name, tc.harness)
		}
		st := h.Preflight(context.Background(), PreflightOptions{Env: append(append([]string{}, env...), tc.env...)})
		if !st.OK {
			t.Errorf("%s: Preflight() = %+v; want ok", tc.name, st)
			continue
		}
		got := ""
		if st.LoggedIn != nil {
			got = map[bool]string{true: yes, false: no}[*st.LoggedIn]
		}
		login := st.Login
		for _, e := range tc.env {
			if v, ok := strings.CutPrefix(e, "HOME="); ok {
				login = strings.ReplaceAll(login, v, "HOME")
			}
		}
		if got != tc.loggedIn || login != tc.login {
			t.Errorf("%s: logged_in %q, login %q; want %q, %q", tc.name, got, st.Login, tc.loggedIn, tc.login)
		}
	}
}
