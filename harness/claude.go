package harness

import (
	"context"
	_ "embed"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// claude is Claude Code: `claude -p --output-format json`.
type claude struct{}

func (claude) Spec() Spec {
	return Spec{
		Name:    "claude",
		Efforts: allEfforts(),
		Tiers: map[string]string{
			"efficient": "haiku",
			"balanced":  "sonnet",
			"strong":    "opus",
			"strongest": "fable",
		},
		// claude -p refuses more than 10 MiB on stdin ("piped stdin
		// input exceeds 10MB"), counted in UTF-16 code units: never more
		// than the bytes.
		MaxPrompt:    10 << 20,
		OutputSchema: true,
		Resume:       true,
		Turns:        true,
		Cost:         true,
		// Without bubblewrap and socat, Claude Code warns "Sandbox
		// disabled" and runs the commands unconfined.
		Sandboxes: map[string]Sandbox{
			ir.AccessWrite: {Name: "claude's sandbox", Needs: []string{"bwrap", "socat"}, Repository: true},
		},
		Version: []string{"claude", "--version"},
	}
}

// claudeSandbox turns on Claude Code's sandbox for Bash: bubblewrap
// confines the commands' writes to the working directory (and cuts their
// network), and autoAllowBashIfSandboxed runs them without asking.
const claudeSandbox = `{"sandbox":{"enabled":true,"autoAllowBashIfSandboxed":true}}`

// claudeSettings is claudeSandbox keeping repo from the session. In a
// linked worktree Claude Code's sandbox lets the commands write the whole
// of the repository's git directory, so that git can commit there, and
// keeps only its config and hooks: a session could create and move
// branches, delete tags and plant the main worktree's state. denyWrite
// keeps every path of repo's Kept (a deny wins over Claude Code's own
// grant; a missing path is held by an empty device node while a command
// runs).
func claudeSettings(repo *Repository) (string, error) {
	if repo == nil {
		return claudeSandbox, nil
	}
	type filesystem struct {
		DenyWrite []string `json:"denyWrite"`
	}
	type sandbox struct {
		Enabled                  bool       `json:"enabled"`
		AutoAllowBashIfSandboxed bool       `json:"autoAllowBashIfSandboxed"`
		Filesystem               filesystem `json:"filesystem"`
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Sandbox sandbox `json:"sandbox"`
	}{sandbox{Enabled: true, AutoAllowBashIfSandboxed: true, Filesystem: filesystem{DenyWrite: repo.Kept()}}})
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// claudeRetries cap how long Claude Code retries a failed model request.
// It honours a 429's retry-after (up to 60 s, each retry; a longer one
// fails at once), so with CLAUDE_CODE_MAX_RETRIES alone a realistic 429
// (retry-after: 30) kept a session 2.5 minutes. Its retry watchdog, scoped
// to capacity errors (429, 529), caps the time it waits on them altogether:
// 30 s, one retry of such a 429, after which it fails (a session that met
// it every time: 33 s, measured with Claude Code 2.1.332 through cairn
// run). Other errors (a 500) keep the 4 retries, about 13 s.
var claudeRetries = []string{
	"CLAUDE_CODE_MAX_RETRIES=4",
	"CLAUDE_CODE_RETRY_WATCHDOG=1",
	"CLAUDE_CODE_RETRY_WATCHDOG_SCOPE=capacity",
	"CLAUDE_CODE_RETRY_WATCHDOG_MAX_WAIT_MS=30000",
}

// Command maps the access onto Claude Code's permissions. read: dontAsk
// denies every tool use not pre-approved (read-only commands such as git
// log still run). write: acceptEdits and every Bash command, in its
// sandbox where bubblewrap and socat are installed (acceptEdits alone asks
// for, and so refuses, go version); with the worktree's repository known,
// the sandbox keeps it from the commands (claudeSettings). full:
// bypassPermissions, which Claude Code refuses as root unless IS_SANDBOX=1
// says the machine is disposable.
func (claude) Command(inv Invocation, effort string) (Command, error) {
	a := []string{"claude", "-p", "--output-format", "json"}
	env := slices.Clone(claudeRetries)
	switch inv.Access {
	case ir.AccessRead:
		a = append(a, "--permission-mode", "dontAsk")
	case ir.AccessWrite:
		// --allowedTools is variadic: the = form keeps it from taking
		// the next argument.
		settings, err := claudeSettings(inv.Repository)
		if err != nil {
			return Command{}, err
		}
		a = append(a, "--permission-mode", "acceptEdits", "--allowedTools=Bash", "--settings", settings)
	case ir.AccessFull:
		a = append(a, "--permission-mode", "bypassPermissions")
		env = append(env, "IS_SANDBOX=1")
	}
	if inv.Resume != "" {
		a = append(a, "--resume", inv.Resume)
	}
	if inv.Model != "" {
		a = append(a, "--model", inv.Model)
	}
	if effort != "" {
		a = append(a, "--effort", effort)
	}
	if inv.MaxTurns > 0 {
		a = append(a, "--max-turns", strconv.Itoa(inv.MaxTurns))
	}
	if inv.BudgetUSD > 0 {
		a = append(a, "--max-budget-usd", strconv.FormatFloat(inv.BudgetUSD, 'f', -1, 64))
	}
	if inv.OutputSchema != "" {
		// Print mode only: claude offers the model a StructuredOutput
		// tool of this schema, and its result is the tool's input.
		a = append(a, "--json-schema", inv.OutputSchema)
	}
	return Command{Argv: a, Env: env}, nil
}

// JQ reads claude's JSON result with jq/claude.jq.
func (claude) JQ() JQ {
	return JQ{Defs: claudeJQ, Final: "claude", End: "end_claude"}
}

// claudeJQ is jq/claude.jq, the jq of JQ's Defs.
//
//go:embed jq/claude.jq
var claudeJQ string

// Login asks `claude auth status`, whose JSON says loggedIn (exit 1 when
// not): an API key in ANTHROPIC_API_KEY counts, as does a /login.
func (claude) Login(ctx context.Context, bin string, env []string) (Login, bool) {
	stdout, stderr, code := probe(ctx, bin, env, "auth", "status")
	var st struct {
		LoggedIn     *bool  `json:"loggedIn"`
		AuthMethod   string `json:"authMethod"`
		APIKeySource string `json:"apiKeySource"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil || st.LoggedIn == nil {
		return loginUnknown(probeFailed("claude auth status", code, stdout, stderr)), true
	}
	if !*st.LoggedIn {
		return loggedOut("claude auth status: not logged in"), true
	}
	how := "claude auth status"
	switch {
	case st.APIKeySource != "":
		how = st.APIKeySource
	case st.AuthMethod != "":
		how = "claude auth status: " + st.AuthMethod
	}
	return loggedIn(how), true
}
