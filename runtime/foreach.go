package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/expr"
	"github.com/cairn-dev/cairn/internal/atomicfile"
	"github.com/cairn-dev/cairn/internal/tracing"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/step"
	"github.com/cairn-dev/cairn/views"
	"github.com/cairn-dev/cairn/worktree"
)

// forEach runs step st, which has for_each, once per item of the list its
// for_each gives (docs/design.md §7.3): each item's run reads it as item in
// the step's when, {{ item }} in its prompts and $CAIRN_ITEM, works in a
// throwaway of its own when the step edits, and keeps its result and
// output as results/STEP/N.md and N.json; at most --jobs run at once. A
// list longer than st.MaxItems fails the step before any item starts. The
// step succeeded when every item succeeded or was skipped (all skipped:
// skipped), and failed when one failed; sr gets each item's record, and
// the step's output is the list of its items' outputs. sc is the step's
// context, which each item's is made from.
func (r *run) forEach(ctx context.Context, st *ir.PlanStep, sc *step.Context, sr *record.StepRecord, budget *purse) stepEnd {
	items, e, ok := r.itemsOf(st)
	if !ok {
		return e
	}
	for _, dir := range []string{record.ResultsDir, record.TracesDir} {
		if err := os.MkdirAll(filepath.Join(r.folder.Dir, dir, st.Name), 0o700); err != nil {
			return stepEnd{outcome: record.Failed, exitCode: -1, cause: err.Error()}
		}
	}
	sr.Items = make([]record.StepRecord, len(items))
	for k := range items {
		it := r.initial[r.index[st.Name]].Clone()
		it.Name, it.Item, it.Needs = record.ItemName(st.Name, k), items[k], nil
		sr.Items[k] = it
	}
	r.record(sr.Clone())
	jobs := r.o.Jobs
	if jobs <= 0 {
		jobs = len(items)
	}
	slots := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	ends := make([]stepEnd, len(items))
	for k := range items {
		slots <- struct{}{}
		if ctx.Err() != nil {
			// Interrupted: the items not started never start.
			<-slots
			ends[k] = stepEnd{outcome: record.Cancelled}
			it := r.itemRecord(st.Name, k)
			it.Outcome = record.Cancelled
			r.recordItem(st.Name, k, it)
			r.prog.End(it.Name, record.Cancelled, 0, "")
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			ends[k] = r.item(ctx, st, sc, k, items[k], sr, budget)
		})
	}
	wg.Wait()
	return r.itemsEnd(st, sr, ends)
}

// itemsOf evaluates st's for_each over the steps it waits for. When the
// list cannot be had, is empty or longer than st.MaxItems, it returns how
// the step ends instead, and false.
func (r *run) itemsOf(st *ir.PlanStep) ([]json.RawMessage, stepEnd, bool) {
	x, errs := expr.Parse(st.ForEach)
	if len(errs) > 0 {
		return nil, stepEnd{outcome: record.Failed, exitCode: -1, cause: "for_each: " + errs[0].Message}, false
	}
	in, err := r.whenInput(st)
	var items []json.RawMessage
	if err == nil {
		items, err = x.Items(in)
	}
	switch {
	case err != nil:
		return nil, stepEnd{outcome: record.Failed, exitCode: -1, cause: fmt.Sprintf("for_each %s cannot be evaluated: %v", x.Text(), err)}, false
	case len(items) == 0:
		return nil, stepEnd{outcome: record.Skipped, exitCode: step.SkipCode, cause: fmt.Sprintf("for_each %s gives no items", x.Text())}, false
	case st.MaxItems > 0 && len(items) > st.MaxItems:
		return nil, stepEnd{outcome: record.Failed, exitCode: -1, cause: fmt.Sprintf("for_each %s gives %d items, more than max_items %d; no item started", x.Text(), len(items), st.MaxItems)}, false
	}
	return items, stepEnd{}, true
}

// item runs item k (its JSON) of step st, records it in sr.Items[k] and
// shows it, and returns how it ended.
func (r *run) item(ctx context.Context, st *ir.PlanStep, parent *step.Context, k int, item json.RawMessage, sr *record.StepRecord, budget *purse) stepEnd {
	name := record.ItemName(st.Name, k)
	ctx, span := tracing.Item(ctx, st.Name, name, k)
	rel := filepath.Join(st.Name, strconv.Itoa(k))
	it := r.itemRecord(st.Name, k)
	start := time.Now().UTC()
	it.Outcome, it.Start = record.Running, &start
	r.recordItem(st.Name, k, it.Clone())
	own := *st
	if edits(st) {
		// Each item edits a throwaway of its own, made like the step's
		// worktree.
		own.Worktree = fmt.Sprintf("%s.%d", st.Name, k)
	}
	r.folder.StepStarted(&it, r.o.Stubs != nil)
	r.prog.Start(name, views.DescribeStep(&own))
	sc := *parent
	sc.Item, sc.ItemIndex = item, k
	sc.ResultFile = filepath.Join(r.folder.Dir, record.ResultsDir, rel+".md")
	sc.TraceFile = filepath.Join(r.folder.Dir, record.TracesDir, rel+".jsonl")
	var e stepEnd
	if skip, ok := r.when(st, item); !ok {
		e = skip
	} else {
		sc.Step = &own
		wtErr := error(nil)
		if own.Worktree != st.Worktree {
			r.mu.Lock()
			if r.itemWorktrees == nil {
				r.itemWorktrees = map[string]string{}
			}
			r.itemWorktrees[own.Worktree] = st.Worktree
			r.mu.Unlock()
			var wt worktree.Worktree
			if wt, wtErr = r.wts.Add(ctx, own.Worktree, st.Worktree); wtErr == nil && r.issue != nil {
				// As every worktree of the run, it holds the issue's file.
				if _, err := writeIssueFile(ctx, r.o.Repo.Git, r.issue, wt.Path); err != nil {
					wtErr = fmt.Errorf("issue %s: write it into worktree %q: %w", r.issue, wt.Name, err)
				}
			}
		}
		if wtErr != nil {
			e = stepEnd{outcome: record.Failed, exitCode: -1, cause: wtErr.Error()}
		} else {
			e = r.stepIn(ctx, &own, &sc, &it, budget)
		}
		if own.Worktree != st.Worktree && ctx.Err() == nil {
			// Its patch is saved before it ends: the step's end (its
			// commit, in commit mode) holds every item's.
			<-r.wts.Release(context.WithoutCancel(ctx), own.Worktree, r.patches)
		}
	}
	r.keep(ctx, sc.ResultFile, name, &e, &it)
	end := time.Now().UTC()
	it.Outcome, it.End, it.ExitCode, it.Cause = e.outcome, &end, e.exitCode, e.cause
	r.recordItem(st.Name, k, it)
	span.SetUsage(it.Usage.Plus(it.JudgeUsage))
	span.End(string(e.outcome), e.cause)
	r.prog.End(name, e.outcome, end.Sub(start), e.cause)
	return e
}

// itemRecord is the record of item k of step as it stands.
func (r *run) itemRecord(step string, k int) record.StepRecord {
	i := r.index[step]
	if rec := r.folder.Record(); i < len(rec.Steps) && k < len(rec.Steps[i].Items) {
		return rec.Steps[i].Items[k].Clone()
	}
	return record.StepRecord{Name: record.ItemName(step, k)}
}

// recordItem writes the record of item k of step and, once it has ended,
// its log line.
func (r *run) recordItem(step string, k int, it record.StepRecord) {
	i := r.index[step]
	r.warn(r.folder.Update(func(rec *record.Record) {
		if i < len(rec.Steps) && k < len(rec.Steps[i].Items) {
			rec.Steps[i].Items[k] = it
		}
	}))
	if it.Ended() {
		r.warn(r.folder.LogStep(&it, r.o.Stubs != nil))
	}
}

// itemsEnd is how step st with for_each ended, its items having ended as
// ends say: sr takes their records, their usage summed, and their
// results are given to the steps after it; the step's result lists them,
// and its output, when it declares one, is the list of theirs.
func (r *run) itemsEnd(st *ir.PlanStep, sr *record.StepRecord, ends []stepEnd) stepEnd {
	if rec, i := r.folder.Record(), r.index[st.Name]; i < len(rec.Steps) {
		sr.Items = make([]record.StepRecord, len(rec.Steps[i].Items))
		for k := range rec.Steps[i].Items {
			sr.Items[k] = rec.Steps[i].Items[k].Clone()
		}
	}
	var u ir.Usage
	var given []step.Earlier
	var failed []string
	var result strings.Builder
	skipped, interrupted := 0, false
	outputs := make([]json.RawMessage, len(sr.Items))
	for k := range sr.Items {
		it := &sr.Items[k]
		u = u.Plus(it.Usage)
		fmt.Fprintf(&result, "- %s (item %s): %s", it.Name, it.Item, it.Outcome)
		if it.Result != "" {
			fmt.Fprintf(&result, ", result %s", it.Result)
			given = append(given, step.Earlier{Step: it.Name, Path: filepath.Join(r.folder.Dir, filepath.FromSlash(it.Result))})
		}
		if it.Cause != "" {
			fmt.Fprintf(&result, " (%s)", it.Cause)
		}
		result.WriteString("\n")
		switch it.Outcome {
		case record.Failed, record.Cancelled:
			failed = append(failed, it.Name)
		case record.Interrupted:
			interrupted = true
		case record.Skipped:
			skipped++
		}
		outputs[k] = json.RawMessage("null")
		if it.Output != "" {
			if b, err := os.ReadFile(filepath.Join(r.folder.Dir, filepath.FromSlash(it.Output))); err == nil {
				outputs[k] = json.RawMessage(strings.TrimSpace(string(b)))
			}
		}
	}
	sr.Usage = u
	r.mu.Lock()
	if r.items == nil {
		r.items = map[string][]step.Earlier{}
	}
	r.items[st.Name] = given
	r.mu.Unlock()
	e := stepEnd{result: result.String(), wrote: true}
	if st.Output != nil {
		b, err := json.Marshal(outputs)
		if err == nil {
			err = atomicfile.Write(r.outputFile(st.Name), append(b, '\n'))
		}
		if err != nil {
			return stepEnd{outcome: record.Failed, exitCode: -1, cause: fmt.Sprintf("save the output of step %q: %v", st.Name, err), result: e.result, wrote: true}
		}
		sr.Output = filepath.ToSlash(filepath.Join(record.ResultsDir, st.Name+".json"))
	}
	n := len(sr.Items)
	switch {
	case interrupted:
		e.outcome, e.exitCode = record.Interrupted, -1
	case len(failed) > 0:
		first := sr.Items[0]
		for _, it := range sr.Items {
			if it.Name == failed[0] {
				first = it
			}
		}
		e.outcome, e.exitCode = record.Failed, 1
		e.cause = fmt.Sprintf("%d of %d items failed: %s", len(failed), n, strings.Join(failed, ", "))
		if first.Cause != "" {
			e.cause += fmt.Sprintf(" (%s: %s)", first.Name, first.Cause)
		}
	case skipped == n:
		e.outcome, e.exitCode, e.cause = record.Skipped, step.SkipCode, fmt.Sprintf("every one of its %d items was skipped", n)
	default:
		e.outcome = record.Succeeded
	}
	return e
}
