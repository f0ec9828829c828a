package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/internal/atomicfile"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/output"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
)

// maxOutput is the most bytes of output a step may give: what cairn reads
// of $CAIRN_OUTPUT.
const maxOutput = 4 << 20

// outputScratch is the file a step with an output schema writes its output
// to, $CAIRN_OUTPUT: a scratch file of the run folder, which commit mode
// never commits, made empty before the step runs.
func (r *run) outputScratch(sc *step.Context) string {
	return filepath.Join(r.folder.Dir, ".output-"+strings.ReplaceAll(outputKey(sc), "/", ".")+".json")
}

// outputKey is what names the output of sc's step in the run folder: the
// step's name, and for an item of a step with for_each, STEP/N.
func outputKey(sc *step.Context) string {
	if sc.Item != nil {
		return sc.Step.Name + "/" + strconv.Itoa(sc.ItemIndex)
	}
	return sc.Step.Name
}

// outputFile is where a step's valid output is saved, results/STEP.json.
func (r *run) outputFile(name string) string {
	return filepath.Join(r.folder.Dir, record.ResultsDir, name+".json")
}

// outputEnv adds to env, a step's, $CAIRN_OUTPUTS (the folder of the
// earlier steps' outputs, STEP.json) when the plan declares outputs, and
// $CAIRN_OUTPUT, an empty file it makes, when st declares one.
func (r *run) outputEnv(sc *step.Context, env []string) ([]string, error) {
	st := sc.Step
	if !r.o.Plan.HasOutputs() {
		return env, nil
	}
	set := []string{step.EnvOutputs + "=" + filepath.Join(r.folder.Dir, record.ResultsDir)}
	if st.Output != nil {
		f := r.outputScratch(sc)
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			return env, fmt.Errorf("make the output file of step %q: %w", st.Name, err)
		}
		if err := os.Truncate(f, 0); err != nil {
			return env, fmt.Errorf("make the output file of step %q: %w", st.Name, err)
		}
		set = append(set, step.EnvOutput+"="+f)
	}
	return proc.MergeEnv(env, set, nil), nil
}

// takeOutput reads, checks and saves the output of st, whose run phase
// ended as e says: the last session's final message when its last action
// is a session, else what its commands wrote to $CAIRN_OUTPUT. An output
// that is missing, no JSON, or breaks the schema fails the step with the
// first violation; a valid one is saved as results/STEP.json, which sr
// records.
func (r *run) takeOutput(sc *step.Context, e stepEnd, sr *record.StepRecord) stepEnd {
	st := sc.Step
	if st.Output == nil || e.outcome == record.Failed {
		return e
	}
	fail := func(err error) stepEnd {
		e.outcome, e.cause = record.Failed, err.Error()
		return e
	}
	var out []byte
	missing := output.Missing
	if b, ok := r.stubOutput(st); ok {
		// A stubbed run's step gives the output its stub gives.
		out = b
	} else if n := len(st.Actions); n > 0 && st.Actions[n-1].Kind == ir.Session {
		missing = output.MissingSession
		b, ok := output.FromText(e.result)
		if !ok {
			return fail(&output.Violation{Message: missing})
		}
		out = b
	} else {
		b, err := readOutput(r.outputScratch(sc))
		if err != nil {
			return fail(fmt.Errorf("output: %w", err))
		}
		out = b
	}
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return fail(&output.Violation{Message: missing})
	}
	if v := output.Validate(st.Output.Schema, out); v != nil {
		return fail(v)
	}
	key := outputKey(sc)
	if err := atomicfile.Write(r.outputFile(key), append(out, '\n')); err != nil {
		return fail(fmt.Errorf("save the output of step %q: %w", st.Name, err))
	}
	sr.Output = filepath.ToSlash(filepath.Join(record.ResultsDir, key+".json"))
	_ = os.Remove(r.outputScratch(sc))
	return e
}

// readOutput reads the output file f a step wrote, as a regular file of at
// most maxOutput bytes.
func readOutput(f string) ([]byte, error) {
	fi, err := os.Lstat(f)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("$%s is no longer a regular file", step.EnvOutput)
	}
	if fi.Size() > maxOutput {
		return nil, fmt.Errorf("$%s holds more than %d MiB", step.EnvOutput, maxOutput>>20)
	}
	return os.ReadFile(f)
}

// stubOutput is the output the stub of st gives in a stubbed run; false
// when there is none.
func (r *run) stubOutput(st *ir.PlanStep) ([]byte, bool) {
	if r.o.Stubs == nil {
		return nil, false
	}
	return r.o.Stubs.Step(st.Name).Output()
}
