package load

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
	"github.com/cairn-dev/cairn/views"
)

// Runnable is a process `cairn run` may carry out: its plan, checked exactly
// as `cairn check` checks it (preflight on, and the rules that only warn from
// check refusing), with what the run needs besides.
type Runnable struct {
	Plan *ir.Plan
	// Source is the process file's bytes.
	Source    []byte
	Home      string
	Repo      *git.Repo
	Harnesses *harness.Registry
}

// ErrRefused is the error of a process check refuses: the report says why.
var ErrRefused = errors.New("refused")

// PrepareRun finds and checks the process target names for a run in dir,
// the directory cairn works in (as Open takes it), on issue when it is not
// empty, with o's options (a stubbed run, whose sessions no agent CLI
// answers, sets NoPreflight). It returns the report of the check (to show
// when the process is refused, or its warnings), and the runnable process,
// nil with ErrRefused when the check refused it. Outside a git repository
// it fails with the reason, and checks nothing.
func PrepareRun(ctx context.Context, dir, target, issue string, o Options) (*Runnable, *views.Report, error) {
	// A run asks git itself where the repository is and what its base
	// branch is: its worktrees, records and locks stand on the answer,
	// and it runs git anyway.
	repo, err := git.Discover(ctx, git.New(o.Env), workdir.Path(dir, "."))
	if err != nil {
		return nil, nil, err
	}
	if err := notTestFile(target); err != nil {
		return nil, nil, err
	}
	ws := open(dir, o, repo)
	ws.Env.Runtime = true
	r := ws.Check(ctx, []string{target}, issue)
	if r.Failed() || len(r.Plans) != 1 {
		return nil, r, ErrRefused
	}
	plan := r.Plans[0]
	return &Runnable{
		Plan:      plan,
		Source:    r.Sources[plan.File],
		Home:      ws.Env.Home,
		Repo:      ws.Env.Repo,
		Harnesses: ws.Env.Harnesses,
	}, r, nil
}

// notTestFile refuses a target that names one of cairn test's files, which
// check passes by with a note: it is no process to run or compile.
func notTestFile(target string) error {
	if parse.NotProcess(target) {
		return fmt.Errorf("%q is a file of cairn test (*%s, *%s), not a process; cairn test runs the test files", target, parse.TestSuffix, parse.StubsSuffix)
	}
	return nil
}
