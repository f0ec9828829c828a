package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/internal/atomicfile"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
)

// The names inside a run folder (docs/design.md §7.5).
const (
	RecordFile   = "run.json"
	EventsFile   = "events.jsonl"
	LogFile      = "log"
	ResultsDir   = "results"
	TracesDir    = "traces"
	WorktreesDir = "worktrees"
	LockFile     = ".lock"
	// StubsFile is the stubs a stubbed run was answered from, written
	// out whole: resume answers from them again.
	StubsFile = "stubs.toml"
)

// snapshotEvery is the least time between two rewrites of run.json while a
// run goes on (docs/design.md §7.5); events.jsonl holds what happened in between.
const snapshotEvery = 200 * time.Millisecond

// folderTimeFormat is the time in a run folder's name: PROCESS_2026-01-02T150405Z.
const folderTimeFormat = "2006-01-02T150405Z"

// Folder is the folder of one run, held by the cairn running it: its record,
// events and log, behind one mutex so that parallel steps may update it. The
// folder's lock is held from NewFolder to Close; a reader that finds it free
// under a running record knows the run crashed.
type Folder struct {
	// Dir is the folder's absolute path.
	Dir string

	name string
	lock *os.File

	mu       sync.Mutex
	begun    bool
	closed   bool
	rec      Record
	shadow   Record // rec as the events written so far say it is
	events   *os.File
	log      *os.File
	lastSnap time.Time
	dirty    bool // rec has changed since run.json was last written
	// failed is the first write to the folder that failed: the record on
	// disk may lack what came after, so the run must not end well.
	failed error
	// watch sees every event the folder tells (Watch).
	watch func(RunEvent)
}

// NewFolder creates the folder of a new run of process under runsDir:
// PROCESS_YYYY-MM-DDTHHMMSSZ (now, in UTC), or with -2, -3… when that is
// taken, readable by its owner only, with results/, traces/ and worktrees/
// in it. It takes the folder's lock, held until Close.
func NewFolder(runsDir, process string, now time.Time) (*Folder, error) {
	runsDir, err := filepath.Abs(runsDir)
	if err != nil {
		return nil, fmt.Errorf("create the run folder: %w", err)
	}
	if err := os.MkdirAll(runsDir, 0o700); err != nil {
		return nil, fmt.Errorf("create the run folder: %w", err)
	}
	base := process + "_" + now.UTC().Format(folderTimeFormat)
	name := base
	for n := 2; ; n++ {
		err := os.Mkdir(filepath.Join(runsDir, name), 0o700)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || n > 10000 {
			return nil, fmt.Errorf("create the run folder %q: %w", name, err)
		}
		name = fmt.Sprintf("%s-%d", base, n)
	}
	f := &Folder{Dir: filepath.Join(runsDir, name), name: name}
	// Readers take the lock shared for an instant to tell a crashed run;
	// waiting for one is waiting for nothing.
	f.lock, err = proc.Lock(filepath.Join(f.Dir, LockFile), true)
	if err != nil {
		return nil, fmt.Errorf("lock the run folder %q: %w", name, err)
	}
	for _, sub := range []string{ResultsDir, TracesDir, WorktreesDir} {
		if err := os.Mkdir(filepath.Join(f.Dir, sub), 0o700); err != nil {
			proc.Unlock(f.lock)
			return nil, fmt.Errorf("create the run folder %q: %w", name, err)
		}
	}
	f.log, err = os.OpenFile(filepath.Join(f.Dir, LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		proc.Unlock(f.lock)
		return nil, fmt.Errorf("create the run's log: %w", err)
	}
	return f, nil
}

// ErrRunning is the error of a run folder another cairn holds: its run is
// running.
var ErrRunning = errors.New("the run is running")

// OpenFolder takes up the folder of an earlier run at dir, to resume it
// (docs/design.md §7.7): it takes the folder's lock, without waiting (ErrRunning when
// another cairn holds it), reads its record (run.json and the events
// after it), and opens its events and log for appending. The record is
// begun: Update works at once.
func OpenFolder(dir string) (*Folder, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open the run folder: %w", err)
	}
	f := &Folder{Dir: dir, name: filepath.Base(dir)}
	f.lock, err = proc.Lock(filepath.Join(dir, LockFile), false)
	if errors.Is(err, proc.ErrWouldBlock) {
		return nil, fmt.Errorf("run %q: %w", f.name, ErrRunning)
	}
	if err != nil {
		return nil, fmt.Errorf("lock the run folder %q: %w", f.name, err)
	}
	fail := func(err error) (*Folder, error) {
		proc.Unlock(f.lock)
		return nil, err
	}
	rec, err := Load(dir)
	if err != nil {
		return fail(err)
	}
	// git keeps no empty folder: a run folder checked out of a commit may
	// lack them.
	for _, sub := range []string{ResultsDir, TracesDir, WorktreesDir} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return fail(fmt.Errorf("open the run folder %q: %w", f.name, err))
		}
	}
	if f.log, err = os.OpenFile(filepath.Join(dir, LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
		return fail(fmt.Errorf("open the run's log: %w", err))
	}
	if f.events, err = os.OpenFile(filepath.Join(dir, EventsFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
		f.log.Close()
		return fail(fmt.Errorf("open the run's events: %w", err))
	}
	f.rec = rec.Clone()
	f.rec.withArrays()
	f.shadow = f.rec.Clone()
	f.begun = true
	f.dirty = true
	if err := f.snapshot(); err != nil {
		f.log.Close()
		f.events.Close()
		return fail(err)
	}
	return f, nil
}

// Name is the folder's name, which names the run.
func (f *Folder) Name() string { return f.name }

// Begin writes the run's first record: run.json, and an empty events.jsonl.
func (f *Folder) Begin(rec *Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errors.New("the run folder is closed")
	}
	if f.begun {
		return errors.New("the run record was already begun")
	}
	ev, err := os.OpenFile(filepath.Join(f.Dir, EventsFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("create the run's events: %w", err)
	}
	f.events = ev
	f.rec = rec.Clone()
	if f.rec.Version == 0 {
		f.rec.Version = RecordVersion
	}
	f.rec.withArrays()
	f.shadow = f.rec.Clone()
	f.begun = true
	return f.snapshot()
}

// Update applies fn to the record under the folder's mutex, then appends one
// event to events.jsonl for each step fn changed and one when it changed the
// run's status, end or expiry. run.json is rewritten when fn changed
// anything else, or when snapshotEvery has passed since it last was.
func (f *Folder) Update(fn func(*Record)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.usable(); err != nil {
		return err
	}
	fn(&f.rec)
	// Events carry steps: the run's usage follows from theirs.
	f.rec.Usage = StepsUsage(f.rec.Steps)
	now := time.Now().UTC()
	var lines bytes.Buffer
	enc := json.NewEncoder(&lines)
	enc.SetEscapeHTML(false)
	var changed []int
	for i := range f.rec.Steps {
		s := &f.rec.Steps[i]
		if s.Actions == nil {
			s.Actions = []ActionRecord{}
		}
		if i < len(f.shadow.Steps) && sameStep(s, &f.shadow.Steps[i]) {
			continue
		}
		changed = append(changed, i)
		if err := enc.Encode(Event{Time: now, Step: s}); err != nil {
			return fmt.Errorf("record step %q: %w", s.Name, err)
		}
	}
	if f.rec.Status != f.shadow.Status || !sameTime(f.rec.End, f.shadow.End) || f.rec.Expires != f.shadow.Expires {
		if err := enc.Encode(Event{Time: now, Status: f.rec.Status, End: f.rec.End, Expires: f.rec.Expires}); err != nil {
			return fmt.Errorf("record the run's status: %w", err)
		}
	}
	header := sameHeader(&f.rec, &f.shadow) && len(f.rec.Steps) >= len(f.shadow.Steps)
	if lines.Len() > 0 {
		f.dirty = true
		if _, err := f.events.Write(lines.Bytes()); err != nil {
			return f.fail(fmt.Errorf("record the run's events: %w", err))
		}
	}
	if lines.Len() > 0 || !header {
		f.syncShadow(changed)
	}
	if !header {
		// Events carry steps and the status only: anything else is
		// kept by rewriting run.json now.
		f.dirty = true
		return f.snapshot()
	}
	if f.dirty && time.Since(f.lastSnap) >= snapshotEvery {
		return f.snapshot()
	}
	return nil
}

// syncShadow makes the shadow what the record is now, given the steps that
// changed.
func (f *Folder) syncShadow(changed []int) {
	steps := f.shadow.Steps
	f.shadow = f.rec
	f.shadow.Flags.Protect = slices.Clone(f.rec.Flags.Protect)
	f.shadow.Worktrees = slices.Clone(f.rec.Worktrees)
	f.shadow.End = copyTime(f.rec.End)
	steps = steps[:min(len(steps), len(f.rec.Steps))]
	for _, i := range changed {
		if i < len(steps) {
			steps[i] = f.rec.Steps[i].Clone()
		} else {
			steps = append(steps, f.rec.Steps[i].Clone())
		}
	}
	f.shadow.Steps = steps
}

// Snapshot rewrites run.json at a stage's end: now, unless it was rewritten
// less than snapshotEvery ago, in which case the next Update or Close does
// (docs/design.md §7.5: at most every 200 ms; events.jsonl keeps what happens between).
func (f *Folder) Snapshot() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.usable(); err != nil {
		return err
	}
	if !f.dirty || time.Since(f.lastSnap) < snapshotEvery {
		return nil
	}
	return f.snapshot()
}

// Flush rewrites run.json now when the record changed since it was last
// written, whatever the time: a commit of the run folder (docs/design.md §7.6) must hold
// the record as it stands.
func (f *Folder) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.usable(); err != nil {
		return err
	}
	if !f.dirty {
		return nil
	}
	return f.snapshot()
}

// snapshot writes run.json atomically (a temporary file renamed over it) and
// empties events.jsonl, whose events it now holds. The caller holds f.mu.
func (f *Folder) snapshot() error {
	b, err := json.MarshalIndent(&f.rec, "", "  ")
	if err != nil {
		return f.fail(fmt.Errorf("write the run record: %w", err))
	}
	if err := atomicfile.Write(filepath.Join(f.Dir, RecordFile), append(b, '\n')); err != nil {
		return f.fail(fmt.Errorf("write the run record: %w", err))
	}
	f.lastSnap, f.dirty = time.Now(), false
	// A reader that read the old run.json and then these events sees
	// run.json change under it and reads again (Load).
	if err := f.events.Truncate(0); err != nil {
		return f.fail(fmt.Errorf("write the run record: %w", err))
	}
	return nil
}

// fail keeps err as the folder's first failed write, and returns it. The
// caller holds f.mu.
func (f *Folder) fail(err error) error {
	if f.failed == nil {
		f.failed = err
	}
	return err
}

// Err is the first write to the folder's record or log that failed, nil
// when none has: a run that lost part of its record ends failed with it.
func (f *Folder) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// Record is a copy of the record as it stands.
func (f *Folder) Record() Record {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rec.Clone()
}

// Watch makes fn see every event of the run the folder tells, in order, as
// it is told: `cairn run --json` writes them on stdout. fn is called under
// the folder's mutex, one event at a time.
func (f *Folder) Watch(fn func(RunEvent)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watch = fn
}

// Tell stamps ev with RunEventVersion, the time (when it has none) and the
// run's name, and gives it to the folder's watcher. It works on a closed
// folder too: the run ends after its record is closed.
func (f *Folder) Tell(ev RunEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tell(ev)
}

// tell is Tell; the caller holds f.mu.
func (f *Folder) tell(ev RunEvent) {
	if f.watch == nil {
		return
	}
	ev.V, ev.Run = RunEventVersion, f.name
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	f.watch(ev)
}

// StepStarted tells that step s (or an item) started: its step_start event.
func (f *Folder) StepStarted(s *StepRecord, stubbed bool) {
	l := StepLogLine(s)
	l.Stubbed = stubbed
	f.Tell(stepEvent(EventStepStart, s, l))
}

// LogStep appends the logfmt line of ended step s (or an item) to the run's
// log, and tells its step_end event, both made from one log line
// (StepLogLine): stubbed marks both as a stubbed run's.
func (f *Folder) LogStep(s *StepRecord, stubbed bool) error {
	l := StepLogLine(s)
	l.Stubbed = stubbed
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errors.New("the run folder is closed")
	}
	if _, err := f.log.WriteString(l.String() + "\n"); err != nil {
		return f.fail(fmt.Errorf("write the run's log: %w", err))
	}
	f.tell(stepEvent(EventStepEnd, s, l))
	return nil
}

// Close writes the final run.json and releases the folder's lock. Closing
// twice does nothing.
func (f *Folder) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	var errs []error
	if f.begun {
		if f.dirty {
			errs = append(errs, f.snapshot())
		}
		errs = append(errs, f.events.Close())
	}
	errs = append(errs, f.log.Close())
	// Closing the file releases its flock.
	errs = append(errs, proc.Unlock(f.lock))
	return errors.Join(errs...)
}

// usable fails for a folder whose record was not begun, or that is closed.
// The caller holds f.mu.
func (f *Folder) usable() error {
	switch {
	case f.closed:
		return errors.New("the run folder is closed")
	case !f.begun:
		return errors.New("the run record was not begun")
	}
	return nil
}

// LogLine is one step's line in the run's log (docs/design.md §7.5).
type LogLine struct {
	Step, Kind, Worktree   string
	Harness, Model, Effort string
	Duration               time.Duration
	// Usage is what the step's sessions used.
	Usage   ir.Usage
	Outcome Outcome
	Cause   string
	// Stubbed is set for a step of a stubbed run: stubbed=true ends its
	// line.
	Stubbed bool
}

// String is the line in logfmt: `step=NAME kind=command worktree=a
// harness=- model=- effort=- duration=1.2s outcome=failed cause="exit status
// 3"`, "-" for an empty value, and cause only when there is one (and
// stubbed=true last, in a stubbed run). After the
// duration come what the step's sessions used, each figure when a CLI
// reported it: turns=N, tokens_in=N (every input token, read from the
// prompt cache or not), tokens_out=N, and cost=$0.0123, rounded to a
// hundredth of a cent (run.json keeps it whole), cost=~$0.0123 when cairn
// estimated it from its price table.
func (l LogLine) String() string {
	fields := []string{
		"step", l.Step, "kind", l.Kind, "worktree", l.Worktree,
		"harness", l.Harness, "model", l.Model, "effort", l.Effort,
		"duration", ir.FormatDuration(l.Duration),
	}
	u := l.Usage
	for _, f := range []struct {
		key string
		n   *int64
	}{{"turns", u.Turns}, {"tokens_in", u.InputAll()}, {"tokens_out", u.OutputTokens}} {
		if f.n != nil {
			fields = append(fields, f.key, strconv.FormatInt(*f.n, 10))
		}
	}
	if u.CostUSD != nil {
		fields = append(fields, "cost", u.CostText())
	}
	fields = append(fields, "outcome", string(l.Outcome))
	if l.Cause != "" {
		fields = append(fields, "cause", l.Cause)
	}
	if l.Stubbed {
		fields = append(fields, "stubbed", "true")
	}
	return logfmt(fields...)
}

// StepLogLine is the log line of a step built from its record, for a step
// the log has no line of (it has not ended, or the run crashed first). Its
// kind and harness, model and effort are those of its actions, joined by "+"
// when they differ.
func StepLogLine(s *StepRecord) LogLine {
	l := LogLine{Step: s.Name, Worktree: s.Worktree, Usage: s.Usage, Outcome: s.Outcome, Cause: s.Cause}
	var kinds, harnesses, models, efforts []string
	for _, a := range s.Actions {
		kinds = appendDistinct(kinds, string(a.Kind))
		harnesses = appendDistinct(harnesses, a.Harness)
		models = appendDistinct(models, a.Model)
		efforts = appendDistinct(efforts, a.Effort)
	}
	l.Kind = strings.Join(kinds, "+")
	l.Harness = strings.Join(harnesses, "+")
	l.Model = strings.Join(models, "+")
	l.Effort = strings.Join(efforts, "+")
	if s.Start != nil && s.End != nil {
		l.Duration = s.End.Sub(*s.Start)
	}
	return l
}

// appendDistinct appends v to list unless it is empty or already there.
func appendDistinct(list []string, v string) []string {
	if v == "" || slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
