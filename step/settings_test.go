package step

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/harness"
)

var geminiSettings = &harness.Settings{Var: "GEMINI_CLI_HOME", Dir: ".gemini", File: "settings.json", Set: `{"general":{"maxAttempts":3},"model":{"maxSessionTurns":5}}`,
	Links: []string{".agents", ".absent"}, Keep: []string{"tmp", "history"}}

// TestWriteSettings: the session's folder links the user's entries, its
// settings are the user's (comments and all) with cairn's merged over them,
// and the user's own files are left as they were.
func TestWriteSettings(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	user := filepath.Join(home, ".gemini")
	const settings = `{
  // the user's own
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "model": {"name": "gemini-2.5-pro", "maxSessionTurns": 100,},
}`
	for name, text := range map[string]string{"../.agents/skills/x/SKILL.md": "x", "settings.json": settings, "oauth_creds.json": `{"token":"t"}`, "tmp/chats/s.json": "{}"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(user, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(user, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	v, err := writeSettings(dir, []string{"HOME=" + home}, geminiSettings)
	if err != nil {
		t.Fatal(err)
	}
	if want := "GEMINI_CLI_HOME=" + filepath.Join(dir, "home"); v != want {
		t.Errorf("variable %q; want %q", v, want)
	}
	into := filepath.Join(dir, "home", ".gemini")
	for _, name := range []string{"oauth_creds.json", "tmp", "history"} {
		if to, err := os.Readlink(filepath.Join(into, name)); err != nil || to != filepath.Join(user, name) {
			t.Errorf("%s links to %q (%v); want %q", name, to, err, filepath.Join(user, name))
		}
	}
	if fi, err := os.Stat(filepath.Join(user, "history")); err != nil || !fi.IsDir() {
		t.Errorf("the user's history folder was not made: %v", err)
	}
	if to, err := os.Readlink(filepath.Join(dir, "home", ".agents")); err != nil || to != filepath.Join(home, ".agents") {
		t.Errorf(".agents links to %q (%v)", to, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "home", ".absent")); err == nil {
		t.Errorf("a link to the user's missing .absent was made")
	}
	b, err := os.ReadFile(filepath.Join(into, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("settings %s: %v", b, err)
	}
	want := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"model":    map[string]any{"name": "gemini-2.5-pro", "maxSessionTurns": 5.0},
		"general":  map[string]any{"maxAttempts": 3.0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("settings %v; want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(user, "settings.json")); string(b) != settings {
		t.Errorf("the user's settings changed:\n%s", b)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(user, "tmp", "chats", "s.json")); err != nil {
		t.Errorf("removing the session's folder reached the user's: %v", err)
	}
}

// TestWriteSettingsFrom: the CLI's own variable names the user's folder
// before HOME; with none there, the settings are cairn's alone; settings
// that are not a JSON object are an error naming the file.
func TestWriteSettingsFrom(t *testing.T) {
	t.Parallel()
	home, other := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(other, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, ".gemini", "settings.json"), []byte(`{"ui":{"theme":"x"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := writeSettings(dir, []string{"HOME=" + home, "GEMINI_CLI_HOME=" + other}, geminiSettings); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "home", ".gemini", "settings.json")); !strings.Contains(string(b), `"theme": "x"`) {
		t.Errorf("settings from GEMINI_CLI_HOME missing:\n%s", b)
	}

	dir = t.TempDir()
	if _, err := writeSettings(dir, []string{"HOME=" + home}, geminiSettings); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "home", ".gemini", "settings.json"))
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil || len(got) != 2 {
		t.Errorf("settings with no user's %s (%v); want cairn's two keys", b, err)
	}

	if err := os.WriteFile(filepath.Join(other, ".gemini", "settings.json"), []byte(`["not", "an", "object"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := writeSettings(t.TempDir(), []string{"GEMINI_CLI_HOME=" + other}, geminiSettings)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(other, ".gemini", "settings.json")) {
		t.Errorf("error %v; want one naming the user's settings", err)
	}
}
