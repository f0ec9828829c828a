package harness

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/itchyny/gojq"
)

// JQ is how a harness reads a session's output, in jq: the one definition
// of it, which cairn run evaluates in-process (github.com/itchyny/gojq)
// and a compiled script with jq, from the same text (FinalJQDefs). Its
// functions read $out and $err (the CLI's standard output and error),
// $last (the text of the file it wrote its final message to, empty when
// none) and $rc (its exit code, -1 when a signal ended it), with the
// helpers of jq/output.jq and jq/usage.jq.
type JQ struct {
	// Defs are the adapter's definitions: its file of jq/ (jq/claude.jq).
	Defs string
	// Final is the function that yields the session's final message
	// (Harness.Final): {m: message, c: cause, f: failed}.
	Final string
	// End is the expression that yields how the session ended (SessionEnd):
	// {id, max_turns, budget, worked, unpriced, usage, total}, where usage
	// and total are objects of the figures of ir.UsageKeys, which
	// session_used (jq/usage.jq) sums; a key left out is false, empty or
	// none. A custom harness's is the function of its usage paths with them.
	End string
	// File, for a CLI that keeps what a session used in a file of its own
	// (sessionFiler), is the function of that file's text which completes
	// End's object, its input, when that says open: true (a turn the output
	// left unreported); empty for the others.
	File string
}

// sessionFiler is an adapter whose CLI keeps what a session used in a file
// of its own as well, which JQ's File reads.
type sessionFiler interface {
	// sessionFile is the text of the file of the CLI's session id, found
	// through the session's environment env; false when there is none.
	sessionFile(env []string, id string) (string, bool)
}

// FinalJQDefs is the jq a compiled script reads every harness's output
// with, and cairn run too: the helpers (jq/usage.jq, jq/output.jq), then
// each adapter's Defs, the built-in ones in order and the custom one last,
// without their comments (jqCode).
func FinalJQDefs() string { return finalJQDefs() }

var finalJQDefs = sync.OnceValue(func() string {
	var b strings.Builder
	b.WriteString(jqCode(usageJQ))
	b.WriteString(jqCode(outputJQ))
	for _, a := range append(slices.Clone(builtins), &custom{}) {
		b.WriteString(jqCode(a.JQ().Defs))
	}
	return b.String()
})

// JQDefs is FinalJQDefs with only the definitions of the adapters of hs:
// what a compiled script holds, which reads only its own sessions' output.
// Each adapter's come once, the built-in ones in order and the custom one
// last, as in FinalJQDefs.
func JQDefs(hs []*Harness) string {
	return jqCode(usageJQ) + AdapterJQDefs(hs)
}

// AdapterJQDefs is JQDefs without the usage helpers (UsageJQHelpers),
// which a compiled script defines once for all its jq and puts before
// these.
func AdapterJQDefs(hs []*Harness) string {
	var b strings.Builder
	b.WriteString(jqCode(outputJQ))
	uses := func(builtin bool, name string) bool {
		return slices.ContainsFunc(hs, func(h *Harness) bool { return h.Builtin == builtin && (!builtin || h.Name == name) })
	}
	for _, a := range builtins {
		if uses(true, a.Spec().Name) {
			b.WriteString(jqCode(a.JQ().Defs))
		}
	}
	if uses(false, "") {
		b.WriteString(jqCode((&custom{}).JQ().Defs))
	}
	return b.String()
}

// UsageJQHelpers is the jq that sums what sessions used in a compiled
// script, usage_plus($b) (jq/usage.jq, without its comments), which reads
// nothing else.
func UsageJQHelpers() string { return jqCode(usageJQ) }

// jqCode is the jq of a file of jq/ without its comment lines and blank
// lines: what a script holds of it. The files say at length what they do,
// and a workflow holds the jq in the step every job runs, which actionlint
// 1.7.12 hangs on (it checks the step with shellcheck) once it is 64 KiB.
func jqCode(file string) string {
	var b strings.Builder
	for line := range strings.Lines(file) {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// outputJQ and usageJQ are the helpers every harness's jq reads its output
// with.
var (
	//go:embed jq/output.jq
	outputJQ string
	//go:embed jq/usage.jq
	usageJQ string
)

// jqVars are the variables a harness's jq reads (see JQ), and the text of a
// session file (JQ's File).
var jqVars = []string{"$out", "$err", "$last", "$rc", "$session_file"}

// jqCodes holds each query over FinalJQDefs compiled, by its text: a
// harness's Final, End, File and turn filter.
var jqCodes sync.Map

// compileJQ is query, an expression over FinalJQDefs, compiled.
func compileJQ(query string) (*gojq.Code, error) {
	if c, ok := jqCodes.Load(query); ok {
		return c.(*gojq.Code), nil
	}
	q, err := gojq.Parse(FinalJQDefs() + "\n" + query)
	if err != nil {
		return nil, fmt.Errorf("jq %q: %w", query, err)
	}
	c, err := gojq.Compile(q, gojq.WithVariables(jqVars))
	if err != nil {
		return nil, fmt.Errorf("jq %q: %w", query, err)
	}
	jqCodes.Store(query, c)
	return c, nil
}

// errNoValue is the error of a query that yields nothing.
var errNoValue = errors.New("yields nothing")

// runJQ is the first value query yields for input, with the variables
// vars (jqVars's); errNoValue when it yields none.
func runJQ(query string, input any, vars []any) (any, error) {
	c, err := compileJQ(query)
	if err != nil {
		return nil, err
	}
	v, ok := c.Run(input, vars...).Next()
	if !ok {
		return nil, fmt.Errorf("jq %q: %w", query, errNoValue)
	}
	if err, ok := v.(error); ok {
		return nil, fmt.Errorf("jq %q: %w", query, err)
	}
	return v, nil
}

// jqInputs are the variables of a harness's jq for a session's output o
// (jqVars's): its output as jq's --rawfile reads it, the text of the file
// it wrote its final message to, when there is one, and no session file.
func jqInputs(o Output) []any {
	var last []byte
	if o.OutputFile != "" {
		if b, err := os.ReadFile(o.OutputFile); err == nil {
			last = b
		}
	}
	return []any{jqText(o.Stdout), jqText(o.Stderr), jqText(last), o.ExitCode, ""}
}

// jqText is b as jq reads a raw file: UTF-8, each byte that is not a
// character's replaced by U+FFFD.
func jqText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var s strings.Builder
	for _, r := range string(b) {
		s.WriteRune(r)
	}
	return s.String()
}

// turnLineJQ is the jq a turn filter (TurnEvent's JQ) reads one line of a
// CLI's event stream with: true when it is an event, an object, that starts
// a turn.
func turnLineJQ(filter string) string {
	return `fromjson? | select(type == "object") | ` + filter
}

// startsTurn reports whether line, one line of h's CLI's standard output,
// starts a turn, as its jq (TurnEvent's JQ) says.
func (h *Harness) startsTurn(line []byte) bool {
	v, err := runJQ(turnLineJQ(h.spec.TurnEvent.JQ), jqText(line), []any{"", "", "", 0, ""})
	return err == nil && v == true
}
