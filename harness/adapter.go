package harness

import (
	"context"

	"github.com/cairn-dev/cairn/ir"
)

// Adapter is one agent CLI as cairn drives it: how a session is started on
// it and how its output is read. Each built-in CLI is one file implementing
// it (claude.go, codex.go, gemini.go, opencode.go) with the jq its output is
// read with (jq/claude.jq, …), listed in builtins; a config's
// [harnesses.NAME] is a custom adapter (custom.go, jq/custom.jq).
type Adapter interface {
	// Spec is what cairn knows of the CLI without running it.
	Spec() Spec
	// Command is how a session of inv starts: its argv, the variables
	// set over the step's environment and the files the argv names;
	// effort is the CLI's own value for inv.Effort (empty: no flag), from
	// Spec's Efforts, and inv.Access is one of ir.Accesses.
	Command(inv Invocation, effort string) (Command, error)
	// Login asks whether the CLI, found at bin, can authenticate in env;
	// known is false when the adapter cannot tell.
	Login(ctx context.Context, bin string, env []string) (l Login, known bool)
	// JQ is how a session's output is read: its final message and how it
	// ended, in jq (jq/NAME.jq), for cairn run and compiled scripts alike.
	JQ() JQ
}

// Spec is what cairn knows of an agent CLI without running it.
type Spec struct {
	// Name is the harness's name in a process file.
	Name string
	// Efforts maps each effort the CLI takes to the value it is given; an
	// empty value means the effort is taken and no flag is passed.
	Efforts map[string]string
	// Tiers maps a model tier to the CLI's built-in model for it.
	Tiers map[string]string
	// MaxPrompt is the most bytes of prompt the CLI takes whole on its
	// standard input, where every CLI reads it (in its argv, a prompt
	// over Linux's 128 KiB limit on one argument could not start it);
	// 0 when it takes any. A session whose prompt is longer fails
	// before its CLI starts (PromptLimit).
	MaxPrompt int
	// Resume is true when Command continues an Invocation's Resume session.
	Resume bool
	// Turns is true when the CLI itself enforces the Invocation's
	// MaxTurns (Command passes it).
	Turns bool
	// TurnEvent, for a CLI with no turn cap of its own, is how cairn
	// counts a session's turns in the events the CLI prints as it works,
	// to stop the session past its MaxTurns; nil when cairn cannot.
	TurnEvent *TurnEvent
	// Sandboxes are the sandboxes that confine a session's commands to
	// its worktree, by access level; a level not listed has none.
	Sandboxes map[string]Sandbox
	// MessageFile is true when the CLI writes its final message to the
	// Invocation's OutputFile.
	MessageFile bool
	// OutputSchema is true when Command gives the CLI the Invocation's
	// OutputSchema, which its final message then matches.
	OutputSchema bool
	// Cost is true when the CLI reports what a session cost, in US
	// dollars, so that a budget can be kept: claude's total_cost_usd,
	// opencode's events, a custom harness's [harnesses.NAME.usage]
	// cost_usd. Codex and Gemini CLI report tokens only.
	Cost bool
	// Version is the argv whose exit 0 proves the CLI can start; just the
	// binary when it only has to be on PATH.
	Version []string
	// Err is why the harness cannot be used at all (a custom command that
	// does not parse); nil when it can.
	Err error
}

// Command is how a session starts on its CLI (Adapter.Command): the argv,
// the variables cairn sets over the step's environment (NAME=VALUE; the
// session still inherits the rest, docs/design.md §7.1), and the files the argv names,
// which cairn writes into the Invocation's FilesDir before the session
// starts and removes after it.
type Command struct {
	Argv  []string
	Env   []string
	Files []File
	// Settings, when not nil, are settings cairn lays over the user's
	// for this session alone (see Settings).
	Settings *Settings
}

// Settings are a CLI's settings for one session: the user's settings
// folder Dir (under the folder Var names in the step's environment, else
// under HOME) as the session sees it, made in FilesDir/home: a link to each
// of the user's entries but File, which is the user's File (JSON; comments
// and trailing commas allowed) with Set, a JSON object, merged over it as
// jq's `*` merges objects. Var names FilesDir/home to the CLI, which reads
// more than Dir there: each of Links, entries of the user's home beside Dir,
// is linked too. The user's own files stay as they are; what the CLI writes
// through a link (a login refreshed, a session kept for --resume) reaches
// them, and Keep are the folders of Dir it keeps such things in, made in the
// user's Dir first when missing, as the CLI would make them there: what it
// writes anywhere else in FilesDir/home goes with the session.
type Settings struct {
	Var, Dir, File, Set string
	Links, Keep         []string
}

// File is a file a session's CLI reads (a policy), named in FilesDir.
type File struct {
	Name, Text string
}

// TurnEvent is how cairn tells, in a CLI's JSON event stream, that a
// session starts another turn.
type TurnEvent struct {
	// What is what one turn is in the CLI's events, for the docs.
	What string
	// JQ is the jq function, among the adapter's JQ Defs, that yields true
	// for an event (an object) that starts a turn, false for the others.
	JQ string
}

// Sandbox is a sandbox a CLI confines a session's commands in.
type Sandbox struct {
	// Name says what it is, for the plan: "codex's workspace-write
	// sandbox".
	Name string
	// Needs are the programs it needs on PATH; without them the CLI runs
	// the session unconfined.
	Needs []string
	// Repository is true when it keeps the worktree's git repository
	// from the session through Invocation.Repository (without one, the
	// session may write what the CLI's own sandbox lets it).
	Repository bool
}

// builtins are the built-in adapters of docs/design.md §8, in the order the bash target
// defines their jq functions.
var builtins = []Adapter{claude{}, codex{}, gemini{}, opencode{}}

// allEfforts maps every effort to itself.
func allEfforts() map[string]string {
	m := make(map[string]string, len(ir.Efforts))
	for _, e := range ir.Efforts {
		m[e] = e
	}
	return m
}
