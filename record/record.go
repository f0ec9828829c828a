// Package record keeps the record of runs: run folders, run.json and its
// events, the run log, listing and finding runs, the activity log, and gc
// (docs/design.md §7.5, §7.7).
package record

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

// RecordVersion is the version of run.json's format.
const RecordVersion = 1

// Record is a run's record, run.json (docs/design.md §7.5): what ran, on what, with which
// flags, and how each step stands. It never holds environment values.
type Record struct {
	Version int    `json:"version"`
	Process string `json:"process"`
	File    string `json:"file"`
	SHA256  string `json:"sha256"`
	// Repo is the realpath of the repository's git common dir.
	Repo      string      `json:"repo"`
	Issue     string      `json:"issue"`
	Directive string      `json:"directive"`
	Flags     RecordFlags `json:"flags"`
	// Stubbed is set for a run whose agent sessions, and catalogue
	// steps, were answered from stubs (cairn run --stubs, cairn test):
	// its stubs are StubsFile in its folder. Left out otherwise.
	Stubbed bool   `json:"stubbed,omitempty"`
	Status  Status `json:"status"`
	// Cause is why the run failed when it was refused before its first
	// step (a worktree that could not be created, an issue it could not
	// write): no step says why then. Empty otherwise; a failed step's
	// cause is the step's.
	Cause string `json:"cause"`
	// Host and PID name the running cairn, for `cairn stop`.
	Host  string     `json:"host"`
	PID   int        `json:"pid"`
	Start time.Time  `json:"start"`
	End   *time.Time `json:"end"`
	// Expires is stamped at the run's end: an RFC 3339 date, or "never"
	// once a user pins the run; empty while it runs.
	Expires string `json:"expires"`
	// Usage is what the run's agent sessions used, its steps' usage
	// summed (StepsUsage), kept by every change of a step; empty, and left
	// out, when no session reported anything.
	Usage ir.Usage `json:"usage,omitzero"`
	// Worktrees are the run's worktrees as they were opened, with the
	// commit each started from, which resume starts them from again.
	Worktrees []WorktreeRecord `json:"worktrees"`
	// Steps are every step of the plan, in file order, Pending at the
	// start.
	Steps []StepRecord `json:"steps"`
}

// WorktreeRecord is one worktree of a run: its name and kind, its path, and
// the commit it started from ("" in a repository with no commits).
type WorktreeRecord struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Path string `json:"path"`
	Base string `json:"base"`
}

// RecordFlags are the command-line flags a run was started with, so that
// resume can start it again with the same ones.
type RecordFlags struct {
	Harness   string   `json:"harness"`
	Model     string   `json:"model"`
	Effort    string   `json:"effort"`
	Access    string   `json:"access"`
	Jobs      int      `json:"jobs"`
	Merge     bool     `json:"merge"`
	RepairCap int      `json:"repair_cap"`
	Protect   []string `json:"protect"`
	TakeOver  bool     `json:"take_over"`
	// Budget is --budget, in US dollars; 0, and left out, when it was not
	// given.
	Budget float64 `json:"budget_usd,omitempty"`
}

// StepRecord is how one step of a run stands or ended.
type StepRecord struct {
	Name     string `json:"name"`
	Worktree string `json:"worktree"`
	Parallel string `json:"parallel"`
	// Needs are the steps it waits for (ir.PlanStep.Needs), set, empty
	// or not, only in a run of a process whose steps write needs: a run's
	// picture draws them (views.RunGraph); without them a step waits for
	// the stage before it.
	Needs    []string       `json:"needs,omitzero"`
	Optional bool           `json:"optional"`
	Outcome  Outcome        `json:"outcome"`
	Start    *time.Time     `json:"start"`
	End      *time.Time     `json:"end"`
	Actions  []ActionRecord `json:"actions"`
	ExitCode int            `json:"exit_code"`
	Cause    string         `json:"cause"`
	// Result and Trace are relative to the run folder (results/NAME.md,
	// traces/NAME.jsonl), set once written.
	Result string `json:"result"`
	Trace  string `json:"trace"`
	// Output is the step's valid output, relative to the run folder
	// (results/NAME.json), set once saved; empty for a step without an
	// output schema.
	Output string `json:"output,omitempty"`
	// GitRef is the commit the step's work ended at (docs/design.md §7.6: after its
	// fallback commit), in commit mode and in a worktree it committed in.
	GitRef string `json:"git_ref"`
	// Baseline is the commit the step's worktree was at when the step
	// first started: a judge reads the step's whole diff since (docs/design.md §7.2),
	// the work of an earlier attempt included when the step is resumed.
	Baseline string `json:"baseline,omitempty"`
	// Validate is how the step's validate phase judged it; nil until it
	// ran, and for a step without one.
	Validate *ValidateRecord `json:"validate,omitempty"`
	// Shells are the precheck and validate shells the step ran, in the
	// order they ran, each with the files its stdout and stderr are kept
	// in; nil for a step that ran none.
	Shells []ShellRecord `json:"shells,omitempty"`
	// Children are the folders of the child runs a run-published-issue
	// step started (docs/design.md §7.8), in the order they started: relative to the run
	// folder (children/NAME), absolute for a commit-mode child's, which
	// lives in its repository.
	Children []string `json:"children,omitempty"`
	// Usage is what every agent session the step started used, as their
	// CLIs reported it (docs/design.md §8): its run sessions, review retries, judges and
	// repair sessions, the child runs of a run-published-issue step, and
	// those of its earlier attempts, when the run was resumed. JudgeUsage
	// is the judges' share. Both are left out when empty.
	Usage      ir.Usage `json:"usage,omitzero"`
	JudgeUsage ir.Usage `json:"judge_usage,omitzero"`
	// Items are the runs of a step with for_each, one per item of its
	// list in order, each named STEP[N] with its Item (the item's JSON)
	// and its result and output in results/STEP/N.md and N.json; nil
	// until the list is known, and for a step without for_each. The
	// step's Usage is theirs, summed.
	Items []StepRecord    `json:"items,omitempty"`
	Item  json.RawMessage `json:"item,omitempty"`
}

// ItemName is the name of the run of step's item n: STEP[N].
func ItemName(step string, n int) string {
	return step + "[" + strconv.Itoa(n) + "]"
}

// StepsUsage is what the steps' sessions used, summed: a run's Usage.
func StepsUsage(steps []StepRecord) ir.Usage {
	var u ir.Usage
	for i := range steps {
		u = u.Plus(steps[i].Usage)
	}
	return u
}

// The statuses of a validate phase.
const (
	VerdictPass         = "pass"
	VerdictFail         = "fail"
	VerdictInconclusive = "inconclusive"
)

// The reason tags of an inconclusive judge (docs/design.md §7.2).
const (
	ReasonMaxTurns           = "max-turns"
	ReasonTimeout            = "timeout"
	ReasonNoStructuredOutput = "no-structured-output"
	ReasonUnknown            = "unknown"
)

// ValidateRecord is how a step's validate phase ended (docs/design.md §7.2): its status
// (pass, fail or inconclusive); the judge's reasoning when instructions
// were judged; for an inconclusive judge, its reason tag and what happened
// in one line; how many judge sessions ran and how many times a "review"
// severity sent the run agent back to work.
type ValidateRecord struct {
	Status    string `json:"status"`
	Reasoning string `json:"reasoning,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Error     string `json:"error,omitempty"`
	Judges    int    `json:"judges"`
	Retries   int    `json:"retries"`
}

// The statuses of a precheck or validate shell.
const (
	ShellPass = "pass"
	ShellFail = "fail"
	// ShellSkip is a precheck shell's that exited $CHECK_SKIP.
	ShellSkip = "skip"
)

// ShellRecord is one run of a precheck or validate shell: its phase, its
// place among the phase's shells (from 1), the round of the phase it ran
// in (a review retry validates again in round 2, 3…; a precheck has one),
// how it ended (status pass, fail or skip; its exit code; why it failed),
// and its output: Stdout and Stderr are the files its streams are kept in,
// relative to the run folder (shells/STEP.PHASE.N.stdout, .stderr), Lines
// counts the lines it wrote to both, and Tail, for a shell that failed, is
// their last lines, stdout and stderr together, made safe for a terminal.
type ShellRecord struct {
	Phase    ir.PhaseKind `json:"phase"`
	Shell    int          `json:"shell"`
	Round    int          `json:"round"`
	Status   string       `json:"status"`
	ExitCode int          `json:"exit_code"`
	Cause    string       `json:"cause,omitempty"`
	Stdout   string       `json:"stdout"`
	Stderr   string       `json:"stderr"`
	Lines    int          `json:"lines"`
	Tail     string       `json:"tail,omitempty"`
}

// ActionRecord is one action of a step: its kind, the harness, model and
// effort a session ran with, and how it ended. A command that failed also
// keeps, as a failed shell's record does, the count of the lines it wrote
// (stdout and stderr together) and Tail, the last of them, made safe for a
// terminal; Output says its result file holds that output (it wrote no
// $CAIRN_RESULT).
type ActionRecord struct {
	Kind     ir.ActionKind `json:"kind"`
	Harness  string        `json:"harness"`
	Model    string        `json:"model"`
	Effort   string        `json:"effort"`
	ExitCode int           `json:"exit_code"`
	Cause    string        `json:"cause"`
	Lines    int           `json:"lines,omitempty"`
	Tail     string        `json:"tail,omitempty"`
	Output   bool          `json:"output_in_result,omitempty"`
}

// Event is one line of events.jsonl: either a step's whole new record, or
// the run's new status with its end and expiry.
type Event struct {
	Time time.Time   `json:"time"`
	Step *StepRecord `json:"step,omitempty"`
	// Of and Index say that Step is the record of item Index of the step
	// Of (for_each): a compiled script's event.
	Of      string     `json:"of,omitempty"`
	Index   int        `json:"index,omitempty"`
	Status  Status     `json:"status,omitempty"`
	End     *time.Time `json:"end,omitempty"`
	Expires string     `json:"expires,omitempty"`
}

// PlanSteps are the step records a run of p starts with: every step in file
// order, Pending, with the kind, harness, model and effort of each action.
func PlanSteps(p *ir.Plan) []StepRecord {
	var steps []StepRecord
	needs := p.WritesNeeds()
	for _, stage := range p.Stages {
		for _, s := range stage {
			sr := StepRecord{
				Name:     s.Name,
				Worktree: s.Worktree,
				Parallel: s.Parallel,
				Optional: s.Optional,
				Outcome:  Pending,
				Actions:  make([]ActionRecord, 0, len(s.Actions)),
			}
			if needs {
				sr.Needs = append([]string{}, s.Needs...)
			}
			for _, a := range s.Actions {
				sr.Actions = append(sr.Actions, ActionRecord{
					Kind:    a.Kind,
					Harness: planSettingValue(a.Harness),
					Model:   planSettingValue(a.Model),
					Effort:  planSettingValue(a.Effort),
				})
			}
			steps = append(steps, sr)
		}
	}
	return steps
}

// planSettingValue is s's value, "" when s is nil.
func planSettingValue(s *ir.Setting) string {
	if s == nil {
		return ""
	}
	return s.Value
}

// Ended reports whether the step has an outcome: it is neither pending nor
// running.
func (s *StepRecord) Ended() bool {
	return s.Outcome != Pending && s.Outcome != Running && s.Outcome != ""
}

// Clone is a deep copy of r: nothing in it shares memory with r.
func (r *Record) Clone() Record {
	c := *r
	c.Flags.Protect = slices.Clone(r.Flags.Protect)
	c.End = copyTime(r.End)
	c.Worktrees = slices.Clone(r.Worktrees)
	c.Usage = r.Usage.Plus(ir.Usage{})
	if r.Steps != nil {
		c.Steps = make([]StepRecord, len(r.Steps))
		for i := range r.Steps {
			c.Steps[i] = r.Steps[i].Clone()
		}
	}
	return c
}

// Clone is a deep copy of s.
func (s *StepRecord) Clone() StepRecord {
	c := *s
	c.Start, c.End = copyTime(s.Start), copyTime(s.End)
	c.Actions = slices.Clone(s.Actions)
	c.Needs = slices.Clone(s.Needs)
	c.Children = slices.Clone(s.Children)
	c.Shells = slices.Clone(s.Shells)
	c.Item = slices.Clone(s.Item)
	if s.Items != nil {
		c.Items = make([]StepRecord, len(s.Items))
		for i := range s.Items {
			c.Items[i] = s.Items[i].Clone()
		}
	}
	c.Usage, c.JudgeUsage = s.Usage.Plus(ir.Usage{}), s.JudgeUsage.Plus(ir.Usage{})
	if s.Validate != nil {
		v := *s.Validate
		c.Validate = &v
	}
	return c
}

func copyTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

// withArrays makes r's lists empty rather than nil, so that its JSON has
// arrays where readers expect them.
func (r *Record) withArrays() {
	if r.Flags.Protect == nil {
		r.Flags.Protect = []string{}
	}
	if r.Steps == nil {
		r.Steps = []StepRecord{}
	}
	if r.Worktrees == nil {
		r.Worktrees = []WorktreeRecord{}
	}
	for i := range r.Steps {
		if r.Steps[i].Actions == nil {
			r.Steps[i].Actions = []ActionRecord{}
		}
	}
}

// sameStep reports whether a and b record the same state of a step.
func sameStep(a, b *StepRecord) bool {
	return a.Name == b.Name && a.Worktree == b.Worktree && a.Parallel == b.Parallel &&
		a.Optional == b.Optional && a.Outcome == b.Outcome &&
		sameTime(a.Start, b.Start) && sameTime(a.End, b.End) &&
		slices.Equal(a.Actions, b.Actions) &&
		a.ExitCode == b.ExitCode && a.Cause == b.Cause &&
		a.Result == b.Result && a.Trace == b.Trace && a.Output == b.Output && a.GitRef == b.GitRef && a.Baseline == b.Baseline &&
		sameValidate(a.Validate, b.Validate) && slices.Equal(a.Children, b.Children) &&
		slices.Equal(a.Shells, b.Shells) && a.Usage.Equal(b.Usage) && a.JudgeUsage.Equal(b.JudgeUsage)
}

// sameValidate reports whether a and b are both nil or equal.
func sameValidate(a, b *ValidateRecord) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// sameHeader reports whether a and b agree on everything but the steps and
// the fields a status event carries (status, end, expires).
func sameHeader(a, b *Record) bool {
	return a.Version == b.Version && a.Process == b.Process && a.File == b.File &&
		a.SHA256 == b.SHA256 && a.Repo == b.Repo && a.Issue == b.Issue &&
		a.Directive == b.Directive && a.Host == b.Host && a.PID == b.PID && a.Cause == b.Cause &&
		a.Start.Equal(b.Start) &&
		a.Flags.Harness == b.Flags.Harness && a.Flags.Model == b.Flags.Model &&
		a.Flags.Effort == b.Flags.Effort && a.Flags.Access == b.Flags.Access &&
		a.Flags.Budget == b.Flags.Budget && a.Flags.Jobs == b.Flags.Jobs &&
		a.Flags.Merge == b.Flags.Merge && a.Flags.RepairCap == b.Flags.RepairCap &&
		a.Flags.TakeOver == b.Flags.TakeOver && slices.Equal(a.Flags.Protect, b.Flags.Protect) &&
		slices.Equal(a.Worktrees, b.Worktrees)
}

// sameTime reports whether a and b are both nil or the same instant.
func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// apply applies one event to r: a step's record replaces the step of its
// name (or is appended, for a step the plan grew), a status sets the run's
// status, end and expiry.
func (r *Record) apply(ev *Event) {
	if ev.Step != nil && ev.Of != "" {
		for i := range r.Steps {
			if s := &r.Steps[i]; s.Name == ev.Of && ev.Index >= 0 && ev.Index < 1<<16 {
				for len(s.Items) <= ev.Index {
					s.Items = append(s.Items, StepRecord{})
				}
				s.Items[ev.Index] = *ev.Step
			}
		}
		return
	}
	if ev.Step != nil {
		defer func() { r.Usage = StepsUsage(r.Steps) }()
		for i := range r.Steps {
			if r.Steps[i].Name == ev.Step.Name {
				items := r.Steps[i].Items
				r.Steps[i] = *ev.Step
				if r.Steps[i].Items == nil {
					// A script's event of a step with for_each leaves
					// out the items its own events gave.
					r.Steps[i].Items = items
				}
				return
			}
		}
		r.Steps = append(r.Steps, *ev.Step)
		return
	}
	if ev.Status != "" {
		r.Status, r.End, r.Expires = ev.Status, ev.End, ev.Expires
	}
}

// Outcome is how a step ended (docs/design.md §7.3).
type Outcome string

// The step outcomes. Pending and Running are the states of a step that has
// not ended yet. Inconclusive is a step whose work is done but whose judge
// reached no verdict (docs/design.md §7.2): it fails nothing, and is not run again.
const (
	Pending      Outcome = "pending"
	Running      Outcome = "running"
	Succeeded    Outcome = "succeeded"
	Failed       Outcome = "failed"
	Inconclusive Outcome = "inconclusive"
	Skipped      Outcome = "skipped"
	Cancelled    Outcome = "cancelled"
	Interrupted  Outcome = "interrupted"
)

// Status is how a run stands or ended (docs/design.md §7.5). Crashed is never written: it is
// what a reader calls a running record whose lock is free.
type Status string

// The run statuses.
const (
	StatusRunning      Status = "running"
	StatusSucceeded    Status = "succeeded"
	StatusFailed       Status = "failed"
	StatusInterrupted  Status = "interrupted"
	StatusInconclusive Status = "inconclusive"
	StatusCrashed      Status = "crashed"
)
