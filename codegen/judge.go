package codegen

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/step/prompts"
)

// The script's variables the slots of a judge's and a review retry's
// prompts stand for (bash/judge.sh.tmpl, bash/review.sh.tmpl).
const (
	varBaseline      = "step_baseline"
	varJudgeResult   = "judge_result"
	varJudgeDiff     = "judge_diff"
	varDiffFence     = "judge_fence"
	varResultFence   = "judge_result_fence"
	varSession       = "session_id"
	varRetry         = "review_retry"
	varReviewShell   = "review_shell"
	varReviewCause   = "review_cause"
	varReviewOutput  = "review_output"
	varReviewReason  = "review_reasoning"
	varReviewPrompt  = "review_original"
	varReviewFence   = "review_fence"
	judgeAttempts    = 2
	judgeTimeoutText = "15m0s"
)

// factored is a family of texts, text[i][j] = Head + Rows[i] + Cols[j] +
// Tail, as script words: the script composes the one it needs.
type factored struct {
	Head, Tail BashWord
	Rows, Cols []BashWord
}

// factor finds texts (rendered with the slots of s) as factored: what all
// start and end with said once, the rest the row's part then the column's.
// No cut falls inside a slot's marker. It fails when the texts are not so
// made.
func factor(s slotSet, texts [][]string) (factored, error) {
	var all []string
	for _, row := range texts {
		all = append(all, row...)
	}
	head := len(all[0])
	for _, t := range all[1:] {
		head = min(head, commonPrefix(all[0], t))
	}
	for head > 0 && inMarker(all[0], head) {
		head--
	}
	tail := len(all[0]) - head
	for _, t := range all {
		tail = min(tail, commonSuffix(all[0], t), len(t)-head)
	}
	for tail > 0 && inMarker(all[0], len(all[0])-tail) {
		tail--
	}
	mid := func(t string) string { return t[head : len(t)-tail] }
	rows := make([]string, len(texts))
	for i, row := range texts {
		n := len(mid(row[0]))
		for _, t := range row[1:] {
			n = min(n, commonPrefix(mid(row[0]), mid(t)))
		}
		for n > 0 && inMarker(mid(row[0]), n) {
			n--
		}
		rows[i] = mid(row[0])[:n]
	}
	cols := make([]string, len(texts[0]))
	for j, t := range texts[0] {
		cols[j] = mid(t)[len(rows[0]):]
	}
	for i, row := range texts {
		for j, t := range row {
			if mid(t) != rows[i]+cols[j] {
				return factored{}, fmt.Errorf("its variant %d.%d is not its parts composed", i, j)
			}
		}
	}
	var f factored
	var err error
	if f.Head, err = s.word(all[0][:head]); err != nil {
		return factored{}, err
	}
	if f.Tail, err = s.word(all[0][len(all[0])-tail:]); err != nil {
		return factored{}, err
	}
	for _, list := range []struct {
		from []string
		into *[]BashWord
	}{{rows, &f.Rows}, {cols, &f.Cols}} {
		for _, t := range list.from {
			w, err := s.word(t)
			if err != nil {
				return factored{}, err
			}
			*list.into = append(*list.into, w)
		}
	}
	return f, nil
}

// judgePrompt renders the prompt of a validate phase's judge through
// prompts.JudgePrompt (as `cairn run` does) for the script to compose at
// run time: the step's result empty, shown or cut (the rows), by its diff
// empty, shown or cut, each without and with a baseline (the columns),
// with the worktree, the result file, the result's and the diff's text,
// their fences and the baseline as slots.
func judgePrompt(d prompts.JudgeData) (factored, error) {
	s := newSlots("j", varWorktree, varResult, varJudgeResult, varJudgeDiff, varDiffFence, varResultFence, varBaseline)
	d.WorktreePath, d.ResultFile = s.marker(varWorktree), s.marker(varResult)
	d.Fence, d.ResultFence = s.marker(varDiffFence), s.marker(varResultFence)
	d.Limit, d.ResultLimit = prompts.DiffLimit, prompts.JudgedResultLimit
	var texts [][]string
	for r := range 3 {
		d.Result, d.ResultCut = "", r == 2
		if r > 0 {
			d.Result = s.marker(varJudgeResult)
		}
		var row []string
		for c := range 6 {
			diff, base := c/2, c%2
			d.Diff, d.Cut, d.Baseline = "", diff == 2, ""
			if diff > 0 {
				d.Diff = s.marker(varJudgeDiff)
			}
			if base == 1 {
				d.Baseline = s.marker(varBaseline)
			}
			t, err := prompts.JudgePrompt(d)
			if err != nil {
				return factored{}, err
			}
			row = append(row, t)
		}
		texts = append(texts, row)
	}
	return factor(s, texts)
}

// reviewPrompt renders the prompt of a review retry through
// prompts.ReviewPrompt (as `cairn run` does) for the script to compose at
// run time: the agent's session resumed, or a fresh one given the step's
// prompt (the rows), by what failed: a shell that wrote nothing, one whose
// output is shown or cut, or the judge (the columns), with the retry, the
// shell, its cause, output and fence, the judge's reasoning and the step's
// prompt as slots.
func reviewPrompt(d prompts.ReviewData) (factored, error) {
	s := newSlots("r", varRetry, varReviewShell, varReviewCause, varReviewOutput, varReviewReason, varReviewPrompt, varReviewFence)
	d.Retries, d.Limit, d.Fence = ir.ReviewRetries, prompts.ShellOutputLimit, s.marker(varReviewFence)
	instructions := d.Instructions
	var texts [][]string
	for fresh := range 2 {
		d.Original = ""
		if fresh == 1 {
			d.Original = s.marker(varReviewPrompt)
		}
		var row []string
		for k := range 4 {
			d.Shell, d.Cause, d.Output, d.Cut, d.Reasoning, d.Instructions = "", "", "", k == 2, "", nil
			if k < 3 {
				d.Shell, d.Cause = s.marker(varReviewShell), s.marker(varReviewCause)
			} else {
				d.Reasoning, d.Instructions = s.marker(varReviewReason), instructions
			}
			if k == 1 || k == 2 {
				d.Output = s.marker(varReviewOutput)
			}
			// The retry is a number the script counts.
			t, err := numberSlot(s.marker(varRetry), func(retry int) (string, error) {
				d.Retry = retry
				return prompts.ReviewPrompt(d)
			})
			if err != nil {
				return factored{}, err
			}
			row = append(row, t)
		}
		texts = append(texts, row)
	}
	return factor(s, texts)
}

// numberSlot renders a text with a number as marker: rendered with two
// numbers no process can reach, whose digits it then replaces.
func numberSlot(marker string, render func(n int) (string, error)) (string, error) {
	const a, b = 918273645, 546372819
	ta, err := render(a)
	if err != nil {
		return "", err
	}
	tb, err := render(b)
	if err != nil {
		return "", err
	}
	out := strings.ReplaceAll(ta, fmt.Sprint(a), marker)
	if strings.ReplaceAll(tb, fmt.Sprint(b), marker) != out {
		return "", errStray
	}
	return out, nil
}

// scriptJudge is a step's judge: the function that sets its prompt's parts
// (Prompt), and the CLIs of its sessions, the first's and the retry's
// (with twice the turns).
type scriptJudge struct {
	Prompt factored
	CLIs   []*scriptCLI
	// Timeout and TimeoutText are the judge's timeout when its step sets
	// none.
	Timeout     int
	TimeoutText string
}

// scriptReview is what sends a step's agent back to work (severity
// "review"): the prompt's parts, the index of its session action among the
// step's actions, and its CLI resumed (Resume: nil when its harness cannot
// resume a session; the step's session CLI then starts afresh).
type scriptReview struct {
	Prompt factored
	Action int
	Resume *scriptCLI
	// Fresh is the CLI of the step's session, started afresh.
	Fresh *scriptCLI
}

// addCLI is cli, one of s.CLIs: the one alike when s has it, else cli
// named and added.
func (s *script) addCLI(cli *scriptCLI) *scriptCLI {
	i := slices.IndexFunc(s.CLIs, func(k *scriptCLI) bool { named := *cli; named.Name = k.Name; return reflect.DeepEqual(&named, k) })
	if i < 0 {
		i = len(s.CLIs)
		cli.Name = fmt.Sprintf("session_cli_%d", i+1)
		s.CLIs = append(s.CLIs, cli)
	}
	return s.CLIs[i]
}

// judge is the script's judge of st's validate phase, added to ss.
func (c *compiler) judge(st *ir.PlanStep, ss *scriptStep, s *script) []ir.Diagnostic {
	v := st.Validate
	refuse := func(format string, args ...any) []ir.Diagnostic {
		return []ir.Diagnostic{notCompilable(c.at.step(st.Name), format, args...)}
	}
	if v.Harness == nil {
		return refuse("step %q: the judge has no harness", st.Name)
	}
	h, ok := c.in.Harnesses.Lookup(v.Harness.Value)
	if !ok {
		return refuse("step %q: the judge's harness %q is unknown", st.Name, v.Harness.Value)
	}
	p, err := judgePrompt(prompts.JudgeData{Process: c.plan.Process, Step: st.Name, Instructions: v.Instructions, Whys: v.Whys})
	if err != nil {
		return refuse("step %q: the judge's prompt cannot be compiled: %v", st.Name, err)
	}
	j := &scriptJudge{Prompt: p, Timeout: ir.JudgeTimeoutSeconds, TimeoutText: judgeTimeoutText}
	for attempt := 1; attempt <= judgeAttempts; attempt++ {
		inv := harness.Invocation{MaxTurns: ir.DefaultJudgeTurns * attempt, Access: ir.JudgeAccess, Model: settingValue(v.Model)}
		if v.Access != nil {
			inv.Access = v.Access.Value
		}
		cli, err := c.cli(h, inv)
		if err != nil {
			return refuse("step %q: the judge's command cannot be compiled: %v", st.Name, err)
		}
		j.CLIs = append(j.CLIs, s.addCLI(cli))
	}
	ss.Judge = j
	s.Bins = appendDistinct(s.Bins, j.CLIs[0].Bin)
	s.addHarness(h.Name, j.CLIs[0].Bin)
	return nil
}

// review is the script's review retry of st, added to ss: the session
// action sess (the j-th of st) resumed.
func (c *compiler) review(st *ir.PlanStep, ss *scriptStep, s *script) []ir.Diagnostic {
	refuse := func(format string, args ...any) []ir.Diagnostic {
		return []ir.Diagnostic{notCompilable(c.at.step(st.Name), format, args...)}
	}
	j := -1
	for i, a := range ss.Actions {
		if a.Session != nil {
			if j >= 0 {
				return refuse(`step %q: severity "review" needs exactly one session action to send back to work; the step has more`, st.Name)
			}
			j = i
		}
	}
	if j < 0 {
		return refuse(`step %q: severity "review" needs a session action to send back to work; the step has none`, st.Name)
	}
	v := st.Validate
	p, err := reviewPrompt(prompts.ReviewData{Process: c.plan.Process, Step: st.Name, Whys: v.Whys, Instructions: v.Instructions})
	if err != nil {
		return refuse("step %q: the review retry's prompt cannot be compiled: %v", st.Name, err)
	}
	r := &scriptReview{Prompt: p, Action: ss.Actions[j].Index, Fresh: ss.Actions[j].Session.CLI}
	a := &st.Actions[ss.Actions[j].Index]
	h, _ := c.in.Harnesses.Lookup(a.Harness.Value)
	if h.CanResume() {
		cli, err := c.cli(h, sessionInvocation(a, varSession))
		if err != nil {
			return refuse("step %q: the command that resumes its session cannot be compiled: %v", st.Name, err)
		}
		r.Resume = s.addCLI(cli)
	}
	ss.Review = r
	return nil
}

// VerdictJQ is the jq that reads a judge's verdict (harness.VerdictJQ).
func (s *script) VerdictJQ() string { return harness.VerdictJQ() }

// JudgeTurns is a judge's turn cap, doubled for its retry.
func (s *script) JudgeTurns() int { return ir.DefaultJudgeTurns }

// JudgeTimeout and JudgeTimeoutText are a judge's timeout, in seconds and
// as cairn words it, when its step sets none.
func (s *script) JudgeTimeout() int        { return ir.JudgeTimeoutSeconds }
func (s *script) JudgeTimeoutText() string { return judgeTimeoutText }

// ReviewRetries is the most review retries of a step.
func (s *script) ReviewRetries() int { return ir.ReviewRetries }

// MaxJudgedResult, MaxDiff and MaxShellOutput are how much of a step's
// result, of its diff and of a failed shell's output the prompts hold.
func (s *script) MaxJudgedResult() int { return prompts.MaxJudgedResult }
func (s *script) MaxDiff() int         { return prompts.MaxDiff }
func (s *script) MaxShellOutput() int  { return prompts.MaxShellOutput }

// errResume is the error of a harness whose command resumes no session.
var errResume = errors.New("its command does not resume the session")
