package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/text"
)

// Output is what a session's agent CLI left behind: its standard output and
// error, its exit code (-1 when a signal ended it), and the file a harness
// that writes its final message to a file (codex) was told to write. Env is
// the environment it ran in, where a CLI that keeps its sessions in files
// of its own (codex's CODEX_HOME) finds them; nil when unknown.
type Output struct {
	Stdout, Stderr []byte
	ExitCode       int
	OutputFile     string
	Env            []string
}

// maxCause is how many characters of an agent's own words a cause keeps.
const maxCause = 400

// Final reads a session's output the way its CLI writes it (docs/design.md §8) and returns
// the session's final message, without trailing blank space; when the
// session failed, failed is set and cause says why in one line, in the
// agent's own words when it gave any. h's adapter reads it: claude.go,
// codex.go, gemini.go, opencode.go and custom.go say how for each CLI.
//
// Output that is not in the CLI's format fails the session with a cause
// that says so and quotes its first line; a failure with no better cause is
// "exit status N: LAST STDERR LINE".
func (h *Harness) Final(o Output) (message, cause string, failed bool) {
	return h.adapter.Final(o)
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
	first := text.FirstLine(string(o.Stdout))
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

// finalJQHelpers are the jq twins of this file's helpers, which every
// adapter's FinalJQ uses.
const finalJQHelpers = `def trimend: sub("[ \t\r\n]+\\z"; "");
def trim: sub("^\\s+"; "") | sub("\\s+\\z"; "");
def blank: test("\\S") | not;
def clip: if length <= 400 then . else .[:399] + "…" end;
def oneline: [splits("\\s+")] | map(select(length > 0)) | join(" ") | clip;
def firstline: [split("\n")[] | trim | select(length > 0)] | first // "";
def lastline: [split("\n")[] | trim | select(length > 0)] | last // "";
def exitcause:
  (if $rc < 0 then "killed by a signal" else "exit status \($rc)" end) as $code
  | ($err | lastline) as $l
  | (if $l != "" then $l else ($out | lastline) end) as $line
  | if $line == "" then $code else "\($code): \($line | oneline)" end;
def unreadable($cli; $want):
  if $rc != 0 then exitcause
  else ($out | firstline) as $first
    | if $first == "" then "\($cli) printed nothing, not \($want)"
      else "\($cli) printed \($first | clip | tojson), not \($want)" end
  end;
def object:
  split("\n") as $lines
  | [range(0; $lines | length) as $i
      | select($lines[$i] | test("^[ \t\r]*\\{"))
      | range($i + 1; ($lines | length) + 1) as $j
      | ($lines[$i:$j] | join("\n")) | try fromjson catch empty
      | select(type == "object")] | .[0];
def events:
  [split("\n")[] | select(trim | startswith("{")) | try fromjson catch empty
   | select(type == "object" and (.type | type) == "string" and .type != "")];
`
