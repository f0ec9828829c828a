package runtime

import (
	"context"
	"io"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/catalogue"
	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/internal/tracing"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
	"github.com/cairn-dev/cairn/stubs"
	"github.com/cairn-dev/cairn/worktree"
)

// catalogue runs a catalogue action (docs/design.md §7.8) of the step sc in wt.
func (r *run) catalogue(ctx context.Context, sc *step.Context, wt worktree.Worktree, a *ir.PlanAction) step.Result {
	if sa, ok := sc.Agent.(*stubs.Step); ok {
		// A stubbed run never delivers, merges or starts a child run.
		return sa.Catalogue()
	}
	budget := r.purse
	if m, ok := sc.Meter.(*spendingMeter); ok {
		budget = m.s.purse
	}
	res := catalogue.Execute(ctx, &catalogueRun{r: r, sc: sc, wt: wt, budget: budget}, r.catalogueStep(sc), a)
	return step.Result{Failed: res.Failed, Cause: res.Cause, ExitCode: res.ExitCode, Result: res.Result, Trace: res.Trace, TimedOut: res.TimedOut}
}

// catalogueStep is the step sc as its catalogue action sees it.
func (r *run) catalogueStep(sc *step.Context) *catalogue.Step {
	results := make(map[string]string, len(sc.Earlier))
	for _, e := range sc.Earlier {
		results[e.Step] = e.Path
	}
	return &catalogue.Step{
		Name:      sc.Step.Name,
		Worktree:  sc.Step.Worktree,
		Kind:      sc.WorktreeKind,
		Dir:       sc.Worktree,
		Branch:    sc.Branch,
		Env:       sc.Env,
		Git:       sc.Git,
		Timeout:   sc.Timeout,
		Results:   results,
		IssueFile: sc.IssueFile(),
		Trailers:  step.Trailers(r.folder.Name(), sc.Step.Name, sc.Agent != nil),
		Excluded:  r.excluded(sc.Step.Worktree),
	}
}

// setPullRequest records the URL of the run's pull request, which the
// notification names (docs/design.md §7.9).
func (r *run) setPullRequest(url string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pullRequest = url
}

// pullRequestURL is the URL of the run's pull request, "" when it has none.
func (r *run) pullRequestURL() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pullRequest
}

// keepChildren copies into sr the child runs its step's record gained while
// the step ran (catalogueRun.SetChildren): sr replaces that record at the
// step's end. The record's were reset when the step started.
func (r *run) keepChildren(sr *record.StepRecord) {
	i, ok := r.index[sr.Name]
	if !ok {
		return
	}
	if steps := r.folder.Record().Steps; i < len(steps) {
		sr.Children = steps[i].Children
	}
}

// catalogueRun is the run r as its catalogue step sc in the worktree wt
// sees it (catalogue.Run); budget is the purse the step spends under, the
// run's or the step's share of it, which its child runs spend from too.
type catalogueRun struct {
	r      *run
	sc     *step.Context
	wt     worktree.Worktree
	budget *purse
}

var _ catalogue.Run = (*catalogueRun)(nil)

// The methods of catalogueRun are catalogue.Run's, documented there.

func (c *catalogueRun) Plan() *ir.Plan            { return c.r.o.Plan }
func (c *catalogueRun) Issue() *forge.Issue       { return c.r.issue }
func (c *catalogueRun) Name() string              { return c.r.folder.Name() }
func (c *catalogueRun) Dir() string               { return c.r.folder.Dir }
func (c *catalogueRun) Warn(err error)            { c.r.warn(err) }
func (c *catalogueRun) SetPullRequest(url string) { c.r.setPullRequest(url) }

func (c *catalogueRun) Note(line string) {
	if c.r.prog != nil {
		c.r.prog.Note(line)
	}
}

func (c *catalogueRun) Session(ctx context.Context, a *ir.PlanAction, trace string, prompt func(skillPath string) (string, error)) catalogue.Result {
	sc := *c.sc
	sc.TraceFile = trace
	h, skill, err := c.r.prepareSession(ctx, &sc, c.wt, a)
	if err != nil {
		return catalogue.Result{Failed: true, ExitCode: -1, Cause: err.Error()}
	}
	p, err := prompt(skill)
	if err != nil {
		return catalogue.Result{Failed: true, ExitCode: -1, Cause: err.Error()}
	}
	res := step.RunPrompt(tracing.As(ctx, "repair"), &sc, h, step.Invocation(a, p))
	return catalogue.Result{Failed: res.Failed, Cause: res.Cause, ExitCode: res.ExitCode, Result: res.Result, Trace: res.Trace, TimedOut: res.TimedOut}
}

func (c *catalogueRun) OpenIssue(ctx context.Context, ref string, env []string) (*forge.Issue, error) {
	return forge.OpenIssue(ctx, c.r.o.Repo, ref, c.r.o.Plan.Trusted, env)
}

func (c *catalogueRun) StepStart(name string) *time.Time {
	i, ok := c.r.index[name]
	if !ok {
		return nil
	}
	if steps := c.r.folder.Record().Steps; i < len(steps) {
		return steps[i].Start
	}
	return nil
}

func (c *catalogueRun) SetChildren(name string, dirs []string) {
	r := c.r
	i, ok := r.index[name]
	if !ok {
		return
	}
	r.warn(r.folder.Update(func(rec *record.Record) {
		if i < len(rec.Steps) {
			rec.Steps[i].Children = dirs
		}
	}))
}

func (c *catalogueRun) Children() catalogue.Children {
	if c.r.o.Prepare == nil {
		return nil
	}
	return children{r: c.r, budget: c.budget}
}

// children starts the child runs of the run r's run-published-issue steps
// (catalogue.Children), under the step's budget.
type children struct {
	r      *run
	budget *purse
}

func (k children) Prepare(process, issue string, w io.Writer) (*ir.Plan, []byte, error) {
	return k.r.o.Prepare(process, issue, w)
}

func (k children) Jobs() int { return k.r.o.Jobs }

// Run runs a child run with the run's home, repository, harnesses,
// directive, flags and Jobs. It holds no Pass (a run on an issue never
// does), and sends no notification: the run's own says how it all ended.
// What its sessions spend counts against the run's budget (the step's share
// of it, in a parallel group) as well as its own: a child's session starts
// only while both have some left.
func (k children) Run(ctx context.Context, plan *ir.Plan, source []byte, stdout, stderr io.Writer, started func(dir string)) (record.Status, error) {
	r := k.r
	child := *plan
	child.Notify = ir.PlanNotify{}
	return Run(ctx, Options{
		Dir:       r.o.Dir,
		Home:      r.o.Home,
		Repo:      r.o.Repo,
		Env:       r.o.Env,
		Harnesses: r.o.Harnesses,
		Plan:      &child,
		Source:    source,
		Directive: r.o.Directive,
		Jobs:      r.o.Jobs,
		Flags:     r.o.Flags,
		Stdout:    stdout,
		Stderr:    stderr,
		Prepare:   r.o.Prepare,
		RunsDir:   filepath.Join(r.folder.Dir, catalogue.ChildrenDir),
		Started:   started,
		parent:    k.budget,
	})
}
