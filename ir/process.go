package ir

import "strings"

// Format is the syntax a process file is written in.
type Format string

// The process file formats.
const (
	TOML Format = "toml"
	HCL  Format = "hcl"
	Card Format = "card"
)

// Strings is a list of strings with a range for the list and for each item.
type Strings = Field[[]Field[string]]

// Values returns the plain values of a Strings field.
func Values(s Strings) []string {
	out := make([]string, 0, len(s.Value))
	for _, f := range s.Value {
		out = append(out, f.Value)
	}
	return out
}

// Pair is one NAME = value entry of a table such as a step's env.
type Pair struct {
	Name string
	Field[string]
}

// Process is one process file as written: every key with its ranges, nothing
// resolved yet. Front-ends fill it; rules read it; nothing else changes it.
type Process struct {
	// Name is the file's stem: "review" for review.toml, "intake" for
	// intake.procedure.card.
	Name   string
	File   string
	Format Format
	// Source is the file's bytes, kept so diagnostics can quote their line.
	Source []byte

	Version         Field[int]
	Description     Field[string]
	DefaultWorktree Field[string]
	Commit          Field[bool]
	RunExpiry       Field[string]
	FailedRunExpiry Field[string]
	Limits          Limits
	Worktrees       []Worktree
	Steps           []Step
	// Access is the top-level access, the default of the process's
	// session steps.
	Access Field[string]
	// GitHub is how the process runs when compiled to a GitHub Actions
	// workflow; cairn run and the bash target read none of it.
	GitHub GitHub
}

// GitHub is a process file's [github] table: the runner its workflow's jobs
// run on (RunsOn, ubuntu-latest when unset), the cron schedules that start
// it besides workflow_dispatch, each job's timeout in minutes, the label
// whose setting on an issue starts a run on it (DefaultLabel when unset),
// and the repository secret holding the token a delivery pushes with.
type GitHub struct {
	// Header is the [github] table or github block; invalid when absent.
	Header         Range
	RunsOn         Field[string]
	Schedule       Strings
	TimeoutMinutes Field[int]
	Label          Field[string]
	PushToken      Field[string]
}

// DefaultLabel is the label that starts a workflow's run on an issue when
// [github] names none.
const DefaultLabel = "cairn"

// Limits are the file's own limits; they may only tighten the config's.
type Limits struct {
	// Header is the [limits] table or limits block; invalid when absent.
	Header         Range
	RepairCap      Field[int]
	SelfMerge      Field[bool]
	ProtectedPaths Strings
	// BudgetUSD is the most the whole run may spend: a TOML or HCL
	// file's [limits] budget_usd, a card's top-level budget-usd.
	BudgetUSD Field[Budget]
	// DailyBudgetUSD is a file's daily_budget_usd, read only to be
	// refused: the daily budget is the config's alone.
	DailyBudgetUSD Field[Budget]
}

// The worktree kinds.
const (
	Throwaway   = "throwaway"
	IssueBranch = "issue-branch"
	Checkout    = "checkout"
)

// IssueFile is the file, at a worktree's root, a session on an issue reads
// the issue from (docs/design.md §7.8). CairnFiles excludes it from git.
const IssueFile = ".cairn-issue.md"

// CairnFiles are the patterns (git exclude syntax) of cairn's own files in
// a worktree: copied skills, the issue file, and in commit mode the
// run-folder scratch files (the lock, the events between two snapshots of
// run.json, temporary files). `cairn run` and compiled scripts exclude them
// from git, so they never make a tree dirty nor get committed.
var CairnFiles = []string{
	"/.cairn/skills/",
	"/.cairn-issue.md",
	"/.cairn/runs/*/.*",
	"/.cairn/runs/*/events.jsonl",
	// A workflow job's record of what its sessions asked gh to write,
	// which the step's publish job makes (codegen's feature outbox).
	"/.cairn/runs/*/outbox/",
}

// CairnPathspecs are git pathspecs for CairnFiles, which are patterns
// in git exclude syntax.
func CairnPathspecs() []string {
	specs := make([]string, 0, len(CairnFiles))
	for _, p := range CairnFiles {
		if rooted, ok := strings.CutPrefix(p, "/"); ok {
			p = rooted
		} else {
			p = "**/" + p
		}
		if strings.HasSuffix(p, "/") {
			p += "**"
		}
		specs = append(specs, ":(glob)"+p)
	}
	return specs
}

// RunsInRepo is where a commit-mode run keeps its folder, relative to the
// root of the working tree it commits in (docs/design.md §7.6).
const RunsInRepo = ".cairn/runs"

// ImplicitWorktree is the name of the throwaway worktree shared by steps that
// name none when the process declares no default_worktree.
const ImplicitWorktree = "default"

// Worktree is one declared worktree.
type Worktree struct {
	Name string
	// Header is the [worktrees.NAME] table header (or HCL block, or the name
	// key of an inline table), where rules about the worktree point.
	Header Range
	// NameRange is the NAME itself.
	NameRange Range
	Kind      Field[string]
	// Copy are globs of files in the user's checkout that git does not
	// track, copied into the worktree after it is made (docs/design.md §7.4).
	Copy Strings
	// Setup is a bash script run once in the worktree, after copying and
	// before its first step, under SetupTimeout (a duration, default
	// DefaultSetupTimeout).
	Setup        Field[string]
	SetupTimeout Field[string]
}

// DefaultSetupTimeout is how long a worktree's setup may run when the file
// says nothing.
const DefaultSetupTimeout = "10m"

// WorktreeInclude is the file at a repository's root whose gitignore-style
// patterns name more files to copy into new worktrees, the convention
// Claude Code and other tools share.
const WorktreeInclude = ".worktreeinclude"

// Step is one step of a process. A TOML or HCL step has exactly one action
// (rule step-kind); a card step has what its run phase lists, shells first,
// then agents, in file order.
//
// The keys a step may leave out (worktree, parallel, optional, timeout,
// env) live in Written, nil when the step wrote none of them, as an
// action's do: read them with Keys, fill them with Fill.
type Step struct {
	// Header is the [[steps]] header, the HCL step block, or the card's
	// "- id:" line: where rules about the whole step point.
	Header      Range
	Name        Field[string]
	Description Field[string]
	Actions     []Action
	Precheck    *Phase
	// Run is a card step's run phase as written (its instructions, whys and
	// severity; its shells and agents are the step's Actions). Nil elsewhere.
	Run      *Phase
	Validate *Phase
	// Written holds the step's other keys, or is nil when none was written.
	Written *StepKeys
	// UnknownKeys is set when the front-end refused a key of this step as
	// unknown: a misspelt "comand" is one mistake, so rule step-kind does not
	// also call the step empty.
	UnknownKeys bool
}

// StepKeys are the keys of a step besides its name, description, actions
// and phases.
type StepKeys struct {
	Worktree Field[string]
	Parallel Field[string]
	// Needs are the steps this one waits for, each above it in the file;
	// unset, it waits for the step or parallel group before it.
	Needs Strings
	// When is the step's condition as written: an expression (package
	// expr) over the outcomes and outputs of the steps it waits for; in
	// HCL a native expression, kept as its source text.
	When Field[string]
	// ForEach is the step's list as written: an expression (package
	// expr) that gives a list, over the steps it waits for; the step runs
	// once per item.
	ForEach  Field[string]
	Optional Field[bool]
	Timeout  Field[string]
	Env      Field[[]Pair]
	// OutputSchema is the JSON Schema of the step's typed output: an
	// inline schema (a JSON object), or a string, the path of a .json
	// file in the repository.
	OutputSchema Field[*JSONValue]
}

// noStepKeys is what Step.Keys returns for a step that wrote none: all
// unset, and never written to (internal/testrepo.Main checks).
var noStepKeys StepKeys

// Keys returns the step's keys besides its name, description, actions and
// phases, all unset when none was written. The result is for reading
// only: it may be shared.
func (s *Step) Keys() *StepKeys { return written(s.Written, &noStepKeys) }

// Fill returns the step's keys for a front-end to fill, making room for
// them on first use.
func (s *Step) Fill() *StepKeys { return fill(&s.Written) }

// ActionKind says what an action does.
type ActionKind string

// The action kinds.
const (
	Command   ActionKind = "command"
	Session   ActionKind = "session"
	Catalogue ActionKind = "catalogue"
)

// The catalogue steps.
const (
	Delivery            = "delivery"
	SelfMerge           = "self-merge"
	RunPublishedIssue   = "run-published-issue"
	DefaultMaxTurns     = 20
	DefaultJudgeTurns   = 16
	DefaultValidateTier = "balanced"
)

// The limits of a validate phase (docs/design.md §7.2), for cairn run and
// the compiled artifacts alike.
const (
	// ReviewRetries is how many times severity "review" sends the run
	// agent back to work before the step fails.
	ReviewRetries = 2
	// JudgeTimeoutSeconds is a judge session's timeout, in seconds, when
	// its step sets none.
	JudgeTimeoutSeconds = 15 * 60
)

// Action is one thing a step does. Which keys mean anything depends on Kind:
// a command has Script; a session has Skill or Prompt and its own Harness,
// Model, Effort, Access, MaxTurns and BudgetUSD (the most the step's
// sessions may spend); a catalogue action has Catalogue and, for
// run-published-issue, Process and SpecProcess. The front-ends copy every
// step-level key onto the action as written, so that rule misplaced-key can
// refuse, say, a model on a command step.
//
// All keys but Script live in Written, which is nil when the step wrote
// none of them: most actions are commands, and the eleven keys a command
// lacks took 1.4 KB per step. Read them with Keys, fill them with Fill.
type Action struct {
	Kind ActionKind
	// Range is the key or list item that made this action (skill = …, the
	// card's "- prompt:" item).
	Range Range

	Script Field[string]

	// Written holds the action's other keys, or is nil when none was
	// written.
	Written *ActionKeys
}

// ActionKeys are the keys of an action besides a command's script.
type ActionKeys struct {
	Skill     Field[string]
	Prompt    Field[string]
	Harness   Field[string]
	Model     Field[string]
	Effort    Field[string]
	Access    Field[string]
	MaxTurns  Field[int]
	BudgetUSD Field[Budget]

	Catalogue   Field[string]
	Process     Field[string]
	SpecProcess Field[string]
}

// noKeys is what Action.Keys returns for an action that wrote none: all
// unset, and never written to (internal/testrepo.Main checks).
var noKeys ActionKeys

// Keys returns the action's keys besides Script, all unset when none was
// written. The result is for reading only: it may be shared.
func (a *Action) Keys() *ActionKeys { return written(a.Written, &noKeys) }

// Fill returns the action's keys for a front-end to fill, making room for
// them on first use.
func (a *Action) Fill() *ActionKeys { return fill(&a.Written) }

// PhaseKind names a phase of a step.
type PhaseKind string

// The phases, in the order they run.
const (
	PrecheckPhase PhaseKind = "precheck"
	RunPhase      PhaseKind = "run"
	ValidatePhase PhaseKind = "validate"
)

// Phase is a step's precheck, run (cards only) or validate phase. Its
// instructions and judge model, which only an agent-judged validate phase
// or a card's run phase has, live in Written, nil when neither was
// written, as a step's other keys do: read them with Keys, fill them with
// Fill.
type Phase struct {
	Kind PhaseKind
	// Header is the [steps.precheck] table, the HCL block, or the card key.
	Header   Range
	Shells   Strings
	Whys     Strings
	Severity Field[string]
	// Written holds the phase's instructions and model, or is nil when
	// neither was written.
	Written *PhaseKeys
}

// PhaseKeys are the keys of a phase that only some phases have.
type PhaseKeys struct {
	Instructions Strings
	// Model is the judge's model tier or name (validate only).
	Model Field[string]
}

// noPhaseKeys is what Phase.Keys returns for a phase that wrote none: all
// unset, and never written to (internal/testrepo.Main checks).
var noPhaseKeys PhaseKeys

// Keys returns the phase's instructions and model, unset when not
// written. The result is for reading only: it may be shared.
func (ph *Phase) Keys() *PhaseKeys { return written(ph.Written, &noPhaseKeys) }

// Fill returns the phase's instructions and model for a front-end to fill,
// making room for them on first use.
func (ph *Phase) Fill() *PhaseKeys { return fill(&ph.Written) }

// The validate severities.
const (
	SeverityWarn   = "warn"
	SeverityAbort  = "abort"
	SeverityReview = "review"
)

// written returns the keys w points to, or unset when w is nil: what the
// Keys methods of Step, Action and Phase share.
func written[K any](w, unset *K) *K {
	if w == nil {
		return unset
	}
	return w
}

// fill returns the keys *w points to, pointing it at new ones first when
// it is nil: what the Fill methods of Step, Action and Phase share.
func fill[K any](w **K) *K {
	if *w == nil {
		*w = new(K)
	}
	return *w
}
