package forge

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/itchyny/gojq"
)

// issueJQ is jq/issue.jq: the issue file's text, the branch's slug and the
// check of untrusted edits, the one definition of them, which cairn
// evaluates in-process and a compiled script with jq (IssueJQ).
//
//go:embed jq/issue.jq
var issueJQ string

// publishedJQ is jq/published.jq: the URL a run-published-issue step
// reads from its publisher's result, the tickets of a spec and the checks
// of the issues it starts child runs on, which cairn evaluates in-process
// and a compiled script with jq (PublishedJQ). It stands after jq/issue.jq.
//
//go:embed jq/published.jq
var publishedJQ string

// SpecLabel is the label of a spec issue (docs/design.md §7.8):
// run-published-issue starts its step's spec_process on it, and then its
// process on each of its tickets. Labels compare without case.
const SpecLabel = "spec"

// IssueJQ is jq/issue.jq without its comments and blank lines: the
// definitions a compiled script reads gh's answers with.
func IssueJQ() string {
	return stripJQ(issueJQ)
}

// PublishedJQ is jq/published.jq without its comments and blank lines,
// which a compiled script puts after IssueJQ.
func PublishedJQ() string {
	return stripJQ(publishedJQ)
}

// stripJQ is src without its comments and blank lines.
func stripJQ(src string) string {
	var b strings.Builder
	for line := range strings.Lines(src) {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// IssueEditsQuery is the GraphQL query of an issue's edits, which cairn
// and a compiled script send through `gh api graphql`.
const IssueEditsQuery = issueEditsQuery

// jqCodes holds each program of jqRun compiled, by its text.
var jqCodes sync.Map

// issueJQRun is what function fn of jq/issue.jq yields for v, a value
// that encoding/json turns into the JSON the function reads: a string.
func issueJQRun(fn string, v any) (string, error) {
	out, err := jqRun(issueJQ+"\n"+fn, fn, v)
	if err != nil {
		return "", err
	}
	s, ok := out.(string)
	if !ok {
		return "", fmt.Errorf("jq %s yields %T, not a string", fn, out)
	}
	return s, nil
}

// Published is what the program fn, of jq/published.jq's definitions
// (after jq/issue.jq's), yields for v, a value that encoding/json turns
// into the JSON it reads, as encoding/json would decode it.
func Published(fn string, v any) (any, error) {
	return jqRun(issueJQ+"\n"+publishedJQ+"\n"+fn, fn, v)
}

// jqRun is the first value program, named fn in errors, yields for v.
func jqRun(program, fn string, v any) (any, error) {
	code, ok := jqCodes.Load(program)
	if !ok {
		q, err := gojq.Parse(program)
		if err != nil {
			return nil, fmt.Errorf("jq %s: %w", fn, err)
		}
		c, err := gojq.Compile(q)
		if err != nil {
			return nil, fmt.Errorf("jq %s: %w", fn, err)
		}
		code, _ = jqCodes.LoadOrStore(program, c)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var input any
	if err := json.Unmarshal(b, &input); err != nil {
		return nil, err
	}
	out, ok := code.(*gojq.Code).Run(input).Next()
	if !ok {
		return nil, fmt.Errorf("jq %s yields nothing", fn)
	}
	if err, ok := out.(error); ok {
		return nil, fmt.Errorf("jq %s: %w", fn, err)
	}
	return out, nil
}
