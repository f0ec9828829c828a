package harness

import (
	"context"
	_ "embed"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

// codex is Codex CLI: `codex exec --json`, its final message in the -o
// file.
type codex struct{}

func (codex) Spec() Spec {
	return Spec{
		Name:    "codex",
		Efforts: map[string]string{"low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "xhigh"},
		// The models codex 0.171.0 lists (its built-in catalogue): Terra
		// "efficient", Sol "fast, go-to", Astra "most capable".
		Tiers: map[string]string{
			"efficient": "gpt-6.1-terra",
			"balanced":  "gpt-6.2-sol",
			"strong":    "gpt-6.2-astra",
			"strongest": "gpt-6.2-astra",
		},
		// codex exec refuses more than 1,048,576 characters ("Input
		// exceeds the maximum length"): never more than the bytes.
		MaxPrompt:    1 << 20,
		Resume:       true,
		MessageFile:  true,
		OutputSchema: true,
		TurnEvent:    &codexTurn,
		Sandboxes: map[string]Sandbox{
			ir.AccessRead:  {Name: "codex's read-only sandbox"},
			ir.AccessWrite: {Name: "codex's workspace-write sandbox"},
		},
		Version: []string{"codex", "--version"},
	}
}

// codexSandbox is codex's sandbox mode for each access level.
var codexSandbox = map[string]string{
	ir.AccessRead:  "read-only",
	ir.AccessWrite: "workspace-write",
	ir.AccessFull:  "danger-full-access",
}

// Command maps the access onto codex's own sandbox, which confines the
// commands' writes to the worktree (and /tmp) in workspace-write and all of
// them in read-only; codex exec refuses what the sandbox does not allow
// without asking. allow_login_shell=false runs commands in a plain bash: a
// login shell's /etc/profile resets PATH, and go version is not found.
//
// Its retries are left as they are: -c can cap them only for a provider
// named in the user's own config, and the built-in ones give up on a 429
// or 500 within about 25 s.
func (codex) Command(inv Invocation, effort string) (Command, error) {
	a := []string{"codex", "exec", "--json", "-o", inv.OutputFile, "--sandbox", codexSandbox[inv.Access], "-c", "allow_login_shell=false"}
	if inv.Model != "" {
		a = append(a, "-m", inv.Model)
	}
	if effort != "" {
		a = append(a, "-c", "model_reasoning_effort="+effort)
	}
	a = append(a, "-C", inv.Worktree)
	var files []File
	if inv.OutputSchema != "" {
		// The Responses API is asked for a final message of this
		// schema (text.format json_schema, strict).
		if inv.FilesDir == "" {
			return Command{}, errors.New("harness \"codex\": no folder for its output schema")
		}
		f := File{Name: codexSchemaFile, Text: inv.OutputSchema}
		a = append(a, "--output-schema", filepath.Join(inv.FilesDir, f.Name))
		files = append(files, f)
	}
	if inv.Resume != "" {
		// The options above are exec's; resume takes the
		// session's id, then the prompt ("-": stdin).
		a = append(a, "resume", inv.Resume)
	}
	return Command{Argv: append(a, "-"), Files: files}, nil
}

// codexSchemaFile is the file, in a session's FilesDir, that holds the
// output schema codex exec is given.
const codexSchemaFile = "output-schema.json"

// codexTurn is a turn of codex exec: a tool call (codex_turn,
// jq/codex.jq).
var codexTurn = TurnEvent{
	What: "a tool call (an item.started event of a command, a patch, an MCP call or a web search)",
	JQ:   "codex_turn",
}

// JQ reads codex's events with jq/codex.jq, and its session file with
// end_codex_file when cairn stopped a turn that codex had not reported yet.
func (codex) JQ() JQ {
	return JQ{Defs: codexJQ, Final: "codex", End: "end_codex", File: "end_codex_file"}
}

// codexJQ is jq/codex.jq, the jq of JQ's Defs.
//
//go:embed jq/codex.jq
var codexJQ string

// codexThreadID is the shape of a thread's id, which names its session
// file.
var codexThreadID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z-]+$`) })

// sessionFile is the text of the session file of thread under CODEX_HOME
// (else ~/.codex) in env, $CODEX_HOME/sessions/…/rollout-…-THREAD.jsonl,
// where codex writes what a turn used as it goes (end_codex_file reads
// it); false when there is none.
func (codex) sessionFile(env []string, thread string) (string, bool) {
	home := environ(env).get("CODEX_HOME")
	if home == "" && environ(env).get("HOME") != "" {
		home = filepath.Join(environ(env).get("HOME"), ".codex")
	}
	if home == "" || !codexThreadID().MatchString(thread) {
		return "", false
	}
	// A thread resumed on another day may have a file of each day: the
	// newest is this run's.
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "rollout-*-"+thread+".jsonl"))
	newest, newestTime := "", time.Time{}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && !fi.ModTime().Before(newestTime) {
			newest, newestTime = f, fi.ModTime()
		}
	}
	if newest == "" {
		return "", false
	}
	b, err := os.ReadFile(newest)
	if err != nil {
		return "", false
	}
	return jqText(b), true
}

// Login takes CODEX_API_KEY, which codex exec reads, else asks `codex login
// status` (exit 0 when logged in, 1 and "Not logged in" when not).
func (codex) Login(ctx context.Context, bin string, env []string) (Login, bool) {
	if environ(env).get("CODEX_API_KEY") != "" {
		return loggedIn("CODEX_API_KEY"), true
	}
	stdout, stderr, code := probe(ctx, bin, env, "login", "status")
	switch code {
	case 0:
		return loggedIn("codex login status"), true
	case 1:
		return loggedOut("codex login status: " + firstWordsLine(stderr+"\n"+stdout, "not logged in")), true
	}
	return loginUnknown(probeFailed("codex login status", code, stdout, stderr)), true
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
