package harness

import (
	_ "embed"
	"sync"

	"github.com/itchyny/gojq"
)

//go:embed jq/verdict.jq
var verdictJQ string

// VerdictJQ is the jq that reads a judge's verdict from its final message
// (jq/verdict.jq without its comments): its function verdict, of the
// message, yields {pass, reasoning} or null. A compiled script runs it with
// jq; ReadVerdict, with gojq.
func VerdictJQ() string { return jqCode(verdictJQ) }

// verdictCode is jq/verdict.jq's verdict, compiled.
var verdictCode = sync.OnceValues(func() (*gojq.Code, error) {
	q, err := gojq.Parse(VerdictJQ() + "\nverdict")
	if err != nil {
		return nil, err
	}
	return gojq.Compile(q)
})

// ReadVerdict reads a judge's verdict from its final message msg, as
// jq/verdict.jq says: pass or fail, and the judge's reasoning; ok is false
// when msg holds none.
func ReadVerdict(msg string) (pass bool, reasoning string, ok bool) {
	c, err := verdictCode()
	if err != nil {
		return false, "", false
	}
	v, _ := c.Run(msg).Next()
	m, isObject := v.(map[string]any)
	if !isObject {
		return false, "", false
	}
	pass, _ = m["pass"].(bool)
	reasoning, _ = m["reasoning"].(string)
	return pass, reasoning, true
}
