package record

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
)

// testRecord is a running record of a three-step process.
func testRecord() *Record {
	return &Record{
		Process: "hunt",
		File:    "/p/hunt.toml",
		SHA256:  "abc",
		Repo:    "/r/.git",
		Status:  StatusRunning,
		Host:    "box",
		PID:     os.Getpid(),
		Start:   time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Steps: []StepRecord{
			{Name: "a", Worktree: "a", Outcome: Pending, Actions: []ActionRecord{{Kind: ir.Command}}},
			{Name: "b", Worktree: "a", Outcome: Pending, Actions: []ActionRecord{{Kind: ir.Command}}},
			{Name: "c", Worktree: "a", Outcome: Pending, Actions: []ActionRecord{{Kind: ir.Session, Harness: "claude"}}},
		},
	}
}

// newTestFolder is a begun folder in a temporary runs folder.
func newTestFolder(t *testing.T) *Folder {
	t.Helper()
	f, err := NewFolder(filepath.Join(t.TempDir(), "runs"), "hunt", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := f.Begin(testRecord()); err != nil {
		t.Fatal(err)
	}
	return f
}

// readRecordFile parses run.json as it is on disk, without events.
func readRecordFile(t *testing.T, dir string) Record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("run.json does not parse: %v\n%s", err, b)
	}
	return r
}

// holdOffSnapshots makes f's next snapshots wait, as if one had just been
// written: what Update changes then lives only in events.jsonl.
func holdOffSnapshots(f *Folder) {
	f.mu.Lock()
	f.lastSnap = time.Now().Add(time.Hour)
	f.mu.Unlock()
}

func finish(name string, outcome Outcome, cause string) func(*Record) {
	return func(r *Record) {
		for i := range r.Steps {
			if r.Steps[i].Name == name {
				now := time.Now().UTC()
				r.Steps[i].Outcome, r.Steps[i].Cause, r.Steps[i].End = outcome, cause, &now
			}
		}
	}
}

func TestBeginWritesRecord(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	r := readRecordFile(t, f.Dir)
	if r.Version != RecordVersion || r.Process != "hunt" || len(r.Steps) != 3 || r.Status != StatusRunning {
		t.Fatalf("got %+v", r)
	}
	b, _ := os.ReadFile(filepath.Join(f.Dir, RecordFile))
	for _, key := range []string{`"sha256"`, `"repo"`, `"flags"`, `"repair_cap"`, `"exit_code"`, `"git_ref"`, `"protect": []`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("run.json lacks %s:\n%s", key, b)
		}
	}
}

// TestUpdateEvents holds that each change is one event line, and that a
// change that changes nothing writes none.
func TestUpdateEvents(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	holdOffSnapshots(f)
	steps := func(r *Record) { r.Steps[0].Outcome = Running }
	if err := f.Update(steps); err != nil {
		t.Fatal(err)
	}
	if err := f.Update(steps); err != nil {
		t.Fatal(err)
	}
	if err := f.Update(func(r *Record) {
		r.Steps[0].Actions[0].ExitCode = 3 // in place: still a change
		r.Steps[1].Outcome = Running
		r.Status = StatusFailed
	}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(f.Dir, EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var got []string
	for _, l := range lines {
		var ev Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("event %q: %v", l, err)
		}
		if ev.Step != nil {
			got = append(got, "step "+ev.Step.Name)
		} else {
			got = append(got, "status "+string(ev.Status))
		}
	}
	want := "step a|step a|step b|status failed"
	if strings.Join(got, "|") != want {
		t.Fatalf("events: got %q, want %q", strings.Join(got, "|"), want)
	}
	if r := readRecordFile(t, f.Dir); r.Steps[0].Outcome != Pending {
		t.Fatalf("run.json was rewritten before its time: %+v", r.Steps[0])
	}
}

// TestLoadAfterKill holds that a run killed between snapshots loses
// nothing: Load applies the events to run.json, and calls the run crashed
// once its lock is free.
func TestLoadAfterKill(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	holdOffSnapshots(f)
	for _, fn := range []func(*Record){
		finish("a", Succeeded, ""),
		finish("b", Failed, "exit status 3"),
		func(r *Record) { r.Steps[2].Outcome = Running },
	} {
		if err := f.Update(fn); err != nil {
			t.Fatal(err)
		}
	}
	if r := readRecordFile(t, f.Dir); r.Steps[1].Outcome != Pending {
		t.Fatalf("run.json already holds the events; the test proves nothing")
	}
	rec, err := Load(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusRunning {
		t.Fatalf("status %q while the folder is locked, want running", rec.Status)
	}
	// SIGKILL: the process's files close, with no final snapshot.
	f.events.Close()
	f.log.Close()
	f.lock.Close()
	f.closed = true
	rec, err = Load(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusCrashed {
		t.Errorf("status %q, want crashed", rec.Status)
	}
	got := [3]Outcome{rec.Steps[0].Outcome, rec.Steps[1].Outcome, rec.Steps[2].Outcome}
	if got != [3]Outcome{Succeeded, Failed, Running} {
		t.Errorf("outcomes %v", got)
	}
	if rec.Steps[1].Cause != "exit status 3" {
		t.Errorf("cause %q", rec.Steps[1].Cause)
	}
}

func TestLoadTornLastLine(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	holdOffSnapshots(f)
	if err := f.Update(finish("a", Succeeded, "")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Close wrote the events into run.json; write them again by hand,
	// with a torn line after them.
	ev, _ := json.Marshal(Event{Step: &StepRecord{Name: "b", Outcome: Failed, Cause: "boom"}})
	torn := string(ev) + "\n" + `{"time":"2026-01-02T03:04:06Z","step":{"name":"c","outc`
	if err := os.WriteFile(filepath.Join(f.Dir, EventsFile), []byte(torn), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err := Load(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Steps[0].Outcome != Succeeded || rec.Steps[1].Outcome != Failed || rec.Steps[2].Outcome != Pending {
		t.Fatalf("got %+v", rec.Steps)
	}
	// A bad line that is not the last is not a torn write.
	bad := `{"step":` + "\n" + string(ev) + "\n"
	if err := os.WriteFile(filepath.Join(f.Dir, EventsFile), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(f.Dir); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("got %v, want an error naming line 1", err)
	}
}

// TestSnapshotAtomic holds that run.json always parses while the run
// rewrites it far faster than a real run does (Load's retries are for the
// real pace, one snapshot per 200 ms), and that Load reads the last state.
func TestSnapshotAtomic(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := os.ReadFile(filepath.Join(f.Dir, RecordFile))
			var r Record
			if err == nil {
				err = json.Unmarshal(b, &r)
			}
			if err != nil {
				select {
				case errs <- err:
				default:
				}
				return
			}
		}
	})
	for i := range 200 {
		f.mu.Lock()
		f.lastSnap = time.Time{}
		f.mu.Unlock()
		if err := f.Update(func(r *Record) { r.Steps[i%3].Cause = strings.Repeat("x", i) }); err != nil {
			t.Fatal(err)
		}
		if err := f.Snapshot(); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatalf("a reader saw a broken record: %v", err)
	default:
	}
	rec, err := Load(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Steps[199%3].Cause != strings.Repeat("x", 199) {
		t.Fatalf("last change lost: %+v", rec.Steps)
	}
}

// TestUpdateHeaderSnapshots holds that a change no event carries (the
// directive, say) is written to run.json at once.
func TestUpdateHeaderSnapshots(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	holdOffSnapshots(f)
	if err := f.Update(func(r *Record) { r.Directive = "be brief" }); err != nil {
		t.Fatal(err)
	}
	if r := readRecordFile(t, f.Dir); r.Directive != "be brief" {
		t.Fatalf("directive %q", r.Directive)
	}
}

func TestCloseSnapshotsAndUnlocks(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	holdOffSnapshots(f)
	end := time.Now().UTC()
	if err := f.Update(func(r *Record) {
		r.Status, r.End, r.Expires = StatusSucceeded, &end, "2026-02-01T00:00:00Z"
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	r := readRecordFile(t, f.Dir)
	if r.Status != StatusSucceeded || r.End == nil || r.Expires == "" {
		t.Fatalf("final run.json: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(f.Dir, EventsFile)); len(b) != 0 {
		t.Errorf("events.jsonl holds %q after the final snapshot", b)
	}
	if held, err := proc.Held(filepath.Join(f.Dir, LockFile)); err != nil || held {
		t.Fatalf("lock held after Close: %v %v", held, err)
	}
	if err := f.Update(func(*Record) {}); err == nil {
		t.Fatal("Update after Close succeeded")
	}
}

func TestPlanSteps(t *testing.T) {
	t.Parallel()
	p := &ir.Plan{Stages: [][]ir.PlanStep{
		{{Name: "a", Worktree: "w", Actions: []ir.PlanAction{{Kind: ir.Command}}}},
		{
			{Name: "h1", Worktree: "x", Parallel: "hunt", Optional: true, Actions: []ir.PlanAction{{Kind: ir.Session,
				Harness: &ir.Setting{Value: "claude"}, Model: &ir.Setting{Value: "opus"}, Effort: &ir.Setting{Value: "high"}}}},
			{Name: "h2", Worktree: "y", Parallel: "hunt"},
		},
	}}
	steps := PlanSteps(p)
	if len(steps) != 3 || steps[1].Name != "h1" || !steps[1].Optional || steps[1].Parallel != "hunt" ||
		steps[1].Actions[0] != (ActionRecord{Kind: ir.Session, Harness: "claude", Model: "opus", Effort: "high"}) {
		t.Fatalf("got %+v", steps)
	}
	for _, s := range steps {
		if s.Outcome != Pending || s.Actions == nil {
			t.Errorf("step %q: %+v", s.Name, s)
		}
	}
}

// BenchmarkUpdate500 is one step's update in a run of 500 steps: the cost
// the record adds to each step of docs/design.md §12's 500-step bar.
func BenchmarkUpdate500(b *testing.B) {
	f, err := NewFolder(filepath.Join(b.TempDir(), "runs"), "bench", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rec := testRecord()
	rec.Steps = nil
	for i := range 500 {
		rec.Steps = append(rec.Steps, StepRecord{Name: fmt.Sprint("s", i), Outcome: Pending, Actions: []ActionRecord{{Kind: ir.Command}}})
	}
	if err := f.Begin(rec); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		if err := f.Update(func(r *Record) { r.Steps[i%500].ExitCode = i }); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUpdateShellsEvent holds that a step whose shells alone changed is an
// event, and that its record's shells are its own, not the caller's.
func TestUpdateShellsEvent(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	holdOffSnapshots(f)
	shell := ShellRecord{Phase: ir.ValidatePhase, Shell: 1, Round: 1, Status: ShellFail, ExitCode: 1, Stdout: "shells/a.validate.1.stdout"}
	if err := f.Update(func(r *Record) { r.Steps[0].Shells = []ShellRecord{shell} }); err != nil {
		t.Fatal(err)
	}
	if err := f.Update(func(r *Record) { r.Steps[0].Shells[0].Tail = "boom" }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(f.Dir, EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"tail":"boom"`) {
		t.Fatalf("events:\n%s\nwant two, the second with the tail", b)
	}
	rec := f.Record()
	rec.Steps[0].Shells[0].Tail = "changed by a reader"
	if got := f.Record().Steps[0].Shells[0].Tail; got != "boom" {
		t.Errorf("a copy of the record shares its shells: tail %q", got)
	}
}

// TestUsageRecorded: a step's usage is an event like any change of it, the
// run's usage the steps' summed, in run.json and in a record loaded from
// its events; a record whose sessions reported nothing has no usage keys.
func TestUsageRecorded(t *testing.T) {
	t.Parallel()
	f := newTestFolder(t)
	if b, _ := os.ReadFile(filepath.Join(f.Dir, RecordFile)); strings.Contains(string(b), "usage") {
		t.Fatalf("run.json of a run that used nothing names usage:\n%s", b)
	}
	holdOffSnapshots(f)
	if err := f.Update(func(r *Record) {
		r.Steps[0].Usage = ir.Usage{Turns: ir.Count(2), CostUSD: ir.Dollars(0.1004776)}
		r.Steps[2].Usage = ir.Usage{Turns: ir.Count(1), OutputTokens: ir.Count(10), CostUSD: ir.Dollars(0.0501228)}
		r.Steps[2].JudgeUsage = ir.Usage{CostUSD: ir.Dollars(0.0501228)}
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.Update(func(r *Record) { r.Steps[2].Usage = r.Steps[2].Usage.Plus(ir.Usage{Turns: ir.Count(1)}) }); err != nil {
		t.Fatal(err)
	}
	const total = `{"turns":4,"output_tokens":10,"cost_usd":0.1506004}`
	check := func(what string, r *Record) {
		t.Helper()
		b, err := json.Marshal(r.Usage)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != total {
			t.Errorf("%s: usage %s; want %s", what, b, total)
		}
		if r.Steps[2].JudgeUsage.Cost() != 0.0501228 {
			t.Errorf("%s: judge usage %+v", what, r.Steps[2].JudgeUsage)
		}
	}
	rec := f.Record()
	check("the folder's record", &rec)
	loaded, err := Load(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	check("a record loaded from run.json and its events", loaded)
	if r := readRecordFile(t, f.Dir); !r.Usage.IsZero() {
		t.Fatalf("run.json was rewritten before its time; the test proves nothing")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r := readRecordFile(t, f.Dir)
	check("run.json", &r)
}
