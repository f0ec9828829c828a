package runtime

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// stageLog records what runStage did with each step of a stage.
type stageLog struct {
	mu        sync.Mutex
	started   []string
	cancelled []string
	ended     map[string]record.Outcome
}

func (l *stageLog) cancel(st *ir.PlanStep) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cancelled = append(l.cancelled, st.Name)
}

// start returns a start function for runStage whose steps run body.
func (l *stageLog) start(body func(ctx context.Context, st *ir.PlanStep) record.Outcome) func(*ir.PlanStep) func(context.Context) record.Outcome {
	return func(st *ir.PlanStep) func(context.Context) record.Outcome {
		l.mu.Lock()
		l.started = append(l.started, st.Name)
		l.mu.Unlock()
		return func(ctx context.Context) record.Outcome {
			o := body(ctx, st)
			l.mu.Lock()
			if l.ended == nil {
				l.ended = map[string]record.Outcome{}
			}
			l.ended[st.Name] = o
			l.mu.Unlock()
			return o
		}
	}
}

// runStage schedules the steps of one stage, none needing another.
func runStage(ctx context.Context, stage []ir.PlanStep, jobs int, start func(*ir.PlanStep) func(context.Context) record.Outcome, cancel func(*ir.PlanStep)) bool {
	return runDAG(ctx, [][]ir.PlanStep{stage}, jobs, start, cancel)
}

// runDAG schedules the steps of stages, each waiting for its needs.
func runDAG(ctx context.Context, stages [][]ir.PlanStep, jobs int, start func(*ir.PlanStep) func(context.Context) record.Outcome, cancel func(*ir.PlanStep)) bool {
	d := ir.NewDAG(&ir.Plan{Stages: stages})
	return schedule(ctx, d, make([]bool, len(d.Steps)), jobs,
		func(i int) func(context.Context) record.Outcome { return start(d.Steps[i]) },
		func(i int) { cancel(d.Steps[i]) }, func() bool { return true }, func(int) {})
}

// diamond is a → b, a → c, b + c → d, each step a stage of its own.
func diamond() [][]ir.PlanStep {
	return [][]ir.PlanStep{
		{{Name: "a"}},
		{{Name: "b", Needs: []string{"a"}, NeedsWritten: true}},
		{{Name: "c", Needs: []string{"a"}, NeedsWritten: true}},
		{{Name: "d", Needs: []string{"b", "c"}, NeedsWritten: true}},
	}
}

// TestScheduleDiamond: c starts while b still runs, and d only once both
// have ended.
func TestScheduleDiamond(t *testing.T) {
	t.Parallel()
	var l stageLog
	cStarted, bDone := make(chan struct{}), make(chan struct{})
	failed := runDAG(context.Background(), diamond(), 0, l.start(func(_ context.Context, st *ir.PlanStep) record.Outcome {
		switch st.Name {
		case "b":
			<-cStarted // c runs while b does: b ends only once c has begun
			close(bDone)
		case "c":
			close(cStarted)
		case "d":
			select {
			case <-bDone:
			default:
				t.Errorf("d started before b ended")
			}
		}
		return record.Succeeded
	}), l.cancel)
	if failed || !slices.Equal(l.started[:1], []string{"a"}) || l.started[3] != "d" || len(l.cancelled) != 0 {
		t.Errorf("failed=%v started=%v cancelled=%v; want a first, d last, none cancelled", failed, l.started, l.cancelled)
	}
}

// TestScheduleFailureInDiamond: b fails; c, already running, finishes,
// and d, which needs b, is cancelled.
func TestScheduleFailureInDiamond(t *testing.T) {
	t.Parallel()
	var l stageLog
	cStarted := make(chan struct{})
	failed := runDAG(context.Background(), diamond(), 0, l.start(func(_ context.Context, st *ir.PlanStep) record.Outcome {
		switch st.Name {
		case "b":
			<-cStarted
			return record.Failed
		case "c":
			close(cStarted)
		}
		return record.Succeeded
	}), l.cancel)
	if !failed || l.ended["c"] != record.Succeeded || !slices.Equal(l.cancelled, []string{"d"}) {
		t.Errorf("failed=%v ended=%v cancelled=%v; want a failure, c to succeed, d cancelled", failed, l.ended, l.cancelled)
	}
}

// TestScheduleOptionalNeed: a need that failed but is optional lets the
// steps that need it run.
func TestScheduleOptionalNeed(t *testing.T) {
	t.Parallel()
	var l stageLog
	stages := diamond()
	stages[1][0].Optional = true
	failed := runDAG(context.Background(), stages, 1, l.start(func(_ context.Context, st *ir.PlanStep) record.Outcome {
		if st.Name == "b" {
			return record.Failed
		}
		return record.Succeeded
	}), l.cancel)
	if failed || l.ended["d"] != record.Succeeded || !slices.Equal(l.started, []string{"a", "b", "c", "d"}) {
		t.Errorf("failed=%v started=%v ended=%v; want every step run in file order, d to succeed", failed, l.started, l.ended)
	}
}

func steps(names ...string) []ir.PlanStep {
	out := make([]ir.PlanStep, 0, len(names))
	for _, n := range names {
		out = append(out, ir.PlanStep{Name: n, Parallel: "g"})
	}
	return out
}

func TestRunStageFailureCancelsQueued(t *testing.T) {
	t.Parallel()
	var l stageLog
	failed := runStage(context.Background(), steps("a", "b", "c"), 1, l.start(func(_ context.Context, st *ir.PlanStep) record.Outcome {
		if st.Name == "a" {
			return record.Failed
		}
		return record.Succeeded
	}), l.cancel)
	if !failed {
		t.Errorf("runStage = false; want true after a required step failed")
	}
	if !slices.Equal(l.started, []string{"a"}) || !slices.Equal(l.cancelled, []string{"b", "c"}) {
		t.Errorf("started %v, cancelled %v; want [a], [b c]", l.started, l.cancelled)
	}
}

func TestRunStageRunningMembersFinish(t *testing.T) {
	t.Parallel()
	var l stageLog
	bRunning, aDone := make(chan struct{}), make(chan struct{})
	failed := runStage(context.Background(), steps("a", "b"), 0, l.start(func(_ context.Context, st *ir.PlanStep) record.Outcome {
		if st.Name == "a" {
			// a fails only once b runs: failing sooner, it would
			// rightly cancel b, still queued.
			<-bRunning
			defer close(aDone)
			return record.Failed
		}
		close(bRunning)
		<-aDone // b is still running when a fails
		return record.Succeeded
	}), l.cancel)
	if !failed {
		t.Errorf("runStage = false; want true")
	}
	if len(l.cancelled) != 0 || l.ended["b"] != record.Succeeded {
		t.Errorf("cancelled %v, b ended %q; want b to finish and succeed", l.cancelled, l.ended["b"])
	}
}

func TestRunStageOptionalFailure(t *testing.T) {
	t.Parallel()
	var l stageLog
	stage := steps("a", "b")
	stage[0].Optional = true
	failed := runStage(context.Background(), stage, 1, l.start(func(_ context.Context, st *ir.PlanStep) record.Outcome {
		if st.Name == "a" {
			return record.Failed
		}
		return record.Succeeded
	}), l.cancel)
	if failed || len(l.cancelled) != 0 || l.ended["b"] != record.Succeeded {
		t.Errorf("failed=%v cancelled=%v ended=%v; want an optional failure to stop nothing", failed, l.cancelled, l.ended)
	}
}

func TestRunStageInterrupt(t *testing.T) {
	t.Parallel()
	var l stageLog
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	failed := runStage(ctx, steps("a", "b"), 1, l.start(func(ctx context.Context, st *ir.PlanStep) record.Outcome {
		cancel()
		<-ctx.Done()
		return record.Interrupted
	}), l.cancel)
	if failed {
		t.Errorf("runStage = true; an interrupted step is not a failure")
	}
	if !slices.Equal(l.started, []string{"a"}) || !slices.Equal(l.cancelled, []string{"b"}) {
		t.Errorf("started %v, cancelled %v; want [a], [b]", l.started, l.cancelled)
	}
}

func TestRunStageJobs(t *testing.T) {
	t.Parallel()
	var l stageLog
	var mu sync.Mutex
	active, most := 0, 0
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan bool)
	go func() {
		done <- runStage(context.Background(), steps("a", "b", "c", "d", "e"), 2, l.start(func(context.Context, *ir.PlanStep) record.Outcome {
			mu.Lock()
			active++
			most = max(most, active)
			mu.Unlock()
			entered <- struct{}{}
			<-release
			mu.Lock()
			active--
			mu.Unlock()
			return record.Succeeded
		}), l.cancel)
	}()
	// Two run; each release lets the next one in.
	<-entered
	<-entered
	for range 3 {
		release <- struct{}{}
		<-entered
	}
	release <- struct{}{}
	release <- struct{}{}
	if <-done {
		t.Errorf("runStage = true; nothing failed")
	}
	if most != 2 {
		t.Errorf("at most %d steps ran at once; want 2", most)
	}
	if !slices.Equal(l.started, []string{"a", "b", "c", "d", "e"}) {
		t.Errorf("started %v; want file order", l.started)
	}
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	plan := &ir.Plan{RunExpiry: "30d", FailedRunExpiry: "never"}
	if got := expiry(plan, record.StatusSucceeded, end); got != "2026-01-31T12:00:00Z" {
		t.Errorf("succeeded: expires %q", got)
	}
	if got := expiry(plan, record.StatusInterrupted, end); got != ir.Never {
		t.Errorf("interrupted: expires %q; want never", got)
	}
	plan.FailedRunExpiry = "1w"
	if got := expiry(plan, record.StatusFailed, end); got != "2026-01-08T12:00:00Z" {
		t.Errorf("failed: expires %q", got)
	}
}
