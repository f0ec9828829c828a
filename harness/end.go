package harness

// SessionEnd is how a session ended beyond its final message, read from its
// CLI's output: the CLI's id of the session (what Invocation.Resume
// continues), whether it stopped at its turn cap, and whether the agent
// worked at all. A session that failed without working never reached the
// model: the CLI could not start one (no credentials, a model it refused).
type SessionEnd struct {
	ID       string
	MaxTurns bool
	Worked   bool
}

// SessionEnd reads how a session ended from its output (see the type), as
// h's adapter reads it: claude.go, codex.go, gemini.go, opencode.go and
// custom.go say how for each CLI.
func (h *Harness) SessionEnd(o Output) SessionEnd { return h.adapter.SessionEnd(o) }
