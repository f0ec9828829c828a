package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Output is what a session's agent CLI left behind: its standard output and
// error, its exit code (-1 when a signal ended it), and the file a harness
// that writes its final message to a file (codex) was told to write.
type Output struct {
	Stdout, Stderr []byte
	ExitCode       int
	OutputFile     string
}

// maxCause is how many characters of an agent's own words a cause keeps.
const maxCause = 400

// Final reads a session's output the way its CLI writes it (§8) and returns
// the session's final message, without trailing blank space; when the
// session failed, failed is set and cause says why in one line, in the
// agent's own words when it gave any:
//
//   - claude: .result of its JSON; "is_error": true, an error subtype or a
//     non-zero exit fails, with .result as the cause;
//   - codex: the text of the -o file (else the last agent message); a
//     turn.failed event or a non-zero exit fails, with the turn.failed or
//     last error event's message as the cause;
//   - gemini: .response of its JSON; an error object on stdout or stderr
//     fails, with its message as the cause, as does a non-zero exit;
//   - opencode: the last text event's text; an error event or a non-zero
//     exit fails, with the error's message as the cause;
//   - a custom harness: stdout; a non-zero exit fails, with stderr's last
//     line as the cause.
//
// Output that is not in the CLI's format fails the session with a cause
// that says so and quotes its first line; a failure with no better cause is
// "exit status N: LAST STDERR LINE".
func (h *Harness) Final(o Output) (message, cause string, failed bool) {
	if !h.Builtin {
		return finalCustom(o)
	}
	switch h.Name {
	case "claude":
		return finalClaude(o)
	case "codex":
		return finalCodex(o)
	case "gemini":
		return finalGemini(o)
	case "opencode":
		return finalOpencode(o)
	}
	return finalCustom(o)
}

// claudeResult is the JSON object `claude -p --output-format json` prints.
type claudeResult struct {
	Type    string   `json:"type"`
	Subtype string   `json:"subtype"`
	IsError bool     `json:"is_error"`
	Result  string   `json:"result"`
	Errors  []string `json:"errors"`
}

func finalClaude(o Output) (string, string, bool) {
	var r claudeResult
	if !jsonObject(o.Stdout, &r) || r.Type != "result" {
		return "", unreadable("claude", "its JSON result", o), true
	}
	msg := trimEnd(r.Result)
	errSubtype := strings.HasPrefix(r.Subtype, "error")
	if !r.IsError && !errSubtype && o.ExitCode == 0 {
		return msg, "", false
	}
	switch {
	case strings.TrimSpace(r.Result) != "":
		// A failed session's .result is its error, not a final message.
		return "", oneLine(r.Result), true
	case len(r.Errors) > 0:
		return msg, oneLine(strings.Join(r.Errors, "; ")), true
	case r.Subtype == "error_max_turns":
		return msg, "reached its max turns (error_max_turns)", true
	case errSubtype:
		return msg, "claude ended with " + r.Subtype, true
	}
	return msg, exitCause(o), true
}

// codexEvent is one line of `codex exec --json`.
type codexEvent struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Error   *struct {
		Message string `json:"message"`
	} `json:"error"`
	Item *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"item"`
}

func finalCodex(o Output) (string, string, bool) {
	var (
		events     int
		lastError  string
		turnFailed string
		failedTurn bool
		lastAgent  string
	)
	for line := range strings.Lines(string(o.Stdout)) {
		var e codexEvent
		if !strings.HasPrefix(strings.TrimSpace(line), "{") || json.Unmarshal([]byte(line), &e) != nil || e.Type == "" {
			continue
		}
		events++
		switch e.Type {
		case "error":
			lastError = e.Message
		case "turn.failed":
			failedTurn = true
			if e.Error != nil {
				turnFailed = e.Error.Message
			}
		case "item.completed":
			if e.Item != nil && e.Item.Type == "agent_message" {
				lastAgent = e.Item.Text
			}
		}
	}
	msg := lastAgent
	if o.OutputFile != "" {
		if b, err := os.ReadFile(o.OutputFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			msg = string(b)
		}
	}
	msg = trimEnd(msg)
	if events == 0 && len(bytes.TrimSpace(o.Stdout)) > 0 {
		return msg, unreadable("codex", "its JSONL events", o), true
	}
	if !failedTurn && o.ExitCode == 0 {
		return msg, "", false
	}
	switch {
	case strings.TrimSpace(turnFailed) != "":
		return msg, oneLine(turnFailed), true
	case strings.TrimSpace(lastError) != "":
		return msg, oneLine(lastError), true
	case failedTurn && o.ExitCode == 0:
		return msg, "codex: the turn failed", true
	}
	return msg, exitCause(o), true
}

// geminiError is the error object Gemini CLI prints, on stdout or stderr,
// when a session fails.
type geminiError struct {
	Type    string          `json:"type"`
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code"`
}

// geminiOutput is the JSON object `gemini --output-format json` prints.
type geminiOutput struct {
	Response *string      `json:"response"`
	Error    *geminiError `json:"error"`
}

func finalGemini(o Output) (string, string, bool) {
	var out, errOut geminiOutput
	parsed := jsonObject(o.Stdout, &out) && (out.Response != nil || out.Error != nil)
	if !parsed || out.Error == nil {
		if jsonObject(o.Stderr, &errOut) && errOut.Error != nil {
			out.Error = errOut.Error
		}
	}
	msg := ""
	if out.Response != nil {
		msg = trimEnd(*out.Response)
	}
	if e := out.Error; e != nil {
		switch {
		case strings.TrimSpace(e.Message) != "":
			return msg, oneLine(e.Message), true
		case e.Type != "":
			return msg, fmt.Sprintf("gemini: %s (code %s)", e.Type, e.Code), true
		}
		return msg, exitCause(o), true
	}
	if o.ExitCode != 0 {
		return msg, exitCause(o), true
	}
	if !parsed {
		return "", unreadable("gemini", "its JSON output", o), true
	}
	return msg, "", false
}

// opencodeEvent is one line of `opencode run --format json`.
type opencodeEvent struct {
	Type string `json:"type"`
	Part *struct {
		Text string `json:"text"`
	} `json:"part"`
	Error *struct {
		Name    string `json:"name"`
		Message string `json:"message"`
		Data    *struct {
			Message string `json:"message"`
		} `json:"data"`
	} `json:"error"`
}

func finalOpencode(o Output) (string, string, bool) {
	var (
		events   int
		msg      string
		errCause string
		errored  bool
	)
	for line := range strings.Lines(string(o.Stdout)) {
		var e opencodeEvent
		if !strings.HasPrefix(strings.TrimSpace(line), "{") || json.Unmarshal([]byte(line), &e) != nil || e.Type == "" {
			continue
		}
		events++
		switch e.Type {
		case "text":
			if e.Part != nil {
				msg = e.Part.Text
			}
		case "error":
			errored = true
			if e.Error != nil {
				switch {
				case e.Error.Data != nil && strings.TrimSpace(e.Error.Data.Message) != "":
					errCause = e.Error.Data.Message
				case strings.TrimSpace(e.Error.Message) != "":
					errCause = e.Error.Message
				default:
					errCause = e.Error.Name
				}
			}
		}
	}
	msg = trimEnd(msg)
	if events == 0 && len(bytes.TrimSpace(o.Stdout)) > 0 {
		return msg, unreadable("opencode", "its JSON events", o), true
	}
	switch {
	case errored && strings.TrimSpace(errCause) != "":
		return msg, oneLine(errCause), true
	case errored || o.ExitCode != 0:
		return msg, exitCause(o), true
	}
	return msg, "", false
}

func finalCustom(o Output) (string, string, bool) {
	msg := trimEnd(string(o.Stdout))
	if o.ExitCode == 0 {
		return msg, "", false
	}
	if line := lastLine(string(o.Stderr)); line != "" {
		return msg, oneLine(line), true
	}
	return msg, exitCause(o), true
}

// jsonObject decodes into v the first JSON object in b that starts a line
// (after blank space), ignoring any lines before it and anything after it:
// a CLI may print a warning before its JSON, and may print it indented. It
// reports whether one decoded.
func jsonObject(b []byte, v any) bool {
	for off := 0; off < len(b); {
		line := b[off:]
		end := bytes.IndexByte(line, '\n')
		if end >= 0 {
			line = line[:end]
		}
		if trimmed := bytes.TrimLeft(line, " \t\r"); len(trimmed) > 0 && trimmed[0] == '{' {
			if json.NewDecoder(bytes.NewReader(b[off:])).Decode(v) == nil {
				return true
			}
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return false
}

// unreadable is the cause of a session whose output is not in its CLI's
// format: a usage error, a crash, or a CLI whose format changed.
func unreadable(cli, want string, o Output) string {
	if o.ExitCode != 0 {
		return exitCause(o)
	}
	first := firstLine(string(o.Stdout))
	if first == "" {
		return fmt.Sprintf("%s printed nothing, not %s", cli, want)
	}
	return fmt.Sprintf("%s printed %q, not %s", cli, clip(first), want)
}

// exitCause words a failed session with no better cause: "exit status 1:
// LAST STDERR LINE", or stdout's last line when stderr is empty.
func exitCause(o Output) string {
	code := fmt.Sprintf("exit status %d", o.ExitCode)
	if o.ExitCode < 0 {
		code = "killed by a signal"
	}
	line := lastLine(string(o.Stderr))
	if line == "" {
		line = lastLine(string(o.Stdout))
	}
	if line == "" {
		return code
	}
	return code + ": " + oneLine(line)
}

// oneLine folds s onto one line and clips it to maxCause characters.
func oneLine(s string) string {
	return clip(strings.Join(strings.Fields(ansiEscape.ReplaceAllString(s, "")), " "))
}

// ansiEscape matches the terminal colour and style sequences some CLIs
// print even into a pipe; a cause is plain text.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// clip shortens s to maxCause characters, marking the cut.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxCause {
		return s
	}
	r := []rune(s)
	return string(r[:maxCause-1]) + "…"
}

// trimEnd drops trailing blank space from a final message.
func trimEnd(s string) string { return strings.TrimRight(s, " \t\r\n") }
