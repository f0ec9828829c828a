package harness

import (
	"bytes"
	"encoding/json"
	"strings"
)

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

// SessionEnd reads how a session ended from its output (see the type):
//
//   - claude: .session_id; the subtype error_max_turns; it worked unless it
//     failed with a "success" subtype (an API or login error before any turn);
//   - codex: thread.started's thread_id; it worked when an item completed;
//   - gemini: .session_id; it worked when it gave a response;
//   - opencode: the events' sessionID; it worked when a text, tool or step
//     finished;
//   - a custom harness: no id; it worked when it printed something.
func (h *Harness) SessionEnd(o Output) SessionEnd {
	if !h.Builtin {
		return SessionEnd{Worked: len(bytes.TrimSpace(o.Stdout)) > 0}
	}
	switch h.Name {
	case "claude":
		return endClaude(o)
	case "codex":
		return endCodex(o)
	case "gemini":
		return endGemini(o)
	case "opencode":
		return endOpencode(o)
	}
	return SessionEnd{Worked: len(bytes.TrimSpace(o.Stdout)) > 0}
}

func endClaude(o Output) SessionEnd {
	var r struct {
		claudeResult
		SessionID string `json:"session_id"`
	}
	if !jsonObject(o.Stdout, &r) || r.Type != "result" {
		return SessionEnd{}
	}
	return SessionEnd{
		ID:       r.SessionID,
		MaxTurns: r.Subtype == "error_max_turns",
		Worked:   (!r.IsError && o.ExitCode == 0) || strings.HasPrefix(r.Subtype, "error"),
	}
}

func endCodex(o Output) SessionEnd {
	var end SessionEnd
	for line := range strings.Lines(string(o.Stdout)) {
		var e struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		if !strings.HasPrefix(strings.TrimSpace(line), "{") || json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		switch e.Type {
		case "thread.started":
			end.ID = e.ThreadID
		case "item.completed", "turn.completed":
			end.Worked = true
		}
	}
	return end
}

func endGemini(o Output) SessionEnd {
	var out struct {
		SessionID string  `json:"session_id"`
		Response  *string `json:"response"`
	}
	if !jsonObject(o.Stdout, &out) {
		return SessionEnd{}
	}
	return SessionEnd{ID: out.SessionID, Worked: out.Response != nil && strings.TrimSpace(*out.Response) != ""}
}

func endOpencode(o Output) SessionEnd {
	var end SessionEnd
	for line := range strings.Lines(string(o.Stdout)) {
		var e struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionID"`
		}
		if !strings.HasPrefix(strings.TrimSpace(line), "{") || json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		if e.SessionID != "" {
			end.ID = e.SessionID
		}
		switch e.Type {
		case "text", "tool_use", "step_finish":
			end.Worked = true
		}
	}
	return end
}
