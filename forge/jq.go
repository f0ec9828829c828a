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

// IssueJQ is jq/issue.jq without its comments and blank lines: the
// definitions a compiled script reads gh's answers with.
func IssueJQ() string {
	var b strings.Builder
	for line := range strings.Lines(issueJQ) {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// IssueEditsQuery is the GraphQL query of an issue's edits, which cairn
// and a compiled script send through `gh api graphql`.
const IssueEditsQuery = issueEditsQuery

// issueCodes holds each function of jq/issue.jq compiled, by name.
var issueCodes sync.Map

// issueJQRun is what function fn of jq/issue.jq yields for v, a value
// that encoding/json turns into the JSON the function reads: a string.
func issueJQRun(fn string, v any) (string, error) {
	code, ok := issueCodes.Load(fn)
	if !ok {
		q, err := gojq.Parse(issueJQ + "\n" + fn)
		if err != nil {
			return "", fmt.Errorf("jq %s: %w", fn, err)
		}
		c, err := gojq.Compile(q)
		if err != nil {
			return "", fmt.Errorf("jq %s: %w", fn, err)
		}
		code, _ = issueCodes.LoadOrStore(fn, c)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var input any
	if err := json.Unmarshal(b, &input); err != nil {
		return "", err
	}
	out, ok := code.(*gojq.Code).Run(input).Next()
	if !ok {
		return "", fmt.Errorf("jq %s yields nothing", fn)
	}
	if err, ok := out.(error); ok {
		return "", fmt.Errorf("jq %s: %w", fn, err)
	}
	s, ok := out.(string)
	if !ok {
		return "", fmt.Errorf("jq %s yields %T, not a string", fn, out)
	}
	return s, nil
}
