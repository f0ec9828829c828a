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
