package catalogue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/internal/text"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step/prompts"
	"github.com/cairn-dev/cairn/worktree"
)

// The pace and bounds of a delivery's repair loop (docs/design.md §7.8).
const (
	// DefaultPollInterval is how often a delivery reads the pull request's
	// checks while any is pending.
	DefaultPollInterval = 30 * time.Second
	// EnvPollInterval overrides DefaultPollInterval (a Go duration, such
	// as "10ms"), for tests.
	EnvPollInterval = "CAIRN_POLL_INTERVAL"
	// noChecksPolls is how many reads in a row may find no checks at all
	// before the pull request is taken to have none.
	noChecksPolls = 4
)

// pollInterval is how often checks are read: $CAIRN_POLL_INTERVAL of the
// step's environment env when it is a positive duration, else
// DefaultPollInterval.
func pollInterval(env []string) time.Duration {
	if v := proc.Getenv(env, EnvPollInterval); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return DefaultPollInterval
}

// fetchBase fetches the base branch from origin into origin/BASE.
func (b *issueBranch) fetchBase(ctx context.Context) error {
	_, err := b.git.Run(ctx, b.dir, "fetch", "--quiet", "--no-tags", "origin", "+refs/heads/"+b.base+":refs/remotes/origin/"+b.base)
	return err
}

// originBase is the ref of the base branch as last fetched.
func (b *issueBranch) originBase() string { return "refs/remotes/origin/" + b.base }

// delivery is one delivery step under way (docs/design.md §7.8): it pushes the branch,
// opens or updates its pull request, and repairs failing checks and
// conflicts with the base, up to the effective repair cap.
type delivery struct {
	r Run
	s *Step
	*issueBranch
	cap int
	pr  *forge.PullRequest
	// pushed is the commit origin's branch was last pushed at.
	pushed string
	// rounds counts the repair sessions so far; done lists what each did.
	rounds int
	done   []string
	trace  string
}

// deliver runs a delivery action of the step s of r.
func deliver(ctx context.Context, r Run, s *Step) Result {
	b, err := issueBranchOf(r, s, "delivery")
	if err != nil {
		return failure("%v", err)
	}
	d := &delivery{r: r, s: s, issueBranch: b, cap: r.Plan().Limits.RepairCap.Value}
	res := d.run(ctx)
	res.Trace = d.trace
	return res
}

// note shows a line of the delivery's progress.
func (d *delivery) note(format string, args ...any) {
	d.r.Note(d.s.Name + ": " + fmt.Sprintf(format, args...))
}

// failed ends the delivery failed with cause; the result says what it
// did.
func (d *delivery) failed(format string, args ...any) Result {
	res := failure(format, args...)
	res.Result = d.summary(res.Cause)
	return res
}

// summary is the step's result: the pull request, how the delivery ended,
// and each repair session.
func (d *delivery) summary(end string) string {
	var b strings.Builder
	if d.pr != nil {
		fmt.Fprintf(&b, "Pull request: %s\n", d.pr.URL)
	}
	fmt.Fprintf(&b, "Branch: %s (into %s)\n", d.branch, d.base)
	b.WriteString(end + "\n")
	for i, s := range d.done {
		fmt.Fprintf(&b, "Repair %d: %s\n", i+1, s)
	}
	return b.String()
}

// run carries the delivery out.
func (d *delivery) run(ctx context.Context) Result {
	if err := d.prepare(ctx); err != nil {
		return d.failed("%v", err)
	}
	if err := d.push(ctx, ""); err != nil {
		return d.failed("%v", err)
	}
	if err := d.open(ctx); err != nil {
		return d.failed("%v", err)
	}
	d.r.SetPullRequest(d.pr.URL)
	freeRebase := false
	for {
		conflict, err := d.conflicts(ctx)
		if err != nil {
			return d.failed("%v", err)
		}
		var bad []forge.Check
		if !conflict {
			checks, err := d.waitChecks(ctx)
			if err != nil {
				return d.failed("pull request %s: %v", d.pr.URL, err)
			}
			if bad = forge.Failing(checks); len(bad) == 0 {
				return d.green(ctx, checks)
			}
		}
		if d.rounds >= d.cap {
			return d.atCap(conflict, bad)
		}
		if conflict {
			before := d.rounds
			err = d.rebase(ctx)
			if errors.Is(err, errAtCap) {
				return d.atCap(true, nil)
			}
			if err == nil && d.rounds == before {
				if freeRebase {
					return d.failed("branch %q was rebased onto origin/%s without conflicts, yet git still finds it conflicting", d.branch, d.base)
				}
				freeRebase = true
			}
		} else {
			err = d.repair(ctx, bad)
		}
		if err != nil {
			return d.failed("%v", err)
		}
	}
}

// errAtCap stops a rebase that needs another session at the repair cap.
var errAtCap = errors.New("the repair cap is reached")

// atCap ends the delivery failed at the repair cap: its pull request stays
// open, as the branch does.
func (d *delivery) atCap(conflict bool, bad []forge.Check) Result {
	what := fmt.Sprintf("checks %s still fail", forge.CheckNames(bad))
	if conflict {
		what = fmt.Sprintf("branch %q still conflicts with %q", d.branch, d.base)
	}
	return d.failed("the repair cap (%d) is reached and %s; pull request %s stays open", d.cap, what, d.pr.URL)
}

// prepare makes sure there is something to deliver, all committed:
// cairn commits nothing of the steps' own. A rebase a crashed run left
// stopped is undone first.
func (d *delivery) prepare(ctx context.Context) error {
	if d.rebasing(ctx) {
		if _, err := d.git.Run(ctx, d.dir, "rebase", "--abort"); err != nil {
			return err
		}
		d.note("undid the rebase an earlier attempt left stopped")
	}
	// What the worktree's copy and setup left is not the steps' work.
	left, err := worktree.Uncommitted(ctx, d.git, d.dir, d.s.Excluded)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("worktree %q has uncommitted changes (git status in %s lists them); delivery pushes commits only, so a step before it must commit its work", d.worktree, d.dir)
	}
	if err := d.fetchBase(ctx); err != nil {
		return err
	}
	out, err := d.git.Run(ctx, d.dir, "rev-list", "--count", d.originBase()+"..HEAD")
	if err != nil {
		return err
	}
	if strings.TrimSpace(out) == "0" {
		return fmt.Errorf("branch %q has no commits over origin/%s: there is nothing to deliver", d.branch, d.base)
	}
	return nil
}

// push pushes the branch to origin: a fast-forward, or after a rebase
// (lease set to what origin's branch was pushed at) with
// --force-with-lease, so that nobody's commits are overwritten unseen.
func (d *delivery) push(ctx context.Context, lease string) error {
	if err := d.refuseCairnFiles(ctx); err != nil {
		return err
	}
	ref := "refs/heads/" + d.branch
	args := []string{"push", "--quiet", "origin", ref + ":" + ref}
	if lease != "" {
		args = []string{"push", "--quiet", "--force-with-lease=" + ref + ":" + lease, "origin", ref + ":" + ref}
	}
	if _, err := d.git.Run(ctx, d.dir, args...); err != nil {
		return fmt.Errorf("push branch %q: %w", d.branch, err)
	}
	d.pushed = d.git.Head(ctx, d.dir)
	return nil
}

// refuseCairnFiles refuses a branch whose commits over the base add or
// change one of cairn's own files (ir.CairnFiles: the issue file, copied
// skills, run-folder scratch files), which a step force-added: what is
// pushed must not carry them, and cairn rewrites no commit of a step's.
func (d *delivery) refuseCairnFiles(ctx context.Context) error {
	args := append([]string{"log", "--format=commit %h", "--name-only", "--no-renames", "--diff-filter=d",
		d.originBase() + "..HEAD", "--"}, ir.CairnPathspecs()...)
	out, err := d.git.Run(ctx, d.dir, args...)
	if err != nil {
		return err
	}
	commit := ""
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if c, ok := strings.CutPrefix(line, "commit "); ok {
			commit = c
		} else if line != "" {
			return fmt.Errorf("branch %q carries cairn's own file %q (commit %s), which delivery never pushes; remove it from the branch's commits (git rm --cached, then rewrite them) and deliver again", d.branch, line, commit)
		}
	}
	return nil
}

// title and body are the pull request's: the issue's title, and a body
// that closes the issue and names the run.
func (d *delivery) title() string { return d.r.Issue().Title }

func (d *delivery) body() string {
	return fmt.Sprintf("Closes #%d.\n\nDelivered by cairn: process `%s`, run `%s`, step `%s`.\n",
		d.r.Issue().Number, d.r.Plan().Process, d.r.Name(), d.s.Name)
}

// open finds the branch's open pull request and updates it, or opens one
// as a draft, marked ready once its checks pass.
func (d *delivery) open(ctx context.Context) error {
	pr, err := d.gh.OpenPullRequest(ctx, d.branch)
	if err != nil {
		return err
	}
	if pr != nil {
		if err := d.gh.EditPullRequest(ctx, pr.Number, d.title(), d.body(), d.base); err != nil {
			return err
		}
		d.pr = pr
		d.note("updated pull request %s", pr.URL)
		return nil
	}
	pr, err = d.gh.CreatePullRequest(ctx, d.branch, d.base, d.title(), d.body())
	if err != nil {
		return err
	}
	d.pr = pr
	d.note("opened pull request %s", pr.URL)
	return nil
}

// conflicts reports whether the branch conflicts with the base as origin
// has it now, by merging them in memory (git merge-tree).
func (d *delivery) conflicts(ctx context.Context) (bool, error) {
	if err := d.fetchBase(ctx); err != nil {
		return false, err
	}
	_, err := d.git.Run(ctx, d.dir, "merge-tree", "--write-tree", "--name-only", "HEAD", d.originBase())
	switch {
	case err == nil:
		return false, nil
	case git.ExitCode(err) == 1:
		return true, nil
	}
	return false, err
}

// waitChecks reads the pull request's checks until none is pending on the
// commit last pushed, every poll interval. A pull request on which no
// check reports for noChecksPolls reads in a row has none.
func (d *delivery) waitChecks(ctx context.Context) ([]forge.Check, error) {
	interval := pollInterval(d.s.Env)
	empty, stale, said := 0, 0, false
	for {
		pr, err := d.gh.ViewPullRequest(ctx, d.pr.Number)
		if err != nil {
			return nil, err
		}
		if pr.State != "OPEN" {
			return nil, fmt.Errorf("it was %s while cairn delivered it", strings.ToLower(pr.State))
		}
		d.pr.IsDraft = pr.IsDraft
		// Until GitHub has the push, its checks are the old commit's; a
		// head that stays another is someone else's push.
		if pr.HeadRefOid != d.pushed {
			if stale++; stale > noChecksPolls {
				return nil, fmt.Errorf("its head is %s, not %s as cairn pushed it: someone else pushed to branch %q", pr.HeadRefOid, d.pushed, d.branch)
			}
		} else {
			checks, err := d.gh.Checks(ctx, d.pr.Number)
			switch {
			case errors.Is(err, forge.ErrNoChecks):
				if empty++; empty > noChecksPolls {
					return nil, nil
				}
			case err != nil:
				return nil, err
			case !forge.Pending(checks):
				return checks, nil
			}
		}
		if !said {
			d.note("waiting for the checks of pull request %s", d.pr.URL)
			said = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(interval):
		}
	}
}

// green ends the delivery: every check passed, the pull request is marked
// ready for review.
func (d *delivery) green(ctx context.Context, checks []forge.Check) Result {
	if d.pr.IsDraft {
		if err := d.gh.MarkReady(ctx, d.pr.Number); err != nil {
			return d.failed("pull request %s: %v", d.pr.URL, err)
		}
		d.pr.IsDraft = false
	}
	how := fmt.Sprintf("all %d checks pass", len(checks))
	switch len(checks) {
	case 0:
		how = "no checks reported on it"
	case 1:
		how = "its check passes"
	}
	switch d.rounds {
	case 0:
	case 1:
		how += ", after 1 repair session"
	default:
		how += fmt.Sprintf(", after %d repair sessions", d.rounds)
	}
	d.note("pull request %s is ready for review: %s", d.pr.URL, how)
	return Result{Result: d.summary(fmt.Sprintf("Ready for review: %s.", how))}
}

// jobLink finds the run and job ids in a GitHub Actions check's link.
var jobLink = regexp.MustCompile(`/actions/runs/([0-9]+)/job/([0-9]+)`)

// failingCheck is what a repair prompt says of a failing check: gh's
// words, and the log of its failed steps when it is a GitHub Actions job.
func (d *delivery) failingCheck(ctx context.Context, c forge.Check) prompts.FailingCheck {
	f := prompts.FailingCheck{Name: c.Name, Workflow: c.Workflow, Description: c.Description, Link: c.Link}
	m := jobLink.FindStringSubmatch(c.Link)
	if m == nil {
		f.LogError = "it is not a GitHub Actions job; follow its link"
		return f
	}
	out, err := d.gh.FailedJobLog(ctx, m[2])
	if err != nil {
		f.LogError = err.Error()
		return f
	}
	f.Log, f.Cut = text.Tail(out, prompts.MaxCheckLog)
	if strings.TrimSpace(f.Log) == "" {
		f.LogError = "gh gave an empty log"
	}
	return f
}

// repair runs a repair session for the failing checks, commits what it
// left, and pushes.
func (d *delivery) repair(ctx context.Context, bad []forge.Check) error {
	d.rounds++
	d.note("repair %d of %d: checks %s of pull request %s fail", d.rounds, d.cap, forge.CheckNames(bad), d.pr.URL)
	data := prompts.RepairData{}
	for _, c := range bad {
		data.Checks = append(data.Checks, d.failingCheck(ctx, c))
	}
	msg, err := d.session(ctx, data)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(bad))
	for _, c := range bad {
		names = append(names, c.Name)
	}
	if err := d.commitLeft(ctx, "[cairn] Repair: "+strings.Join(names, ", ")); err != nil {
		return err
	}
	if d.git.Head(ctx, d.dir) == d.pushed {
		d.done = append(d.done, fmt.Sprintf("checks %s: the session changed nothing. %s", forge.CheckNames(bad), msg))
		d.note("repair %d of %d changed nothing", d.rounds, d.cap)
		return nil
	}
	d.done = append(d.done, fmt.Sprintf("checks %s: %s", forge.CheckNames(bad), msg))
	return d.push(ctx, "")
}

// rebase rebases the branch onto origin's base; each time the rebase
// stops on conflicts, a repair session resolves them, up to the repair
// cap (errAtCap, the rebase undone). The rebased branch is pushed with a
// lease on what was pushed before.
func (d *delivery) rebase(ctx context.Context) error {
	rebaser := d.git.With("GIT_EDITOR=true")
	d.note("branch %q conflicts with origin/%s: rebasing it", d.branch, d.base)
	_, err := rebaser.Run(ctx, d.dir, "rebase", "--no-autostash", d.originBase())
	for err != nil {
		if !d.rebasing(ctx) {
			return fmt.Errorf("rebase branch %q onto origin/%s: %w", d.branch, d.base, err)
		}
		conflicts, lerr := d.unmerged(ctx)
		if lerr != nil || len(conflicts) == 0 {
			d.abortRebase(ctx)
			if lerr == nil {
				lerr = err
			}
			return fmt.Errorf("rebase branch %q onto origin/%s stopped: %w", d.branch, d.base, lerr)
		}
		for {
			if d.rounds >= d.cap {
				d.abortRebase(ctx)
				return errAtCap
			}
			d.rounds++
			d.note("repair %d of %d: the rebase onto origin/%s stopped on conflicts in %s", d.rounds, d.cap, d.base, quoteAll(conflicts))
			msg, serr := d.session(ctx, prompts.RepairData{Conflicts: conflicts})
			if serr != nil {
				d.abortRebase(ctx)
				return serr
			}
			left := withMarkers(d.dir, conflicts)
			if len(left) == 0 {
				d.done = append(d.done, fmt.Sprintf("conflicts with %s in %s: %s", d.base, quoteAll(conflicts), msg))
				break
			}
			d.done = append(d.done, fmt.Sprintf("conflicts with %s in %s: conflict markers are left in %s. %s", d.base, quoteAll(conflicts), quoteAll(left), msg))
		}
		if _, aerr := d.git.Run(ctx, d.dir, "add", "--all", "--", ".", ":(exclude)"+ir.RunsInRepo); aerr != nil {
			d.abortRebase(ctx)
			return aerr
		}
		_, err = rebaser.Run(ctx, d.dir, "rebase", "--continue")
	}
	return d.push(ctx, d.pushed)
}

// rebasing reports whether a rebase is stopped in the worktree. It asks
// even when ctx has ended: a rebase an interrupt stopped is undone too.
func (d *delivery) rebasing(ctx context.Context) bool {
	ctx = context.WithoutCancel(ctx)
	for _, name := range []string{"rebase-merge", "rebase-apply"} {
		out, err := d.git.Run(ctx, d.dir, "rev-parse", "--git-path", name)
		if err != nil {
			continue
		}
		p := strings.TrimSpace(out)
		if !filepath.IsAbs(p) {
			p = filepath.Join(d.dir, p)
		}
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// abortRebase undoes a stopped rebase, leaving the branch as it was.
func (d *delivery) abortRebase(ctx context.Context) {
	if _, err := d.git.Run(context.WithoutCancel(ctx), d.dir, "rebase", "--abort"); err != nil {
		d.r.Warn(err)
	}
}

// unmerged lists the paths with unresolved conflicts.
func (d *delivery) unmerged(ctx context.Context) ([]string, error) {
	out, err := d.git.Run(ctx, d.dir, "diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// withMarkers lists the paths under dir that still hold a conflict marker.
func withMarkers(dir string, paths []string) []string {
	var left []string
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			// Deleted: resolved by removing it.
			continue
		}
		for line := range strings.Lines(string(b)) {
			if strings.HasPrefix(line, "<<<<<<< ") || strings.HasPrefix(line, ">>>>>>> ") {
				left = append(left, p)
				break
			}
		}
	}
	return left
}

// quoteAll lists names, quoted.
func quoteAll(names []string) string {
	q := make([]string, 0, len(names))
	for _, n := range names {
		q = append(q, fmt.Sprintf("%q", n))
	}
	return strings.Join(q, ", ")
}

// commitLeft commits what the repair session left uncommitted, with the
// run's trailers.
func (d *delivery) commitLeft(ctx context.Context, subject string) error {
	left := worktree.Commit{Subject: subject, Trailers: d.s.Trailers, Work: true, Exclude: d.s.Excluded}
	_, err := left.Make(ctx, d.git, d.dir)
	return err
}

// session runs repair session d.rounds with data (its checks or
// conflicts; the rest is filled in here) on the plan's repair harness, in
// the step's worktree, and returns the first line of its final message.
// Each session has its own trace, traces/STEP.repair-N.jsonl.
func (d *delivery) session(ctx context.Context, data prompts.RepairData) (string, error) {
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("repair session %d: %w", d.rounds, err)
	}
	a := d.r.Plan().Repair
	if a == nil {
		// A plan made before plans carried it: the default harness,
		// its own model.
		a = &ir.PlanAction{Kind: ir.Session, Harness: &ir.Setting{Value: ir.DefaultHarness, Source: ir.FromDefault},
			Skill: &ir.PlanSkill{Name: "cairn-repair", Path: "builtin:repair", Source: ir.SkillBuiltin}}
	}
	if a.Harness == nil || a.Skill == nil {
		return fail(errors.New("the plan names no harness or skill for it"))
	}
	data.Process, data.Step = d.r.Plan().Process, d.s.Name
	data.PullRequest, data.Branch, data.Base = d.pr.URL, d.branch, d.base
	data.Round, data.Rounds = d.rounds, d.cap
	data.WorktreePath, data.Skill = d.dir, a.Skill.Name
	data.IssueURL, data.Limit = d.r.Issue().URL, prompts.CheckLogLimit
	data.IssueFile = d.s.IssueFile
	trace := filepath.Join(d.r.Dir(), record.TracesDir, fmt.Sprintf("%s.repair-%d.jsonl", d.s.Name, d.rounds))
	res := d.r.Session(ctx, a, trace, func(skillPath string) (string, error) {
		data.SkillPath = skillPath
		return prompts.RepairPrompt(data)
	})
	if res.Trace != "" {
		d.trace = res.Trace
	}
	if res.Failed {
		return fail(errors.New(res.Cause))
	}
	msg := text.FirstLine(res.Result)
	if msg == "" {
		msg = "(no final message)"
	}
	return msg, nil
}
