package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/cairn-dev/cairn/expr"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
)

// when decides whether step st runs (docs/design.md §7.3), or, for a step
// with for_each, the run of its item (JSON; nil for none): yes when it has
// no when, or its when holds over the outcomes and outputs of the steps it
// waits for, and the item. Otherwise it returns how the step ends: skipped, "when … is
// false", or failed when the when cannot be evaluated.
func (r *run) when(st *ir.PlanStep, item []byte) (stepEnd, bool) {
	if st.When == "" {
		return stepEnd{}, true
	}
	x, errs := expr.Parse(st.When)
	if len(errs) > 0 {
		return stepEnd{outcome: record.Failed, exitCode: -1, cause: fmt.Sprintf("when: %s", errs[0].Message)}, false
	}
	in, err := r.whenInput(st)
	in.Item = item
	if err == nil {
		var holds bool
		if holds, err = x.Eval(in); err == nil && holds {
			return stepEnd{}, true
		}
		if err == nil {
			return stepEnd{outcome: record.Skipped, exitCode: step.SkipCode, cause: WhenFalse(x)}, false
		}
	}
	return stepEnd{outcome: record.Failed, exitCode: -1, cause: fmt.Sprintf("when %s cannot be evaluated: %v", x.Text(), err)}, false
}

// WhenFalse is the cause of a step its when skipped: "when … is false".
func WhenFalse(x *expr.Expr) string {
	return fmt.Sprintf("when %s is false", x.Text())
}

// whenInput is what st's when reads: the outcome and output of each step
// it waits for.
func (r *run) whenInput(st *ir.PlanStep) (expr.Input, error) {
	in := expr.Input{Steps: map[string]expr.Step{}}
	if r.dag == nil {
		return in, nil
	}
	rec := r.folder.Record()
	for i, s := range r.dag.Steps {
		if s.Name != st.Name {
			continue
		}
		for _, j := range r.dag.Above[i] {
			name := r.dag.Steps[j].Name
			s := expr.Step{}
			if k, ok := r.index[name]; ok && k < len(rec.Steps) {
				s.Outcome = string(rec.Steps[k].Outcome)
			}
			b, err := os.ReadFile(r.outputFile(name))
			switch {
			case err == nil:
				if !json.Valid(b) {
					return in, fmt.Errorf("the output of step %q is not JSON", name)
				}
				s.Output = b
			case !errors.Is(err, fs.ErrNotExist):
				return in, err
			}
			in.Steps[name] = s
		}
	}
	return in, nil
}
