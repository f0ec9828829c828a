package modeldouble

import (
	"net/http"
	"time"
)

// Turn is one scripted answer to an agent's turn: a text reply, a tool
// call, or an HTTP error, possibly slow, possibly repeated forever.
type Turn struct {
	kind    turnKind
	text    string // the reply, or the error's message
	command string
	path    string
	content string
	status  int
	// retryAfter is how long a 429 tells the CLI to wait before it asks
	// again, in the vendor's way (Status sets a default).
	retryAfter time.Duration
	delay      time.Duration
	forever    bool
	// unsandboxed asks the CLI to run a shell turn's command outside
	// its sandbox.
	unsandboxed bool
}

type turnKind int

const (
	textTurn turnKind = iota
	shellTurn
	writeTurn
	statusTurn
	structuredTurn
)

// Text answers with a final text message, which ends the agent's turn.
func Text(message string) Turn { return Turn{kind: textTurn, text: message} }

// Structured answers with value, JSON, as the structured output the CLI
// asked for: a call of the tool the CLI offers for it (claude's
// StructuredOutput) with value as its input, or, where the API's
// structured output is the reply's text (a Responses request whose
// text.format is a json_schema), a text reply holding value.
func Structured(value string) Turn { return Turn{kind: structuredTurn, text: value} }

// Shell answers with a call of the CLI's shell tool (claude's Bash, codex's
// shell or exec_command, gemini's run_shell_command, opencode's bash)
// running command in the agent's working directory.
func Shell(command string) Turn { return Turn{kind: shellTurn, command: command} }

// Unsandboxed answers with a call of the CLI's shell tool, as Shell does,
// that also asks the CLI to run command outside its sandbox: claude's Bash
// with dangerouslyDisableSandbox, codex's exec_command with
// sandbox_permissions "require_escalated". The other CLIs' shell tools
// have no such parameter and get the plain call.
func Unsandboxed(command string) Turn {
	return Turn{kind: shellTurn, command: command, unsandboxed: true}
}

// WriteFile answers with a call of the CLI's file-writing tool (claude's
// Write, gemini's write_file, opencode's write, codex's apply_patch) that
// creates path with content. A relative path is joined to the working
// directory the CLI names in its request, for the tools that want an
// absolute one.
func WriteFile(path, content string) Turn {
	return Turn{kind: writeTurn, path: path, content: content}
}

// Status answers with the HTTP status code and an error body in the
// vendor's shape carrying message: 429 a rate limit, 500 a server error.
// The CLIs retry these; wrap it in Forever to refuse every retry. A 429
// says when to ask again as the vendor's API does (see RetryAfter), after
// DefaultRetryAfter unless RetryAfter sets another wait.
func Status(code int, message string) Turn {
	if message == "" {
		message = http.StatusText(code)
	}
	t := Turn{kind: statusTurn, status: code, text: message}
	if code == http.StatusTooManyRequests {
		t.retryAfter = DefaultRetryAfter
	}
	return t
}

// DefaultRetryAfter is the wait a 429 of Status asks for.
const DefaultRetryAfter = time.Second

// RetryAfter makes the 429 of t ask the CLI to wait d before it retries,
// in each vendor's way: Anthropic's and OpenAI's APIs send a retry-after
// header (whole seconds), OpenAI's message adds "Please try again in Ns.",
// and Google's error carries a google.rpc.RetryInfo detail with its
// retryDelay ("30s") and says "Please retry in Ns." in its message.
func RetryAfter(d time.Duration, t Turn) Turn {
	t.retryAfter = d
	return t
}

// Forever answers this turn and every later one with t: endless tool calls,
// or an error no retry gets past. The script's later turns are never
// reached.
func Forever(t Turn) Turn {
	t.forever = true
	return t
}

// Slow holds the answer back for d, or until the CLI gives up on the
// request: a streamed answer gets its headers at once and its first event
// after d; any other answer gets nothing before d.
func Slow(d time.Duration, t Turn) Turn {
	t.delay = d
	return t
}
