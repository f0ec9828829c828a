package codegen

import (
	"fmt"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/output"
)

// scriptOutput is a step's typed output as the script checks it: the jq
// program (output.JQ) that prints its first violation, and whether it is
// read from the step's last session's final message (Session) rather than
// from $CAIRN_OUTPUT.
type scriptOutput struct {
	JQ      string
	Session bool
}

// output is how the script checks st's output; nil for a step without
// one.
func (c *compiler) output(st *ir.PlanStep) (*scriptOutput, []ir.Diagnostic) {
	if st.Output == nil {
		return nil, nil
	}
	jq, err := output.JQ(st.Output.Schema)
	if err != nil {
		r := c.at.step(st.Name)
		if s := c.at.steps[st.Name]; s != nil {
			r = or(s.Keys().OutputSchema.At(), r)
		}
		return nil, []ir.Diagnostic{notCompilable(r, "step %q: %v", st.Name, fmt.Errorf("its output schema cannot be compiled: %w", err))}
	}
	n := len(st.Actions)
	return &scriptOutput{JQ: jq, Session: n > 0 && st.Actions[n-1].Kind == ir.Session}, nil
}

// hasOutputs reports whether a step of s declares an output schema
// (feature outputs).
func (s *script) hasOutputs() bool {
	for _, st := range s.Steps {
		if st.Output != nil {
			return true
		}
	}
	return false
}
