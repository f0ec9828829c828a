// Package catalogue runs cairn's built-in catalogue steps (docs/design.md §7.8):
// delivery, self-merge and run-published-issue, reaching the run they are
// steps of, and its child runs, through Run.
package catalogue

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// Run is the run a catalogue step is a step of, as the step sees it. The
// runtime implements it, so that catalogue never imports the runtime.
type Run interface {
	// Plan is the run's plan.
	Plan() *ir.Plan
	// Issue is the issue the run works on; nil when it has none.
	Issue() *forge.Issue
	// Name is the run's name, which commits and pull requests name; Dir is
	// its folder.
	Name() string
	Dir() string
	// Note shows a line of the run's progress.
	Note(line string)
	// Warn shows an error that does not change how the step ends.
	Warn(err error)
	// SetPullRequest records the URL of the run's pull request, which its
	// notification names (docs/design.md §7.9).
	SetPullRequest(url string)
	// Session runs an agent session of a in the step's worktree as the
	// run's sessions run: on a's harness, with a's skill where the agent
	// reads it, once the machine has the resources, its full output kept
	// at trace. prompt is given the skill's path and returns the session's
	// prompt.
	Session(ctx context.Context, a *ir.PlanAction, trace string, prompt func(skillPath string) (string, error)) Result
	// OpenIssue reads the issue ref (a number or a URL) of the run's
	// repository through gh in env, with the config's trusted accounts.
	OpenIssue(ctx context.Context, ref string, env []string) (*forge.Issue, error)
	// StepStart is when the run's step name began, by its record; nil when
	// it has no recorded start.
	StepStart(name string) *time.Time
	// SetChildren records dirs, the folders of the child runs of the step
	// name, in its record.
	SetChildren(name string, dirs []string)
	// Children starts the run's child runs; nil when the run starts none.
	Children() Children
}

// Children starts the child runs of a run-published-issue step (docs/design.md §7.8).
type Children interface {
	// Prepare checks process for a child run on issue (its URL), as `cairn
	// run PROCESS issue ISSUE` would: it writes the check's diagnostics
	// to w, and returns the child's plan and its process file's bytes.
	Prepare(process, issue string, w io.Writer) (*ir.Plan, []byte, error)
	// Run runs plan, whose process file is source, as a child run: in the
	// run's folder (ChildrenDir), with the run's home, repository,
	// harnesses, directive and flags. Its results go to stdout and its
	// progress to stderr; started is told its folder as soon as it is
	// made. It returns how the child run ended.
	Run(ctx context.Context, plan *ir.Plan, source []byte, stdout, stderr io.Writer, started func(dir string)) (record.Status, error)
	// Jobs bounds how many child runs run at once; 0 runs them all.
	Jobs() int
}

// Step is the step of a run a catalogue action is, as the action sees it:
// the runtime makes it from its own context of the step.
type Step struct {
	Name string
	// Worktree is the name of the step's worktree, Kind its kind and Dir
	// the path the step runs in; Branch is an issue-branch worktree's
	// branch.
	Worktree string
	Kind     string
	Dir      string
	Branch   string
	// Env is the whole environment of the step's sessions (docs/design.md
	// §7.1), which gh runs in too; Git runs the repository's git.
	Env []string
	Git *git.Git
	// Timeout is the step's timeout; zero means none.
	Timeout time.Duration
	// Results are the result files of the steps before it, by step name.
	Results map[string]string
	// IssueFile is the path of the issue's text in the worktree; "" when
	// the run is on no issue or the file is not there.
	IssueFile string
	// Trailers are the trailers of the commits cairn makes for the step:
	// Cairn-Run, Cairn-Step.
	Trailers string
	// Excluded are the paths the worktree's copy and setup left, which no
	// commit of a repair's work takes.
	Excluded []string
}

// Result is how a catalogue action, or a session it ran (Run.Session),
// ended.
type Result struct {
	// Failed is set when it failed; Cause says why in one line, ExitCode
	// is what the step's record keeps (-1: no process's).
	Failed   bool
	Cause    string
	ExitCode int
	// Result is the action's result, or the session's final message.
	Result string
	// Trace is the path of a session's full output, "" when there is none.
	Trace string
	// TimedOut is set when the action ran past the step's timeout.
	TimedOut bool
}

// failure is a Result that failed, for the reason format says.
func failure(format string, args ...any) Result {
	return Result{Failed: true, ExitCode: -1, Cause: fmt.Sprintf(format, args...)}
}

// Execute runs a catalogue action (docs/design.md §7.8) of the step s of r: a step whose
// rules are cairn's, not the process file's.
func Execute(ctx context.Context, r Run, s *Step, a *ir.PlanAction) Result {
	switch a.Catalogue {
	case ir.Delivery:
		return deliver(ctx, r, s)
	case ir.SelfMerge:
		return selfMerge(ctx, r, s)
	case ir.RunPublishedIssue:
		return runPublishedIssue(ctx, r, s, a)
	}
	return failure("unknown catalogue step %q", a.Catalogue)
}

// issueBranch is what delivery and self-merge work on: the step's
// issue-branch worktree (its name and path), its branch, the base branch
// its pull request goes into, the forge of origin's repository in the
// step's environment, and the repository's git.
type issueBranch struct {
	worktree string
	dir      string
	branch   string
	base     string
	gh       forge.Forge
	git      *git.Git
}

// issueBranchOf is the issue branch of the step s of r, for the catalogue
// step what; an error says why there is none.
func issueBranchOf(r Run, s *Step, what string) (*issueBranch, error) {
	name := s.Worktree
	if s.Kind != ir.IssueBranch {
		return nil, fmt.Errorf("%s works on an issue-branch worktree, and worktree %q is a %s worktree", what, name, s.Kind)
	}
	is := r.Issue()
	if is == nil {
		return nil, fmt.Errorf("%s needs the run's issue; run the process on one (issue NUMBER)", what)
	}
	if s.Branch == "" {
		return nil, fmt.Errorf("%s: worktree %q has no branch", what, name)
	}
	base := ""
	for _, p := range r.Plan().Worktrees {
		if p.Name == name {
			base = p.Base
		}
	}
	if base == "" || base == "HEAD" {
		return nil, fmt.Errorf("%s: worktree %q has no base branch for the pull request to go into; set base_branch in the config", what, name)
	}
	return &issueBranch{worktree: name, dir: s.Dir, branch: s.Branch, base: base, gh: &forge.GH{Dir: s.Dir, Env: s.Env, Repo: is.Repo}, git: s.Git}, nil
}
