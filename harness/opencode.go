package harness

import (
	"context"
	_ "embed"
	"regexp"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/ir"
)

// opencode is opencode: `opencode run --format json`, the prompt on stdin,
// which it reads when it is not a terminal and no message is given: a
// message in its argv reaches the model with each word that holds a space
// in "…" and each " in it as \".
type opencode struct{}

func (opencode) Spec() Spec {
	return Spec{
		Name: "opencode",
		// medium is opencode's default variant: no --variant is passed.
		Efforts: map[string]string{"low": "minimal", "medium": "", "high": "high", "xhigh": "max", "max": "max"},
		// opencode names a model PROVIDER/MODEL: Anthropic's, as
		// opencode 1.18.33's catalogue names them; [models.opencode]
		// maps the tiers onto another provider's.
		Tiers: map[string]string{
			"efficient": "anthropic/claude-haiku-4-5",
			"balanced":  "anthropic/claude-sonnet-5",
			"strong":    "anthropic/claude-opus-5",
			"strongest": "anthropic/claude-fable-5",
		},
		Resume:    true,
		Cost:      true,
		TurnEvent: &opencodeTurn,
		Version:   []string{"opencode", "--version"},
	}
}

// opencodePermission is opencode's permission config (OPENCODE_PERMISSION,
// which replaces the config files' permission) for each access level.
// read: no edits and no commands. write: edits and every command, but none
// that names a path outside the worktree; "deny" refuses the one call and
// the session goes on, where "ask" would end it (opencode run rejects what
// asks). A rule on the paths it can read in a command, not a sandbox. full:
// everything, with --auto.
//
// read runs no command at all, not even git log: opencode matches its bash
// patterns against each simple command's text alone (with its own
// redirections), so "(ls) > FILE" and "{ git log; } > FILE" pass as "ls"
// and "git log", and no pattern can see the redirection that writes FILE.
// Its read, grep and glob tools still read the worktree.
var opencodePermission = map[string]string{
	ir.AccessRead:  `{"edit":"deny","bash":"deny","external_directory":"deny"}`,
	ir.AccessWrite: `{"edit":"allow","bash":"allow","external_directory":"deny"}`,
	ir.AccessFull:  `{"*":"allow"}`,
}

// Command maps the access onto opencode's permission config, in its
// environment, and --auto for full.
//
// opencode's retries cannot be capped: it retries a 429 or 500 five times,
// 2 s to 30 s apart, for about 75 s, printing nothing meanwhile; the step's
// timeout bounds it.
func (opencode) Command(inv Invocation, effort string) (Command, error) {
	a := []string{"opencode", "run"}
	if inv.Resume != "" {
		a = append(a, "--session", inv.Resume)
	}
	if inv.Model != "" {
		a = append(a, "-m", inv.Model)
	}
	if effort != "" {
		a = append(a, "--variant", effort)
	}
	a = append(a, "--format", "json", "--dir", inv.Worktree)
	if inv.Access == ir.AccessFull {
		a = append(a, "--auto")
	}
	return Command{Argv: a, Env: []string{"OPENCODE_PERMISSION=" + opencodePermission[inv.Access]}}, nil
}

// opencodeTurn is a turn of opencode run: a step, one model request
// (opencode_turn, jq/opencode.jq).
var opencodeTurn = TurnEvent{
	What: "a step, one model request (a step_start event)",
	JQ:   "opencode_turn",
}

// JQ reads opencode's events with jq/opencode.jq.
func (opencode) JQ() JQ {
	return JQ{Defs: opencodeJQ, Final: "opencode", End: "end_opencode"}
}

// opencodeJQ is jq/opencode.jq, the jq of JQ's Defs.
//
//go:embed jq/opencode.jq
var opencodeJQ string

// ansi matches the colour codes opencode writes even to a pipe.
var ansi = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9;]*m`) })

// Login asks `opencode auth list`, which lists the stored credentials and
// the providers' key variables set in the environment, one "●" line each:
// none means no provider can authenticate.
func (opencode) Login(ctx context.Context, bin string, env []string) (Login, bool) {
	stdout, stderr, code := probe(ctx, bin, env, "auth", "list")
	if code != 0 {
		return loginUnknown(probeFailed("opencode auth list", code, stdout, stderr)), true
	}
	var found []string
	for line := range strings.Lines(ansi().ReplaceAllString(stdout, "")) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "●"); ok {
			found = append(found, strings.Join(strings.Fields(rest), " "))
		}
	}
	if len(found) == 0 {
		return loggedOut("opencode auth list: no credentials and no provider key variable"), true
	}
	return loggedIn("opencode auth list: " + strings.Join(found, ", ")), true
}
