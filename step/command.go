package step

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/tracing"
)

// ShellRun is how one bash script of a step ended: the process's end, its
// stdout and stderr together, in the order they were written, and a cause
// in the words of a step's record when it did not exit 0.
type ShellRun struct {
	Proc   proc.Result
	Output []byte
	Cause  string
}

// OK reports whether the script exited 0.
func (s ShellRun) OK() bool { return s.Cause == "" }

// runShell runs script as `bash -euo pipefail -c SCRIPT` in the step's
// worktree with the step's environment less the agents' keys (ShellEnv),
// stopping it (its whole process
// group) when ctx is done or the step's timeout passes.
func runShell(ctx context.Context, sc *Context, script string) ShellRun {
	var out bytes.Buffer
	run := runShellTo(ctx, sc, "command", script, &out, &out)
	run.Output = out.Bytes()
	return run
}

// runShellTo is runShell writing the script's stdout and stderr to the
// writers given; the ShellRun it returns holds no output. kind names the
// script in its span (command, precheck, validate, setup), whose trace
// context its environment carries (TRACEPARENT).
func runShellTo(ctx context.Context, sc *Context, kind, script string, stdout, stderr io.Writer) ShellRun {
	ctx, span := tracing.Shell(ctx, stepName(sc), kind)
	p := &proc.Proc{
		Argv:    []string{"bash", "-euo", "pipefail", "-c", script},
		Dir:     sc.Worktree,
		Env:     tracing.Env(ctx, ShellEnv(sc.Env, stepEnv(sc))),
		Stdout:  stdout,
		Stderr:  stderr,
		Timeout: sc.Timeout,
		Groups:  sc.Groups,
	}
	res, err := p.Run(ctx)
	run := ShellRun{Proc: res}
	switch {
	case err != nil:
		run.Cause = fmt.Sprintf("start bash: %v", err)
	case res.TimedOut:
		run.Cause = timeoutCause(sc)
	case res.ExitCode != 0 || res.Stopped:
		run.Cause = res.Cause(sc.Timeout)
	}
	span.SetExitCode(res.ExitCode)
	outcome := "succeeded"
	if !run.OK() {
		outcome = "failed"
	}
	span.End(outcome, run.Cause)
	return run
}

// timeoutCause words a step's timeout as the file wrote it: "timed out after
// 45m".
func timeoutCause(sc *Context) string {
	if sc.Step != nil && sc.Step.Timeout != "" {
		return "timed out after " + sc.Step.Timeout
	}
	return proc.Result{TimedOut: true}.Cause(sc.Timeout)
}

// RunCommand runs a command action (docs/design.md §7.1). Its result is what the script
// wrote to $CAIRN_RESULT when that is not empty, else its stdout and stderr
// together; a non-zero exit fails it, and the result then also has the
// count and the last lines of that output, for the failure to show.
func RunCommand(ctx context.Context, sc *Context, script string) Result {
	// A result file left by an earlier action of the step must not pass
	// for one this script wrote.
	if err := os.Remove(sc.ResultFile); err != nil && !os.IsNotExist(err) {
		return Result{Failed: true, ExitCode: -1, Cause: fmt.Sprintf("clear the result file: %v", err)}
	}
	run := runShell(ctx, sc, script)
	r := Result{ExitCode: run.Proc.ExitCode, Result: string(run.Output), OutputIsResult: true}
	if !run.OK() {
		r.Failed, r.Cause = true, run.Cause
		r.Lines, r.Tail = countLines(run.Output), outputTail(run.Output)
	}
	if written, err := os.ReadFile(sc.ResultFile); err == nil && len(written) > 0 {
		r.Result, r.OutputIsResult = string(written), false
	}
	return r
}

// countLines counts the lines of out, a last one without a newline too.
func countLines(out []byte) int {
	n := bytes.Count(out, []byte{'\n'})
	if len(out) > 0 && out[len(out)-1] != '\n' {
		n++
	}
	return n
}

// RunSetup runs a worktree's setup script (docs/design.md §7.4) as a
// command step's script runs, in sc's worktree with sc's environment less
// the agents' keys, under sc's timeout, its stdout and stderr both written
// to out. sc has no step. When it fails, the ShellRun's Output is the end
// of its output as a failed command's is shown (its last lines, made safe
// to print), not all of it.
func RunSetup(ctx context.Context, sc *Context, script string, out io.Writer) ShellRun {
	end := &endBuffer{}
	// One writer for both: exec then writes to it from one goroutine.
	w := io.MultiWriter(out, end)
	run := runShellTo(ctx, sc, "setup", script, w, w)
	if !run.OK() {
		run.Output = []byte(outputTail(end.buf))
	}
	return run
}

// endBuffer keeps the last endBytes bytes written to it: more than
// tailLines lines of maxTailLine characters need.
type endBuffer struct{ buf []byte }

// endBytes is how much of an output an endBuffer keeps.
const endBytes = 4 * tailLines * maxTailLine

func (b *endBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*endBytes {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-endBytes:]...)
	}
	return len(p), nil
}
