package runtime

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn/ir"
)

// validate runs a step's validate phase after its run phase ended well
// (§7.2): its shells, then its instructions judged by a review model, gated
// by its severity. e is how the run phase ended; validate returns how the
// step ends, and records the phase in sr.Validate.
func (r *run) validate(ctx context.Context, sc *StepContext, wt Worktree, sr *StepRecord, e stepEnd) stepEnd {
	v := sc.Step.Validate
	for _, shell := range v.Shells {
		run := runShell(ctx, sc, shell)
		if run.ok() {
			continue
		}
		if ctx.Err() == nil && v.Severity == ir.SeverityWarn {
			r.prog.note(fmt.Sprintf("warning: step %s: validate: %s", sc.Step.Name, run.cause))
			continue
		}
		sr.Validate = &ValidateRecord{Status: VerdictFail, Error: run.cause}
		e.outcome, e.exitCode, e.cause = Failed, run.proc.ExitCode, "validate: "+run.cause
		return e
	}
	sr.Validate = &ValidateRecord{Status: VerdictPass}
	e.outcome = Succeeded
	return e
}
