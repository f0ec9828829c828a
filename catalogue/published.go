package catalogue

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// SpecLabel is the label of a spec issue (forge.SpecLabel).
const SpecLabel = forge.SpecLabel

// ChildrenDir is the folder, in a run folder, of the run's child runs.
const ChildrenDir = "children"

// runPublishedIssue runs a run-published-issue action (docs/design.md §7.8): it reads the
// issue URL on the last line of the previous step's result, checks it as an
// architect plan is checked (this repository, open, by a trusted account,
// created since that step began), and starts a.Process on it as a child
// run. On a spec issue it starts a.SpecProcess instead and, once that run
// succeeded, a.Process on each of the spec's tickets, in parallel (at most
// Jobs at once). The step fails when a child run fails; a child run that
// ends inconclusive leaves the step succeeded and the run inconclusive
// (InconclusiveChildren).
func runPublishedIssue(ctx context.Context, r Run, s *Step, a *ir.PlanAction) Result {
	children := r.Children()
	if children == nil {
		return failure("run-published-issue: this run cannot start child processes")
	}
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	is, err := publishedIssue(ctx, r, s)
	if err != nil {
		return failure("%v", err)
	}
	kids := &childRuns{r: r, children: children, step: s.Name}
	spec := slices.ContainsFunc(is.Labels, func(l string) bool { return strings.EqualFold(l, SpecLabel) })
	if a.Process == "" {
		what := "issue " + is.String()
		if spec {
			what = "the tickets of spec issue " + is.String()
		}
		return failure("step %q names no process to start on %s (%s)", s.Name, what, is.URL)
	}
	if !spec {
		c, err := kids.prepare(a.Process, is)
		if err != nil {
			return failure("%v", err)
		}
		kids.runAll(ctx, []*childRun{c})
		return kids.result(ctx, s)
	}
	if a.SpecProcess == "" {
		return failure("issue %s (%s) is labelled %q, but step %q names no spec_process to start on it", is, is.URL, SpecLabel, s.Name)
	}
	writer, err := kids.prepare(a.SpecProcess, is)
	if err != nil {
		return failure("%v", err)
	}
	kids.runAll(ctx, []*childRun{writer})
	if writer.status != record.StatusSucceeded && writer.status != record.StatusInconclusive {
		return kids.result(ctx, s)
	}
	tickets, err := openTickets(ctx, r, s, is)
	if err != nil {
		res := kids.result(ctx, s)
		res.Failed, res.ExitCode, res.Cause = true, -1, err.Error()
		return res
	}
	runs := make([]*childRun, 0, len(tickets))
	for _, t := range tickets {
		c, err := kids.prepare(a.Process, t)
		if err != nil {
			res := kids.result(ctx, s)
			res.Failed, res.ExitCode, res.Cause = true, -1, err.Error()
			return res
		}
		runs = append(runs, c)
	}
	kids.runAll(ctx, runs)
	return kids.result(ctx, s)
}

// publishedIssue reads and checks the issue the previous step published:
// the URL on the last non-empty line of its result, an issue of origin's
// repository, open, opened by a trusted account, and created since that
// step began. Its error names the URL and what is wrong.
func publishedIssue(ctx context.Context, r Run, s *Step) (*forge.Issue, error) {
	prev, err := publisher(r.Plan(), s.Name)
	if err != nil {
		return nil, err
	}
	result := s.Results[prev]
	if result == "" {
		return nil, fmt.Errorf("step %q left no result to read the published issue's URL from", prev)
	}
	b, err := os.ReadFile(result)
	if err != nil {
		return nil, fmt.Errorf("read the result of step %q: %w", prev, err)
	}
	url, err := PublishedURL(string(b))
	if err != nil {
		return nil, fmt.Errorf("step %q: %w", prev, err)
	}
	is, err := r.OpenIssue(ctx, url, s.Env)
	if err != nil {
		return nil, fmt.Errorf("published issue: %w", err)
	}
	began := r.StepStart(prev)
	if began == nil {
		return nil, fmt.Errorf("published issue %s: step %q has no recorded start to check its creation against", url, prev)
	}
	if err := CheckPublished(is, *began); err != nil {
		return nil, fmt.Errorf("published issue %s: %w; cairn starts a process only on an issue the step before published", url, err)
	}
	return is, nil
}

// publisher is the step of plan whose result names the issue a
// run-published-issue step starts its process on: the single step it
// needs (the stage before it, unless it writes its needs).
func publisher(plan *ir.Plan, step string) (string, error) {
	for _, stage := range plan.Stages {
		for _, st := range stage {
			if st.Name != step {
				continue
			}
			if len(st.Needs) != 1 {
				return "", fmt.Errorf("run-published-issue step %q must come directly after a single session step, whose result's last line names the issue", step)
			}
			return st.Needs[0], nil
		}
	}
	return "", fmt.Errorf("step %q is not in the plan", step)
}

// PublishedURL is the issue URL on the last non-empty line of a session's
// result (docs/design.md §7.8): the line, or its last word, without the markdown around a
// link (<>, backticks, emphasis) or a full stop after it. forge's
// jq/published.jq says how, for cairn and compiled scripts alike.
func PublishedURL(result string) (string, error) {
	out, err := forge.Published("published_url", result)
	if err != nil {
		return "", err
	}
	m, _ := out.(map[string]any)
	if e, ok := m["error"].(string); ok {
		return "", errors.New(e)
	}
	url, _ := m["url"].(string)
	return url, nil
}

// CheckPublished checks a published issue as an architect plan is checked
// (docs/design.md §7.8), but for its repository, which OpenIssue checks: it is open, was
// opened by a trusted account, and was created at or after began, the
// start of the step that published it. GitHub keeps creation times to the
// second, so began counts from the start of its second.
func CheckPublished(is *forge.Issue, began time.Time) error {
	return publishedCheck(is, fmt.Sprintf("published_since(%d)", began.Unix()))
}

// checkTicket checks an issue a child run may start on: open, and opened
// by a trusted account.
func checkTicket(is *forge.Issue) error {
	return publishedCheck(is, "published_check")
}

// publishedCheck is the error the check fn of jq/published.jq finds with
// is, nil when it finds none.
func publishedCheck(is *forge.Issue, fn string) error {
	v := map[string]any{
		"state":     is.State,
		"author":    map[string]any{"login": is.Author},
		"trusted":   is.Trusted,
		"createdAt": is.CreatedAt.UTC().Format(time.RFC3339),
	}
	if is.Trusted == nil {
		v["trusted"] = []string{}
	}
	out, err := forge.Published(fn, v)
	if err != nil {
		return err
	}
	if e, _ := out.(string); e != "" {
		return errors.New(e)
	}
	return nil
}

// Tickets are the issues a spec's body lists as open task items (docs/design.md §7.8),
// in order and each once: "- [ ] #N" gives "#N", an item whose first word
// is an issue URL gives the URL (OpenIssue refuses one of another
// repository). Checked items ("- [x]"), items naming no issue, and lists
// inside fenced code are not tickets (forge's jq/published.jq).
func Tickets(body string) []string {
	out, err := forge.Published("published_tickets", body)
	if err != nil {
		return nil
	}
	var tickets []string
	for _, t := range out.([]any) {
		tickets = append(tickets, t.(string))
	}
	return tickets
}

// openTickets reads the spec issue again (its run may have written its
// tickets into it) and opens and checks each of its tickets: an issue of
// origin's repository, open, opened by a trusted account. It fails, naming
// every problem, when any ticket fails its check, or there is none.
func openTickets(ctx context.Context, r Run, s *Step, spec *forge.Issue) ([]*forge.Issue, error) {
	again, err := r.OpenIssue(ctx, spec.URL, s.Env)
	if err != nil {
		return nil, fmt.Errorf("read spec issue %s again for its tickets: %w", spec, err)
	}
	refs := Tickets(again.Body)
	if len(refs) == 0 {
		return nil, fmt.Errorf("spec issue %s (%s) lists no tickets: its body must list each as a task item, \"- [ ] #N\"", spec, spec.URL)
	}
	var out []*forge.Issue
	var problems []string
	seen := map[int]bool{spec.Number: true}
	for _, ref := range refs {
		is, err := r.OpenIssue(ctx, ref, s.Env)
		switch {
		case err != nil:
			problems = append(problems, err.Error())
		case is.Number == spec.Number:
			problems = append(problems, fmt.Sprintf("ticket %s is the spec itself", is))
		case seen[is.Number]:
			// Listed twice, as a number and as a URL: one run.
		default:
			seen[is.Number] = true
			if err := checkTicket(is); err != nil {
				problems = append(problems, fmt.Sprintf("ticket %s (%s): %v", is, is.URL, err))
				continue
			}
			out = append(out, is)
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("spec issue %s: no ticket was started: %s", spec, strings.Join(problems, "; "))
	}
	return out, nil
}

// childRuns are the child runs of one run-published-issue step of r,
// which children starts.
type childRuns struct {
	r        Run
	children Children
	step     string

	mu sync.Mutex
	// all are the child runs prepared so far, in order; dirs are their
	// folders as the step's record holds them, in the order they began.
	all  []*childRun
	dirs []string
}

// childRun is one child run: a process on an issue, and how it went.
type childRun struct {
	process string
	issue   *forge.Issue
	plan    *ir.Plan
	source  []byte
	// label is how its progress lines are told apart: "[PROCESS #N]".
	label string

	status record.Status
	err    error
	dir    string
	out    bytes.Buffer
}

// prepare checks process for a child run on is, as `cairn run` would
// check it; the check's diagnostics go to the run's progress.
func (k *childRuns) prepare(process string, is *forge.Issue) (*childRun, error) {
	c := &childRun{process: process, issue: is, label: fmt.Sprintf("[%s %s]", process, is)}
	w := &noteWriter{progress: k.r.Note, label: c.label}
	plan, source, err := k.children.Prepare(process, is.URL, w)
	w.flush()
	if err != nil {
		return nil, fmt.Errorf("process %q on issue %s: %w; no child run was started", process, is, err)
	}
	c.plan, c.source = plan, source
	k.mu.Lock()
	k.all = append(k.all, c)
	k.mu.Unlock()
	return c, nil
}

// runAll runs cs as child runs, all at once but for the run's Jobs bound,
// and returns once every one has ended. A failed one does not stop the
// others: they are separate pieces of work.
func (k *childRuns) runAll(ctx context.Context, cs []*childRun) {
	jobs := k.children.Jobs()
	if jobs <= 0 || jobs > len(cs) {
		jobs = len(cs)
	}
	slots := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for _, c := range cs {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			c.status, c.err = record.StatusInterrupted, errors.New("never started: the run was stopped")
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			k.run(ctx, c)
		})
	}
	wg.Wait()
}

// run runs one child run to its end: under the run's folder (children/),
// its results kept for the step's result, its progress shown in the run's
// after its label.
func (k *childRuns) run(ctx context.Context, c *childRun) {
	w := &noteWriter{progress: k.r.Note, label: c.label}
	defer w.flush()
	c.status, c.err = k.children.Run(ctx, c.plan, c.source, &c.out, w, func(dir string) {
		c.dir = dir
		k.began(dir)
	})
	if c.dir != "" {
		if _, err := os.Stat(c.dir); err != nil {
			// Refused before it ran (a claim another run holds): it
			// left no folder.
			k.forget(c.dir)
			c.dir = ""
		}
	}
}

// began records a child run's folder in the step's record as it begins,
// so that `cairn show` sees it while it runs.
func (k *childRuns) began(dir string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dirs = append(k.dirs, k.rel(dir))
	k.record()
}

// forget takes the folder of a child run that was refused before it ran,
// and removed its folder, out of the step's record.
func (k *childRuns) forget(dir string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dirs = slices.DeleteFunc(k.dirs, func(d string) bool { return d == k.rel(dir) })
	k.record()
}

// rel is a child run's folder as the step's record holds it: relative to
// the run folder when it is inside it.
func (k *childRuns) rel(dir string) string {
	if x, err := filepath.Rel(k.r.Dir(), dir); err == nil && !strings.HasPrefix(x, "..") {
		return x
	}
	return dir
}

// record writes the child runs' folders into the step's record. The caller
// holds k.mu, so that records are written in the order dirs changed.
func (k *childRuns) record() {
	k.r.SetChildren(k.step, slices.Clone(k.dirs))
}

// result is the step's action result once its child runs ended: one line
// per child run (process, issue, status, folder) followed by that run's
// results, and a failure when a child run failed or was stopped.
func (k *childRuns) result(ctx context.Context, s *Step) Result {
	k.mu.Lock()
	defer k.mu.Unlock()
	var b strings.Builder
	var failed []string
	stopped := false
	for _, c := range k.all {
		status := c.status
		if status == "" {
			status = "not started"
		}
		fmt.Fprintf(&b, "process %s on issue %s (%s): %s", c.process, c.issue, c.issue.URL, status)
		if c.dir != "" {
			fmt.Fprintf(&b, ", run %s", c.dir)
		}
		if c.err != nil {
			fmt.Fprintf(&b, ": %v", c.err)
		}
		b.WriteByte('\n')
		if out := c.out.String(); out != "" {
			b.WriteString(out)
			if !strings.HasSuffix(out, "\n") {
				b.WriteByte('\n')
			}
		}
		switch c.status {
		case record.StatusSucceeded, record.StatusInconclusive:
		case record.StatusInterrupted:
			stopped = true
		default:
			name := fmt.Sprintf("process %q on issue %s", c.process, c.issue)
			switch {
			case c.err != nil:
				name += ": " + c.err.Error()
			case c.dir != "":
				name += " (run " + filepath.Base(c.dir) + ")"
			}
			failed = append(failed, name)
		}
	}
	res := Result{Result: b.String()}
	switch {
	case len(failed) > 0:
		res.Failed, res.ExitCode = true, 1
		res.Cause = "child run failed: " + strings.Join(failed, "; ")
		if len(failed) > 1 {
			res.Cause = fmt.Sprintf("%d child runs failed: %s", len(failed), strings.Join(failed, "; "))
		}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && s.Timeout > 0:
		res.Failed, res.ExitCode, res.TimedOut = true, -1, true
		res.Cause = "timed out after " + ir.FormatDuration(s.Timeout)
	case stopped || ctx.Err() != nil:
		res.Failed, res.ExitCode, res.Cause = true, -1, "a child run was interrupted"
	}
	return res
}

// InconclusiveChildren returns a line for each child run, recorded in
// steps of the run folder dir of process, that ended inconclusive: a run
// whose child is inconclusive ends inconclusive too (docs/design.md §7.2), not succeeded.
func InconclusiveChildren(process, dir string, steps []record.StepRecord) []string {
	var out []string
	for _, s := range steps {
		for _, c := range s.Children {
			rec, err := record.Load(record.InRunFolder(dir, c))
			if err != nil || rec.Status != record.StatusInconclusive {
				continue
			}
			out = append(out, fmt.Sprintf("cairn: inconclusive: process %s — step %s's child run %s (process %s on issue %s) ended inconclusive; the work is done and nothing judged it",
				process, s.Name, filepath.Base(c), rec.Process, rec.Issue))
		}
	}
	return out
}

// noteWriter passes what a child run writes on stderr to its parent's
// progress, a line at a time, each after the child's label.
type noteWriter struct {
	progress func(string)
	label    string

	mu  sync.Mutex
	buf []byte
}

func (w *noteWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.note(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}

// flush shows what is left of a last line that did not end.
func (w *noteWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.note(string(w.buf))
		w.buf = nil
	}
}

// note shows one line. A child's progress is plain, each line after its
// time, which the parent's progress shows on its own.
func (w *noteWriter) note(line string) {
	line = strings.TrimRight(line, "\r")
	if len(line) > 9 && line[2] == ':' && line[5] == ':' && line[8] == ' ' {
		if _, err := time.Parse("15:04:05", line[:8]); err == nil {
			line = line[9:]
		}
	}
	w.progress(w.label + " " + line)
}
