// Package step runs one action of a step, a shell command or an agent
// session, in its worktree with its environment, keeping its shells'
// output and its session's trace in the run folder (docs/design.md §7.1).
package step

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
)

// Result is what running one action of a step produced.
type Result struct {
	// Failed is set when the action failed; Cause says why in one line
	// ("exit status 3", "timed out after 45m", "Not logged in · Please run
	// /login").
	Failed   bool
	Cause    string
	ExitCode int
	// Result is the action's result: a command's output (or what it wrote
	// to $CAIRN_RESULT), a session's final message.
	Result string
	// Lines counts the lines a failed command wrote (stdout and stderr
	// together), and Tail is the last of them, safe to print, as a failed
	// shell's record keeps them; OutputIsResult says Result holds that
	// output (the script wrote no $CAIRN_RESULT).
	Lines          int
	Tail           string
	OutputIsResult bool
	// Trace is the path of the session's full output, when there is one.
	Trace string
	// Session is how a session's CLI ended: its session's id, whether it
	// reached its turn cap, whether the agent worked at all.
	Session harness.SessionEnd
	// TimedOut is set when the action ran past its timeout.
	TimedOut bool
	// Budget is set when a budget stopped the session (Context.Meter):
	// before it started, or as it ended.
	Budget bool
}

// Earlier is an earlier step's result file, named in later sessions'
// prompts and available to later commands in $CAIRN_RESULTS.
type Earlier struct {
	Step string
	Path string
}

// Context is what an action runs with: its run folder, its step, the
// worktree it runs in, the results of the steps before it, and the
// environment of docs/design.md §7.1.
type Context struct {
	// RunDir is the run folder; ResultFile is this step's
	// results/STEP.md; TraceFile is this step's traces/STEP.jsonl.
	RunDir     string
	ResultFile string
	TraceFile  string
	Step       *ir.PlanStep
	// Worktree is the path the step runs in; WorktreeKind its kind;
	// Branch, an issue-branch worktree's branch.
	Worktree     string
	WorktreeKind string
	Branch       string
	Earlier      []Earlier
	Directive    string
	IssueURL     string
	// Start is when the step started, by the run's clock: its session's
	// prompt tells the agent the date.
	Start time.Time
	// Env is the whole environment of the step's sessions: the user's
	// own, then docs/design.md §7.1's CAIRN_* and CHECK_SKIP, then the step's env. Its
	// shells get it less the agents' keys (ShellEnv).
	Env []string
	// Git runs the git cairn runs for the step (a commit of what it left,
	// a delivery's pushes): the repository's.
	Git *git.Git
	// Timeout is the step's timeout; zero means none.
	Timeout time.Duration
	// Baseline is the commit the worktree was at when the step started
	// ("" in a repository with no commits): the step's whole diff, which a
	// judge reads, is everything since (docs/design.md §7.2).
	Baseline string
	// Guard, when set, is called before every session of the step, the
	// judge's and review retries' included; its error fails the session
	// before it starts (docs/design.md §7.8: an issue edited by an untrusted account).
	Guard func(context.Context) error
	// Groups records the process groups of the step's shells and
	// sessions while they run.
	Groups *proc.Groups
	// Meter, when set, keeps what the step's sessions spend against the
	// run's and the step's budgets: asked before every session of the
	// step (the judge's, review retries' and repairs' included), told
	// how each ended.
	Meter Meter
	// Outputs is set when a step of the run's process declares a typed
	// output (its sessions' prompts say where outputs are saved).
	Outputs bool
	// Agent, when set, answers the step's sessions instead of their
	// harnesses' CLIs, which never start: a stubbed run's.
	Agent Agent
	// Item is the item, JSON, of a run of a step with for_each, and
	// ItemIndex its place in the list; Item is nil for any other step.
	// Its sessions' prompts hold it, and {{ item }} in the step's prompt
	// is it.
	Item      []byte
	ItemIndex int
}

// Meter keeps what a step's sessions spend (the runtime's, for the
// budgets of docs/design.md §6.3). Before is asked before a session starts: it returns
// what the session may still spend in US dollars (0: no budget), or the
// error, "budget spent: $4.02 of $4.00", that fails it before it starts.
// After is told how the session ended, with what it used, and the id of
// the CLI session it resumed ("" for a fresh one), whose earlier runs a CLI
// may count again; its error fails the session when it spent the budget,
// or its CLI stopped it at the budget it was given.
type Meter interface {
	Before() (float64, error)
	After(resumed string, end harness.SessionEnd) error
}

// Failed is an action that failed before it ran anything, for the cause
// format says.
func Failed(format string, args ...any) Result {
	return Result{Failed: true, ExitCode: -1, Cause: fmt.Sprintf(format, args...)}
}

// Process is the name of the process sc's run runs: its run folder is
// PROCESS_YYYY-MM-DDTHHMMSSZ[-N], and process names hold no "_".
func (sc *Context) Process() string {
	name, _, _ := strings.Cut(filepath.Base(sc.RunDir), "_")
	return name
}

// date is the day the step started in the machine's time zone, as a
// session's prompt says it: 2026-01-02.
func (sc *Context) date() string {
	return sc.Start.Local().Format(time.DateOnly)
}
