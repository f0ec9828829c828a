package harness

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// login is a harness's answer to "can your CLI authenticate?": its own
// cheap status command, or the variables and settings it reads. It is asked
// only of a CLI that starts; bin is the CLI's path.
type login func(ctx context.Context, bin string, env environ) Login

// Login is what a login probe found: whether the CLI can authenticate (nil:
// unknown) and how it knows, in words for the plan.
type Login struct {
	LoggedIn *bool
	How      string
}

func loggedIn(how string) Login  { t := true; return Login{LoggedIn: &t, How: how} }
func loggedOut(how string) Login { f := false; return Login{LoggedIn: &f, How: how} }
func loginUnknown(how string) Login {
	return Login{How: how}
}

// environ is an explicit environment, as a list of KEY=VALUE.
type environ []string

// get is the value of key, empty when unset.
func (e environ) get(key string) string {
	for i := len(e) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// probe runs bin with args in env and returns its stdout and stderr, and
// its exit code (-1 when it did not exit on its own).
func probe(ctx context.Context, bin string, env environ, args ...string) (stdout, stderr string, code int) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	code = 0
	if err != nil {
		code = -1
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.Exited() {
			code = exit.ExitCode()
		}
	}
	return out.String(), errb.String(), code
}

// claudeLogin asks `claude auth status`, whose JSON says loggedIn (exit 1
// when not): an API key in ANTHROPIC_API_KEY counts, as does a /login.
func claudeLogin(ctx context.Context, bin string, env environ) Login {
	stdout, stderr, code := probe(ctx, bin, env, "auth", "status")
	var st struct {
		LoggedIn     *bool  `json:"loggedIn"`
		AuthMethod   string `json:"authMethod"`
		APIKeySource string `json:"apiKeySource"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil || st.LoggedIn == nil {
		return loginUnknown(probeFailed("claude auth status", code, stdout, stderr))
	}
	if !*st.LoggedIn {
		return loggedOut("claude auth status: not logged in")
	}
	how := "claude auth status"
	switch {
	case st.APIKeySource != "":
		how = st.APIKeySource
	case st.AuthMethod != "":
		how = "claude auth status: " + st.AuthMethod
	}
	return loggedIn(how)
}

// codexLogin takes CODEX_API_KEY, which codex exec reads, else asks `codex
// login status` (exit 0 when logged in, 1 and "Not logged in" when not).
func codexLogin(ctx context.Context, bin string, env environ) Login {
	if env.get("CODEX_API_KEY") != "" {
		return loggedIn("CODEX_API_KEY")
	}
	stdout, stderr, code := probe(ctx, bin, env, "login", "status")
	switch code {
	case 0:
		return loggedIn("codex login status")
	case 1:
		return loggedOut("codex login status: " + firstWordsLine(stderr+"\n"+stdout, "not logged in"))
	}
	return loginUnknown(probeFailed("codex login status", code, stdout, stderr))
}

// firstWordsLine is the last line of s that is not a warning, or def.
func firstWordsLine(s, def string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "WARNING") {
			return strings.ToLower(l)
		}
	}
	return def
}

// geminiLogin reads what Gemini CLI itself reads to choose how it
// authenticates (it has no status command): GEMINI_API_KEY, Vertex AI's
// variables, Google login (GOOGLE_GENAI_USE_GCA), Compute ADC, then the
// auth type its settings.json selected, with the credentials that type
// needs. Without any of them it refuses every session.
func geminiLogin(_ context.Context, _ string, env environ) Login {
	vertex := func(how string) Login {
		switch {
		case env.get("GOOGLE_API_KEY") != "":
			return loggedIn(how + " with GOOGLE_API_KEY")
		case env.get("GOOGLE_CLOUD_PROJECT") != "" && env.get("GOOGLE_CLOUD_LOCATION") != "":
			return loggedIn(how + " with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")
		}
		return loggedOut(how + " without GOOGLE_API_KEY or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")
	}
	dir := geminiDir(env)
	google := func(how string) Login {
		if env.get("GOOGLE_CLOUD_ACCESS_TOKEN") != "" {
			return loggedIn(how + " with GOOGLE_CLOUD_ACCESS_TOKEN")
		}
		if dir != "" {
			if _, err := os.Stat(filepath.Join(dir, "oauth_creds.json")); err == nil {
				return loggedIn(how + " with " + filepath.Join(dir, "oauth_creds.json"))
			}
		}
		return loggedOut(how + " but no Google login: run gemini once and log in")
	}
	switch {
	case env.get("GOOGLE_GENAI_USE_GCA") == "true":
		return google("GOOGLE_GENAI_USE_GCA")
	case env.get("GOOGLE_GENAI_USE_VERTEXAI") == "true":
		return vertex("GOOGLE_GENAI_USE_VERTEXAI")
	case env.get("GEMINI_API_KEY") != "":
		return loggedIn("GEMINI_API_KEY")
	case env.get("CLOUD_SHELL") == "true" || env.get("GEMINI_CLI_USE_COMPUTE_ADC") == "true":
		return loggedIn("compute default credentials")
	}
	selected, err := geminiSelectedAuth(dir)
	if err != nil {
		return loginUnknown("gemini settings: " + err.Error())
	}
	switch selected {
	case "":
		return loggedOut("no GEMINI_API_KEY and no auth type in gemini's settings.json")
	case "oauth-personal":
		return google("settings.json selects Google login")
	case "gemini-api-key":
		// The key may be in the system keychain, which only the CLI reads.
		return loginUnknown("settings.json selects an API key, and GEMINI_API_KEY is not set")
	case "vertex-ai":
		return vertex("settings.json selects Vertex AI")
	case "compute-default-credentials":
		return loggedIn("settings.json selects compute default credentials")
	}
	return loginUnknown("settings.json selects auth type " + selected)
}

// geminiDir is Gemini CLI's settings folder: $GEMINI_CLI_HOME/.gemini,
// else ~/.gemini; empty when there is no home.
func geminiDir(env environ) string {
	home := env.get("GEMINI_CLI_HOME")
	if home == "" {
		home = env.get("HOME")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".gemini")
}

// jsonComment matches the // and /* */ comments settings.json may hold,
// outside strings.
var jsonComment = regexp.MustCompile(`("(?:[^"\\]|\\.)*")|//[^\n]*|/\*(?s:.*?)\*/`)

// geminiSelectedAuth is the auth type dir/settings.json selects
// (security.auth.selectedType, or the older selectedAuthType); empty when
// there is no file or it selects none.
func geminiSelectedAuth(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "settings.json"))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	b = jsonComment.ReplaceAllFunc(b, func(m []byte) []byte {
		if m[0] == '"' {
			return m
		}
		return nil
	})
	var s struct {
		Security struct {
			Auth struct {
				SelectedType string `json:"selectedType"`
			} `json:"auth"`
		} `json:"security"`
		SelectedAuthType string `json:"selectedAuthType"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return "", errors.New("settings.json is not JSON")
	}
	if t := s.Security.Auth.SelectedType; t != "" {
		return t, nil
	}
	return s.SelectedAuthType, nil
}

// ansi matches the colour codes opencode writes even to a pipe.
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// opencodeLogin asks `opencode auth list`, which lists the stored
// credentials and the providers' key variables set in the environment,
// one "●" line each: none means no provider can authenticate.
func opencodeLogin(ctx context.Context, bin string, env environ) Login {
	stdout, stderr, code := probe(ctx, bin, env, "auth", "list")
	if code != 0 {
		return loginUnknown(probeFailed("opencode auth list", code, stdout, stderr))
	}
	var found []string
	for line := range strings.Lines(ansi.ReplaceAllString(stdout, "")) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "●"); ok {
			found = append(found, strings.Join(strings.Fields(rest), " "))
		}
	}
	if len(found) == 0 {
		return loggedOut("opencode auth list: no credentials and no provider key variable")
	}
	return loggedIn("opencode auth list: " + strings.Join(found, ", "))
}

// probeFailed words a status command whose answer could not be read.
func probeFailed(shown string, code int, stdout, stderr string) string {
	why := lastLine(stderr)
	if why == "" {
		why = lastLine(stdout)
	}
	if code < 0 {
		return shown + " did not answer" + suffix(why)
	}
	return shown + " gave no answer cairn reads" + suffix(why)
}

func suffix(why string) string {
	if why == "" {
		return ""
	}
	return ": " + why
}
