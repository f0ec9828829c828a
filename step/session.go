package step

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/lookpath"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/tracing"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/step/prompts"
)

// RunSession runs a session action (docs/design.md §7.1, §8): it renders the session
// prompt, starts h's CLI in the step's worktree with the step's environment
// (the prompt on stdin), keeps its output as the step's trace, and reads its final message, which
// is the action's result. skillPath is the SKILL.md the agent reads (the
// repository's own file in the worktree, or the copy InstallSkill made);
// empty for a session with an inline prompt. The model, effort and max
// turns are a's resolved settings; a codex session writes its final message
// beside the trace.
func RunSession(ctx context.Context, sc *Context, a *ir.PlanAction, h *harness.Harness, skillPath string) Result {
	prompt, err := SessionPrompt(sc, a, skillPath)
	if err != nil {
		return Result{Failed: true, ExitCode: -1, Cause: err.Error()}
	}
	inv := Invocation(a, prompt)
	if sc.Step != nil && sc.Step.Output != nil && h.TakesOutputSchema() {
		inv.OutputSchema = sc.Step.Output.Schema
	}
	return RunPrompt(ctx, sc, h, inv)
}

// SessionPrompt is the prompt of a's session in the step, which reads the
// skill at skillPath.
func SessionPrompt(sc *Context, a *ir.PlanAction, skillPath string) (string, error) {
	return prompts.SessionPrompt(sessionData(sc, a, skillPath))
}

// Invocation is a session of a with prompt: a's resolved model,
// effort, access and max turns.
func Invocation(a *ir.PlanAction, prompt string) harness.Invocation {
	inv := harness.Invocation{Prompt: prompt}
	if a.Model != nil {
		inv.Model = a.Model.Value
	}
	if a.Effort != nil {
		inv.Effort = a.Effort.Value
	}
	if a.Access != nil {
		inv.Access = a.Access.Value
	}
	if a.MaxTurns != nil {
		inv.MaxTurns = a.MaxTurns.Value
	}
	return inv
}

// RunPrompt starts h's CLI for the session inv in sc's worktree, with sc's
// environment and timeout, keeps its output in sc's trace file, and reads
// its final message and how it ended. inv's worktree and message file are
// sc's. The harness's command may set variables over sc's environment (its
// access, its retries) and name files, which are written beside the trace
// (filesDir) and removed when the session ends. Where cairn counts the
// CLI's turns itself (codex, opencode), a session that starts a turn past
// inv.MaxTurns is stopped, its whole process group, and fails with a cause
// that names the cap. A prompt longer than h's CLI takes whole
// (PromptLimit) fails the session before it starts. A harness whose sandbox
// keeps the worktree's repository from the session is given it as the
// session starts, and a commondir file the session made where the sandbox
// could not keep it (a checkout's .git) is removed and fails the session.
// With sc.Agent set (a stubbed run) no CLI starts: the Agent answers, after
// the guard, that check and the budget, as the CLI would have. The session
// has a span of its own (package tracing), whose trace context the CLI's
// environment carries (TRACEPARENT).
func RunPrompt(ctx context.Context, sc *Context, h *harness.Harness, inv harness.Invocation) Result {
	ctx, span := tracing.Session(ctx, stepName(sc), h.Name, inv.Model, inv.Access)
	r := runPrompt(ctx, sc, h, inv)
	span.SetSession(r.Session.ID)
	span.SetUsage(r.Session.Used(nil))
	outcome := "succeeded"
	if r.Failed {
		outcome = "failed"
	}
	span.End(outcome, r.Cause)
	return r
}

// runPrompt is RunPrompt, under the session's span.
func runPrompt(ctx context.Context, sc *Context, h *harness.Harness, inv harness.Invocation) Result {
	failed := func(format string, args ...any) Result {
		return Result{Failed: true, ExitCode: -1, Cause: fmt.Sprintf(format, args...)}
	}
	if sc.Guard != nil {
		if err := sc.Guard(ctx); err != nil {
			return failed("%v", err)
		}
	}
	if max, cause := h.PromptLimit(); max > 0 && len(inv.Prompt) > max {
		return failed("%s", cause(strconv.Itoa(len(inv.Prompt))))
	}
	if sc.Meter != nil {
		left, err := sc.Meter.Before()
		if err != nil {
			r := failed("%v", err)
			r.Budget = true
			return r
		}
		inv.BudgetUSD = left
	}
	if sc.Agent != nil {
		return answered(sc, inv, sc.Agent.Answer(ctx, inv))
	}
	prompt := inv.Prompt
	inv.Worktree, inv.OutputFile = sc.Worktree, lastMessageFile(sc)
	files := filesDir(sc)
	inv.FilesDir = files
	if h.KeepsRepository(inv.Access) {
		repo, err := harness.ReadRepository(ctx, sc.Git, sc.Worktree)
		if err != nil {
			return failed("harness %q: read the worktree's repository for its sandbox: %v", h.Name, err)
		}
		inv.Repository = repo
	}
	cmd, err := h.Command(inv)
	if err != nil {
		return failed("%v", err)
	}
	argv := cmd.Argv
	if len(argv) == 0 || argv[0] == "" {
		return failed("harness %q has no command", h.Name)
	}
	env := tracing.Env(ctx, proc.MergeEnv(sc.Env, cmd.Env, nil))
	bin, err := lookpath.In(env, sc.Worktree, argv[0])
	if err != nil {
		return failed("harness %q cannot start: %v", h.Name, err)
	}
	argv[0] = bin
	if len(cmd.Files) > 0 || cmd.Settings != nil {
		defer os.RemoveAll(files)
		if err := writeFiles(files, cmd.Files); err != nil {
			return failed("write the session's files: %v", err)
		}
	}
	if cmd.Settings != nil {
		v, err := writeSettings(files, env, cmd.Settings)
		if err != nil {
			return failed("harness %q: its settings for the session: %v", h.Name, err)
		}
		env = proc.MergeEnv(env, []string{v}, nil)
	}
	if err := clearMessageFile(inv.OutputFile, h.WritesMessageFile()); err != nil {
		return failed("clear %s: %v", inv.OutputFile, err)
	}

	trace, err := openTrace(sc.TraceFile)
	if err != nil {
		return failed("open the trace: %v", err)
	}
	stdout := &traceStream{trace: trace}
	stderr := &traceStream{trace: trace, stderr: true}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var out io.Writer = stdout
	turns := h.WatchTurns(inv.MaxTurns, stop)
	if turns != nil {
		out = io.MultiWriter(stdout, turns)
	}
	traceDir := ""
	if sc.TraceFile != "" {
		traceDir = filepath.Dir(sc.TraceFile)
	}
	// A CLI whose turns cairn counts writes to a pipe, which the watcher
	// reads as it comes, to stop it before its next request (codex,
	// opencode); any other to a file (fileOut: Gemini CLI loses what it
	// queued for a pipe).
	var stdoutTo io.Writer = out
	var fo *fileOut
	if turns == nil {
		if fo, err = newFileOut(traceDir, out); err != nil {
			_ = trace.close()
			return failed("make the session's output file: %v", err)
		}
		stdoutTo = fo.File
	}
	p := &proc.Proc{
		Argv:    argv,
		Dir:     sc.Worktree,
		Env:     env,
		Stdout:  stdoutTo,
		Stderr:  stderr,
		Timeout: sc.Timeout,
		Groups:  sc.Groups,
	}
	p.Stdin = strings.NewReader(prompt)
	res, runErr := p.Run(runCtx)
	if fo != nil {
		fo.close()
	}
	var (
		restored   []string
		restoreErr error
	)
	if inv.Repository != nil {
		restored, restoreErr = inv.Repository.Restore()
	}
	stdout.flush()
	stderr.flush()
	traceErr := trace.close()
	privateErr := keepPrivate(inv.OutputFile)
	if runErr != nil {
		return failed("harness %q cannot start: %v", h.Name, runErr)
	}

	output := harness.Output{
		Stdout:     stdout.all.Bytes(),
		Stderr:     stderr.all.Bytes(),
		ExitCode:   res.ExitCode,
		OutputFile: inv.OutputFile,
		Env:        env,
		Model:      inv.Model,
	}
	message, cause, bad := h.Final(output)
	r := Result{ExitCode: res.ExitCode, Result: message, Trace: sc.TraceFile, Session: h.SessionEnd(output), TimedOut: res.TimedOut}
	// A stop of the run itself is the run's, even when the session had
	// passed its cap meanwhile.
	passed := turns.Passed() && ctx.Err() == nil
	var spent error
	if sc.Meter != nil {
		spent = sc.Meter.After(inv.Resume, r.Session)
	}
	switch {
	case restoreErr != nil:
		r.Failed, r.Cause = true, fmt.Sprintf("the session made a commondir file in the repository, which sends git to another one, and cairn cannot remove it: %v", restoreErr)
	case len(restored) > 0:
		r.Failed, r.Cause = true, fmt.Sprintf("the session made %s, which sends git to another repository; cairn removed it", strings.Join(restored, ", "))
	case res.TimedOut:
		r.Failed, r.Cause = true, timeoutCause(sc)
	case passed:
		r.Failed, r.Cause = true, harness.TurnCause(inv.MaxTurns)
		r.Session.MaxTurns = true
	case res.Stopped:
		r.Failed, r.Cause = true, res.Cause(sc.Timeout)
	case spent != nil:
		r.Failed, r.Cause, r.Budget = true, spent.Error(), true
	case bad:
		r.Failed, r.Cause = true, cause
	case traceErr != nil:
		r.Failed, r.Cause = true, fmt.Sprintf("write the trace: %v", traceErr)
	case privateErr != nil:
		r.Failed, r.Cause = true, fmt.Sprintf("keep %s its owner's only: %v", inv.OutputFile, privateErr)
	}
	return r
}

// sessionData is what the prompt of a's session is rendered from.
func sessionData(sc *Context, a *ir.PlanAction, skillPath string) prompts.SessionData {
	d := prompts.SessionData{
		Process:      sc.Process(),
		Step:         itemName(sc),
		Date:         sc.date(),
		SkillPath:    skillPath,
		Prompt:       prompts.WithItem(a.Prompt, sc.Item),
		WorktreeKind: sc.WorktreeKind,
		WorktreePath: sc.Worktree,
		Directive:    sc.Directive,
		IssueURL:     sc.IssueURL,
		ResultFile:   sc.ResultFile,
	}
	if a.Skill != nil {
		d.Skill = a.Skill.Name
	}
	if sc.Step != nil && sc.Step.Output != nil && (a.Harness == nil || !harness.TakesOutputSchema(a.Harness.Value)) {
		// A CLI that takes the schema itself is held to it by its own
		// structured output.
		d.OutputSchema = sc.Step.Output.Schema
	}
	d.Outputs = sc.Outputs
	d.Item = string(sc.Item)
	d.IssueFile = sc.IssueFile()
	for _, e := range sc.Earlier {
		d.Earlier = append(d.Earlier, prompts.EarlierResult{Step: e.Step, Path: e.Path})
	}
	return d
}

// lastMessageFile is where a harness that writes its final message to a
// file (codex) writes it: beside the step's trace, traces/STEP.last-message.md.
func lastMessageFile(sc *Context) string {
	if sc.TraceFile != "" {
		return strings.TrimSuffix(sc.TraceFile, filepath.Ext(sc.TraceFile)) + ".last-message.md"
	}
	return filepath.Join(sc.RunDir, "traces", stepName(sc)+".last-message.md")
}

// filesDir is the folder of the files a session's command names (a
// policy), beside the step's trace: traces/STEP.files, made when the
// session starts and removed when it ends.
func filesDir(sc *Context) string {
	return strings.TrimSuffix(lastMessageFile(sc), ".last-message.md") + ".files"
}

// writeFiles writes files into dir, made afresh, both their owner's only.
func writeFiles(dir string, files []harness.File) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), []byte(f.Text), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// Trailers is the trailer paragraph, the last of its message, of a commit
// cairn makes in run: Cairn-Run, Cairn-Step when the commit is step's (""
// for the run's own), and Cairn-Stubbed: true in a stubbed run, whose
// agents' work is stubs' answers, no model's.
func Trailers(run, step string, stubbed bool) string {
	t := "Cairn-Run: " + run
	if step != "" {
		t += "\nCairn-Step: " + step
	}
	if stubbed {
		t += "\nCairn-Stubbed: true"
	}
	return t
}

// IssueFile is the path of the issue's text in the step's worktree (docs/design.md §7.8),
// when the run is on an issue and the file is there; "" otherwise.
func (sc *Context) IssueFile() string {
	if sc.IssueURL == "" {
		return ""
	}
	if f := filepath.Join(sc.Worktree, ir.IssueFile); fileExists(f) {
		return f
	}
	return ""
}

// fileExists reports whether path is a regular file.
func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// clearMessageFile removes what an earlier attempt left at path, the file a
// session's CLI writes its final message to, which must not pass for this
// session's. For a CLI that writes one (codex -o) it makes an empty file
// there, its owner's only: the CLI writes into it and keeps its mode,
// whatever its umask.
func clearMessageFile(path string, writes bool) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !writes {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// keepPrivate makes the file at path its owner's only again, when there is
// one: a CLI that replaced it made the new one by its umask.
func keepPrivate(path string) error {
	if err := os.Chmod(path, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// trace is a session's trace file (traces/STEP.jsonl): the CLI's stdout as
// it wrote it, and each line of its stderr as a JSON line {"stderr": LINE},
// so that a reader tells them apart and a CLI's JSON lines stay JSON lines.
// Lines of the two streams are written whole, never interleaved.
type trace struct {
	mu  sync.Mutex
	f   *os.File
	err error
}

// openTrace opens path for appending (a step's later sessions, such as
// review retries, add to it), readable by its owner only; an empty path
// keeps no trace.
func openTrace(path string) (*trace, error) {
	if path == "" {
		return &trace{}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &trace{f: f}, nil
}

// line writes one line of the CLI's output, ending in "\n".
func (t *trace) line(b []byte, stderr bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil || t.err != nil {
		return
	}
	if stderr {
		j, err := json.Marshal(struct {
			Stderr string `json:"stderr"`
		}{strings.TrimRight(string(b), "\r\n")})
		if err != nil {
			t.err = err
			return
		}
		b = append(j, '\n')
	}
	_, t.err = t.f.Write(b)
}

// close closes the file and returns the first error writing it.
func (t *trace) close() error {
	if t.f == nil {
		return nil
	}
	if err := t.f.Close(); t.err == nil {
		t.err = err
	}
	return t.err
}

// traceStream is one of a session's output streams: it keeps all of it for
// the harness to read the final message from, and passes it to the trace a
// line at a time.
type traceStream struct {
	trace   *trace
	stderr  bool
	all     bytes.Buffer
	pending []byte
}

var _ io.Writer = (*traceStream)(nil)

func (s *traceStream) Write(p []byte) (int, error) {
	s.all.Write(p)
	s.pending = append(s.pending, p...)
	for {
		i := bytes.IndexByte(s.pending, '\n')
		if i < 0 {
			break
		}
		s.trace.line(s.pending[:i+1], s.stderr)
		s.pending = s.pending[i+1:]
	}
	return len(p), nil
}

// flush writes what is left of an unfinished last line.
func (s *traceStream) flush() {
	if len(s.pending) > 0 {
		s.trace.line(append(s.pending, '\n'), s.stderr)
		s.pending = nil
	}
}

// itemName is the name of sc's step, STEP[N] for an item of a step with
// for_each: what its session's prompt calls it.
func itemName(sc *Context) string {
	if sc.Item != nil {
		return fmt.Sprintf("%s[%d]", stepName(sc), sc.ItemIndex)
	}
	return stepName(sc)
}
