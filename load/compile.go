package load

import (
	"context"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/views"
)

// Compilable is a process `cairn compile` may render: its plan, checked as
// `cairn check --no-preflight` checks it (the script preflights its agent
// CLIs where it runs), and the file as parsed, whose ranges its refusals
// point at.
type Compilable struct {
	Plan      *ir.Plan
	Process   *ir.Process
	Harnesses *harness.Registry
	// RepoRoot is the top of the repository's working tree, which the
	// script records its process file relative to.
	RepoRoot string
}

// PrepareCompile finds and checks the process target names, in dir, the
// directory cairn works in (as Open takes it), for compiling. It returns the report of the check
// (its diagnostics and the files' bytes, to show refusals with), and the
// compilable process, nil with ErrRefused when the check refused it. flags
// are the command line's settings the script bakes in (--access); env is
// cairn's environment. Outside a git repository it fails with the reason,
// and checks nothing.
func PrepareCompile(ctx context.Context, dir, target string, flags check.Flags, env []string) (*Compilable, *views.Report, error) {
	// As a run does, compiling asks git itself: the script it writes
	// records the repository's root.
	repo, err := git.Discover(ctx, git.New(env), workdir.Path(dir, "."))
	if err != nil {
		return nil, nil, err
	}
	if err := notTestFile(target); err != nil {
		return nil, nil, err
	}
	ws := open(dir, Options{NoPreflight: true, Flags: flags, Env: env}, repo)
	r := ws.Check(ctx, []string{target}, "")
	if r.Failed() || len(r.Plans) != 1 {
		return nil, r, ErrRefused
	}
	plan := r.Plans[0]
	// The plan keeps no ranges: the file is parsed again for them.
	_, p, _ := ws.read(plan.File)
	return &Compilable{
		Plan:      plan,
		Process:   p,
		Harnesses: ws.Env.Harnesses,
		RepoRoot:  ws.Env.Repo.Root,
	}, r, nil
}
