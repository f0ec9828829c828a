package runtime

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/atomicfile"
	"github.com/cairn-dev/cairn/internal/text"
	"github.com/cairn-dev/cairn/internal/tracing"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
	"github.com/cairn-dev/cairn/step/prompts"
	"github.com/cairn-dev/cairn/stubs"
	"github.com/cairn-dev/cairn/views"
	"github.com/cairn-dev/cairn/worktree"
)

// The limits of a validate phase (docs/design.md §7.2).
const (
	// JudgeTurns is a judge's turn cap; the one retry of a judge that
	// reached no verdict gets twice as many.
	JudgeTurns = ir.DefaultJudgeTurns
	// JudgeTimeout is a judge session's timeout when its step sets none.
	JudgeTimeout = ir.JudgeTimeoutSeconds * time.Second
	// ReviewRetries is how many times severity "review" sends the run agent
	// back to work before the step fails.
	ReviewRetries = ir.ReviewRetries
)

// failure is what failed a round of validation: a validate shell (its
// script, output, exit code and record) or the judge's verdict (its
// reasoning). cause says it in one line.
type failure struct {
	shell     string
	output    []byte
	exitCode  int
	record    *record.ShellRecord
	reasoning string
	cause     string
}

// round is how one round of validation (the shells, then the judge) ended:
// what failed (with severity warn, every failure; else the first), or a
// judge that reached no verdict (inconclusive, its tag and what happened),
// or one that could not run at all (broken, why).
type round struct {
	failures     []failure
	inconclusive bool
	reason       string
	err          string
	broken       string
	// reasoning is the judge's, when it gave a verdict.
	reasoning string
	// lost is why the output of a shell could not be kept in the run
	// folder: the step's record would lack it.
	lost string
}

// precheck runs a step's precheck phase (docs/design.md §7.2), when it has one: its
// shells in order, each one's stdout and stderr kept in the run folder and
// listed in sr.Shells. A shell that exits $CHECK_SKIP skips the step;
// another that does not exit 0 fails it, the end of its output shown
// under the failure. done is set then, with how the step ends.
func (r *run) precheck(ctx context.Context, sc *step.Context, sr *record.StepRecord) (e stepEnd, done bool) {
	pre := sc.Step.Precheck
	if pre == nil {
		return stepEnd{}, false
	}
	for i, shell := range pre.Shells {
		run, rec, err := step.RecordShell(ctx, sc, step.PhaseShell{Phase: ir.PrecheckPhase, Shell: i + 1, Round: 1, Script: shell})
		skip := run.Proc.ExitCode == step.SkipCode && !run.Proc.TimedOut && !run.Proc.Stopped
		if skip {
			rec.Status, rec.Tail = record.ShellSkip, ""
		}
		sr.Shells = append(sr.Shells, rec)
		switch {
		case err != nil:
			return stepEnd{outcome: record.Failed, exitCode: -1, cause: "precheck: " + err.Error()}, true
		case run.OK():
			continue
		case skip:
			return stepEnd{outcome: record.Skipped, exitCode: step.SkipCode, cause: skipCause(pre, run.Output)}, true
		}
		r.showShell(ctx, sc, &sr.Shells[len(sr.Shells)-1])
		return stepEnd{outcome: record.Failed, exitCode: run.Proc.ExitCode, cause: "precheck: " + run.Cause}, true
	}
	return stepEnd{}, false
}

// showShell has the end of what s, the shell that failed its step, wrote
// shown under the step's line when it ends. A judge's failure has none (its
// reasoning is in the step's cause), nor has a stopped step.
func (r *run) showShell(ctx context.Context, sc *step.Context, s *record.ShellRecord) {
	if s != nil && ctx.Err() == nil {
		r.prog.Attach(sc.Step.Name, views.ShellLines(views.FailedShell(sc.RunDir, s)))
	}
}

// validate runs a step's validate phase after its run phase ended well
// (docs/design.md §7.2): its shells, then its instructions judged by a review model, gated
// by its severity: warn notes a failure and the step succeeds, abort fails
// the step, review sends the run agent back to work with the failure and
// validates again, up to ReviewRetries times. A judge that reaches no
// verdict twice makes the phase inconclusive, which fails nothing; one that
// cannot run at all fails the step. e is how the run phase ended; validate
// returns how the step ends, and records the phase in sr.Validate.
func (r *run) validate(ctx context.Context, sc *step.Context, wt worktree.Worktree, sr *record.StepRecord, e stepEnd) stepEnd {
	v := sc.Step.Validate
	name := sc.Step.Name
	rec := &record.ValidateRecord{}
	sr.Validate = rec
	failed := func(exitCode int, cause string) stepEnd {
		e.outcome, e.exitCode, e.cause = record.Failed, exitCode, cause
		return e
	}
	for {
		rd := r.check(ctx, sc, sr, rec, e.result)
		rec.Reasoning = rd.reasoning
		switch {
		case ctx.Err() != nil:
			// Stopped, not judged: the phase has no verdict to record.
			sr.Validate = nil
			return failed(-1, "validate: stopped")
		case rd.lost != "":
			rec.Status, rec.Error = record.VerdictFail, rd.lost
			return failed(-1, "validate: "+rd.lost)
		case rd.broken != "":
			rec.Status, rec.Error = record.VerdictFail, rd.broken
			return failed(-1, "validate: the judge could not run: "+rd.broken)
		case rd.inconclusive:
			rec.Status, rec.Reason, rec.Error = record.VerdictInconclusive, rd.reason, rd.err
			for _, f := range rd.failures {
				// Shells that failed before the judge, with severity warn.
				r.warnFailed(sc, f)
			}
			r.prog.Note(fmt.Sprintf("%s: the judge reached no verdict again (%s: %s): the step is inconclusive", name, rd.reason, rd.err))
			e.outcome, e.cause = record.Inconclusive, fmt.Sprintf("validate: the judge reached no verdict (%s: %s)", rd.reason, rd.err)
			return e
		case len(rd.failures) == 0:
			rec.Status, rec.Error = record.VerdictPass, ""
			e.outcome = record.Succeeded
			return e
		}
		first := rd.failures[0]
		rec.Status, rec.Error = record.VerdictFail, first.cause
		switch v.Severity {
		case ir.SeverityWarn:
			for _, f := range rd.failures {
				r.warnFailed(sc, f)
			}
			e.outcome = record.Succeeded
			return e
		case ir.SeverityReview:
			if rec.Retries == ReviewRetries {
				r.showShell(ctx, sc, first.record)
				return failed(first.exitCode, fmt.Sprintf("validate: still failing after %d review retries: %s", ReviewRetries, first.cause))
			}
			rec.Retries++
			r.prog.Note(fmt.Sprintf("%s: review retry %d of %d: validate: %s", name, rec.Retries, ReviewRetries, first.cause))
			if cause := r.review(ctx, sc, wt, sr, &e, first, rec.Retries); cause != "" {
				return failed(e.exitCode, cause)
			}
			continue
		}
		r.showShell(ctx, sc, first.record)
		return failed(first.exitCode, "validate: "+first.cause)
	}
}

// warnFailed shows a check that failed with severity warn, and under it,
// for a shell, the end of what it wrote.
func (r *run) warnFailed(sc *step.Context, f failure) {
	if f.record == nil {
		r.warnStep(sc.Step.Name, "validate: "+f.cause)
		return
	}
	msg := fmt.Sprintf("warning: step %s: validate: %s", sc.Step.Name, f.cause)
	r.prog.NoteLines(msg, views.ShellLines(views.FailedShell(sc.RunDir, f.record)))
	r.folder.Tell(record.RunEvent{Type: record.EventWarning, Step: sc.Step.Name, Message: "validate: " + f.cause})
}

// check runs one round of a validate phase: its shells in order (all of
// them with severity warn; else up to the first that fails), each one's
// stdout and stderr kept in the run folder and listed in sr.Shells, then,
// when none failed or the severity is warn, its judge.
func (r *run) check(ctx context.Context, sc *step.Context, sr *record.StepRecord, rec *record.ValidateRecord, result string) round {
	v := sc.Step.Validate
	var rd round
	for i, shell := range v.Shells {
		run, srec, err := step.RecordShell(ctx, sc, step.PhaseShell{Phase: ir.ValidatePhase, Shell: i + 1, Round: rec.Retries + 1, Script: shell})
		sr.Shells = append(sr.Shells, srec)
		if err != nil {
			rd.lost = err.Error()
			return rd
		}
		if run.OK() {
			continue
		}
		rd.failures = append(rd.failures, failure{shell: shell, output: run.Output, exitCode: run.Proc.ExitCode, record: &srec, cause: run.Cause})
		if ctx.Err() != nil || v.Severity != ir.SeverityWarn {
			return rd
		}
	}
	if len(v.Instructions) == 0 || ctx.Err() != nil {
		return rd
	}
	j := r.judge(ctx, sc, rec, result)
	rd.inconclusive, rd.reason, rd.err, rd.broken = j.inconclusive, j.reason, j.err, j.broken
	rd.reasoning = j.reasoning
	if j.verdict == record.VerdictFail {
		rd.failures = append(rd.failures, failure{
			exitCode:  -1,
			reasoning: j.reasoning,
			cause:     "the judge failed it: " + oneLine(orDefault(j.reasoning, "no reasoning given")),
		})
	}
	return rd
}

// judgement is how a judge ended: its verdict (pass or fail) and reasoning,
// or no verdict (inconclusive, with its reason tag and what happened), or
// broken: the judge's harness could not run a session at all.
type judgement struct {
	verdict      string
	reasoning    string
	inconclusive bool
	reason       string
	err          string
	broken       string
}

// judge has a validate phase's instructions judged (docs/design.md §7.2): a session of the
// plan's judge harness and model, with JudgeTurns turns, in the step's
// worktree, reads the instructions, the whys, the step's result (its start,
// and the file that holds all of it) and its whole diff, and
// ends its final message with a JSON verdict. A judge that reaches none is
// retried once in a fresh session with twice the turns. Each session keeps
// its own trace, traces/STEP.judge-N.jsonl, and counts in rec.Judges.
func (r *run) judge(ctx context.Context, sc *step.Context, rec *record.ValidateRecord, result string) judgement {
	v := sc.Step.Validate
	name := sc.Step.Name
	if v.Harness == nil {
		return judgement{broken: "the plan names no harness for it"}
	}
	h, ok := r.o.Harnesses.Lookup(v.Harness.Value)
	if !ok {
		return judgement{broken: fmt.Sprintf("unknown harness %q", v.Harness.Value)}
	}
	diff, cut, err := worktree.Diff(ctx, r.o.Repo.Git, sc.Worktree, sc.Baseline, prompts.MaxDiff)
	if err != nil {
		return judgement{broken: fmt.Sprintf("read the step's diff: %v", err)}
	}
	// The judge may read the whole result: the file holds it already, as
	// it will when the step ends.
	if err := atomicfile.Write(sc.ResultFile, []byte(result)); err != nil {
		return judgement{broken: fmt.Sprintf("write the step's result for it: %v", err)}
	}
	shown, resultCut := text.Head(result, prompts.MaxJudgedResult)
	prompt, err := prompts.JudgePrompt(prompts.JudgeData{
		Process:      sc.Process(),
		Step:         name,
		WorktreePath: sc.Worktree,
		Instructions: v.Instructions,
		Whys:         v.Whys,
		Baseline:     sc.Baseline,
		Diff:         diff,
		Cut:          cut,
		Limit:        prompts.DiffLimit,
		Result:       shown,
		ResultFile:   sc.ResultFile,
		ResultCut:    resultCut,
		ResultLimit:  prompts.JudgedResultLimit,
	})
	if err != nil {
		return judgement{broken: err.Error()}
	}
	js := *sc
	if js.Timeout <= 0 {
		js.Timeout = JudgeTimeout
	}
	if m, ok := sc.Meter.(*spendingMeter); ok {
		// The judge's sessions are also the judges' share.
		js.Meter = m.s.meter(true)
	}
	if sa, ok := sc.Agent.(*stubs.Step); ok {
		// A stubbed step's judge gives the verdict of the attempt it
		// judges.
		js.Agent = sa.Judge()
	}
	var j judgement
	for attempt := 1; attempt <= 2; attempt++ {
		if err := r.waitMachine(ctx, name); err != nil {
			return judgement{broken: err.Error()}
		}
		rec.Judges++
		// Beside the step's trace (an item's: traces/STEP/N.judge-N.jsonl).
		js.TraceFile = strings.TrimSuffix(sc.TraceFile, ".jsonl") + fmt.Sprintf(".judge-%d.jsonl", rec.Judges)
		turns := JudgeTurns * attempt
		// A judge reads the work and must not change it: read, the
		// plan's judge access, also when a plan names none.
		inv := harness.Invocation{Prompt: prompt, MaxTurns: turns, Access: ir.JudgeAccess}
		if v.Model != nil {
			inv.Model = v.Model.Value
		}
		if v.Access != nil {
			inv.Access = v.Access.Value
		}
		// A judge reads the work and must not change it: whatever it
		// leaves is undone before the step goes on (docs/design.md §7.2).
		before, err := worktree.TakeState(ctx, r.o.Repo.Git, sc.Worktree)
		if err != nil {
			return judgement{broken: fmt.Sprintf("record the worktree before the judge: %v", err)}
		}
		res := step.RunPrompt(tracing.As(ctx, "judge"), &js, h, inv)
		// Undone even when the run was interrupted meanwhile.
		if what, err := before.Restore(context.WithoutCancel(ctx)); err != nil {
			return judgement{broken: fmt.Sprintf("undo what the judge changed in the worktree: %v", err)}
		} else if what != "" {
			r.warnStep(name, fmt.Sprintf("the judge changed the work (%s); cairn undid it", what))
		}
		if ctx.Err() != nil {
			return judgement{}
		}
		j = judged(res, turns)
		if !j.inconclusive {
			return j
		}
		if attempt == 1 {
			r.prog.Note(fmt.Sprintf("%s: the judge reached no verdict (%s: %s); retrying once in a fresh session with %d turns", name, j.reason, j.err, 2*turns))
		}
	}
	return j
}

// judged reads how one judge session ended from its result: a verdict, or
// why there was none.
func judged(res step.Result, turns int) judgement {
	if res.Budget {
		// The run or the step spent its budget: no judge runs again.
		return judgement{broken: res.Cause}
	}
	if !res.Failed {
		if pass, reasoning, ok := ParseVerdict(res.Result); ok {
			j := judgement{verdict: record.VerdictFail, reasoning: reasoning}
			if pass {
				j.verdict = record.VerdictPass
			}
			return j
		}
	}
	j := judgement{inconclusive: true}
	switch {
	case res.TimedOut:
		j.reason, j.err = record.ReasonTimeout, res.Cause
	case res.Session.MaxTurns:
		j.reason, j.err = record.ReasonMaxTurns, fmt.Sprintf("reached its turn cap (%d)", turns)
	case res.Failed && !res.Session.Worked:
		// Nothing answered: the harness could not start a session (no
		// credentials, a model it refused). Validation did not run.
		return judgement{broken: res.Cause}
	case res.Failed:
		j.reason, j.err = record.ReasonUnknown, res.Cause
	case strings.TrimSpace(res.Result) == "":
		j.reason, j.err = record.ReasonNoStructuredOutput, "its final message was empty"
	default:
		j.reason, j.err = record.ReasonNoStructuredOutput, "its final message holds no JSON verdict"
	}
	return j
}

// ParseVerdict reads a judge's verdict from its final message, as
// harness.ReadVerdict does (the jq a compiled script reads it with): the
// whole message as a JSON object, else the last ```json (or bare ```)
// fence holding one, else the last {…} object in the text with a
// "verdict" key. The verdict is "pass" or "fail" (in any case); ok is
// false when no such object is found.
func ParseVerdict(msg string) (pass bool, reasoning string, ok bool) {
	return harness.ReadVerdict(msg)
}

// review sends a step's run agent back to work after failure f (severity
// "review", docs/design.md §7.2): its session is resumed with a <validation-failure>
// block where its harness can, else a fresh one gets the step's prompt and
// the block. The new final message is the step's result; the worktree is
// then settled. It returns the step's cause when the retry failed, "" when
// the step goes on to validate again.
func (r *run) review(ctx context.Context, sc *step.Context, wt worktree.Worktree, sr *record.StepRecord, e *stepEnd, f failure, retry int) string {
	e.exitCode = -1
	var a *ir.PlanAction
	j := -1
	for i := range sc.Step.Actions {
		if sc.Step.Actions[i].Kind == ir.Session {
			if a != nil {
				return `validate: severity "review" needs exactly one session action to send back to work; the step has more`
			}
			a, j = &sc.Step.Actions[i], i
		}
	}
	if a == nil {
		return `validate: severity "review" needs a session action to send back to work; the step has none`
	}
	if a.Harness == nil {
		return fmt.Sprintf("validate: review retry %d: the session has no harness", retry)
	}
	h, ok := r.o.Harnesses.Lookup(a.Harness.Value)
	if !ok {
		return fmt.Sprintf("validate: review retry %d: unknown harness %q", retry, a.Harness.Value)
	}
	v := sc.Step.Validate
	d := prompts.ReviewData{
		Process:   sc.Process(),
		Step:      sc.Step.Name,
		Retry:     retry,
		Retries:   ReviewRetries,
		Shell:     f.shell,
		Reasoning: f.reasoning,
		Whys:      v.Whys,
	}
	if f.shell != "" {
		d.Cause = f.cause
		d.Output, d.Cut = text.Tail(f.output, prompts.MaxShellOutput)
		d.Limit = prompts.ShellOutputLimit
	} else {
		d.Instructions = v.Instructions
	}
	resume := ""
	if h.CanResume() && e.session != "" {
		resume = e.session
	} else {
		skill, err := r.skillPath(ctx, wt, a.Skill)
		if err != nil {
			return fmt.Sprintf("validate: review retry %d: %v", retry, err)
		}
		if d.Original, err = step.SessionPrompt(sc, a, skill); err != nil {
			return fmt.Sprintf("validate: review retry %d: %v", retry, err)
		}
	}
	prompt, err := prompts.ReviewPrompt(d)
	if err != nil {
		return fmt.Sprintf("validate: review retry %d: %v", retry, err)
	}
	if err := r.waitMachine(ctx, sc.Step.Name); err != nil {
		return fmt.Sprintf("validate: review retry %d: %v", retry, err)
	}
	inv := step.Invocation(a, prompt)
	inv.Resume = resume
	res := step.RunPrompt(tracing.As(ctx, "review"), sc, h, inv)
	if j < len(sr.Actions) {
		sr.Actions[j].ExitCode, sr.Actions[j].Cause = res.ExitCode, res.Cause
	}
	e.exitCode = res.ExitCode
	if res.Trace != "" {
		e.trace = res.Trace
	}
	if res.Session.ID != "" {
		e.session = res.Session.ID
	}
	if res.Failed {
		return fmt.Sprintf("validate: review retry %d: %s", retry, res.Cause)
	}
	e.result, e.wrote = res.Result, true
	if err := r.settle(ctx, sc, wt, sr, true); err != nil {
		return err.Error()
	}
	return ""
}

// maxReasoning is how many characters of a judge's reasoning a step's cause
// keeps.
const maxReasoning = 400

// oneLine folds s onto one line and clips it to maxReasoning characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxReasoning {
		return s
	}
	return string([]rune(s)[:maxReasoning-1]) + "…"
}

// orDefault is s, or def when s is blank.
func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
