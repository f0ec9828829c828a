package harness

import "fmt"

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
	// Model is the model the CLI was given (Invocation.Model), "" for
	// its own choice: SessionEnd prices a session by it.
	Model string
}

// maxCause is how many characters of an agent's own words a cause keeps
// (clip, jq/output.jq).
const maxCause = 400

// Final reads a session's final message from its output, as h's jq (JQ's
// Final, jq/NAME.jq) says for its CLI, and returns it without trailing
// blank space; when the session failed, failed is set and cause says why in
// one line, in the agent's own words when it gave any.
//
// Output that is not in the CLI's format fails the session with a cause
// that says so and quotes its first line; a failure with no better cause is
// "exit status N: LAST STDERR LINE".
func (h *Harness) Final(o Output) (message, cause string, failed bool) {
	v, err := runJQ(h.jq.Final, nil, jqInputs(o))
	if err != nil {
		return "", fmt.Sprintf("cannot read the output of %s: %v", h.Name, err), true
	}
	f, _ := v.(map[string]any)
	message, _ = f["m"].(string)
	cause, _ = f["c"].(string)
	failed, _ = f["f"].(bool)
	return message, cause, failed
}
