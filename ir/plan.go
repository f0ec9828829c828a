package ir

import "time"

// Source says where a resolved setting came from (docs/design.md §6.2).
type Source string

// The sources of a resolved setting, strongest first. FromProcess is a
// process file's top-level key, its default for its steps (access).
const (
	FromStep    Source = "step"
	FromProcess Source = "process"
	FromFlag    Source = "flag"
	FromConfig  Source = "config"
	FromFile    Source = "file"
	FromDefault Source = "default"
)

// Setting is one resolved value with the source that won. An empty Value from
// FromDefault means the harness's own choice: no flag is passed. Tier is set
// when the value was written as a model tier or alias and mapped.
type Setting struct {
	Value  string `json:"value"`
	Source Source `json:"source"`
	Tier   string `json:"tier,omitempty"`
	// TierMap says where Tier was mapped to Value: TierFromConfig or
	// TierBuiltin; empty for a value that names no tier.
	TierMap string `json:"tier_map,omitempty"`
	// Passed is what the harness's CLI is given for Value when that is
	// another value (codex's effort for max is xhigh); empty when it is
	// Value itself, or nothing.
	Passed string `json:"passed,omitempty"`
}

// The places a model tier is mapped to a harness's model.
const (
	TierFromConfig = "config" // [models.HARNESS] TIER in config.toml
	TierBuiltin    = "built-in"
)

// IntSetting is a resolved number with the source that won.
type IntSetting struct {
	Value  int    `json:"value"`
	Source Source `json:"source"`
	// Ignored says why the harness's CLI is not given Value ("codex takes
	// no turn cap"); empty when it is.
	Ignored string `json:"ignored,omitempty"`
}

// FloatSetting is a resolved amount with the source that won: a budget in
// US dollars.
type FloatSetting struct {
	Value  float64 `json:"value"`
	Source Source  `json:"source"`
}

// The expiries of a run whose file sets none (docs/design.md §7.7).
const (
	DefaultRunExpiry       = "30d"
	DefaultFailedRunExpiry = "90d"
	// DefaultMaxItems is the most items a for_each may run over when
	// the config's [limits] max_items sets no other limit.
	DefaultMaxItems = 20
)

// DefaultHarness is the harness of a session that nothing names a harness
// for: not the step, the command line nor the config (docs/design.md §5).
const DefaultHarness = "claude"

// Plan is a process resolved against the config, the command line and the
// issue: exactly what `cairn run` would carry out. Its JSON form is the
// public interface of `cairn check --format json` (docs/design.md §10).
type Plan struct {
	Process         string     `json:"process"`
	File            string     `json:"file"`
	Format          Format     `json:"format"`
	Description     string     `json:"description"`
	Issue           string     `json:"issue"`
	Commit          bool       `json:"commit"`
	RunExpiry       string     `json:"run_expiry"`
	FailedRunExpiry string     `json:"failed_run_expiry"`
	Limits          PlanLimits `json:"limits"`
	// Repair is the session a delivery step's repair loop starts for each
	// round of fixing (docs/design.md §7.8): the built-in cairn-repair skill on the
	// default harness, with the model and effort of a session that names
	// none. It is nil when no step delivers.
	Repair    *PlanAction     `json:"repair,omitempty"`
	Worktrees []PlanWorktree  `json:"worktrees"`
	Stages    [][]PlanStep    `json:"stages"`
	Harnesses []HarnessStatus `json:"harnesses"`

	// Notify, Resources, Trusted and CustomHarnesses are what a run takes
	// from the user config besides the settings above. They belong to the
	// user and the machine, not to the process, so the plan's JSON (docs/design.md §10)
	// leaves them out: a [notify] command may carry a secret.
	Notify    PlanNotify    `json:"-"`
	Resources PlanResources `json:"-"`
	// Trusted are the accounts whose issue text and comments a run on an
	// issue keeps (docs/design.md §7.8).
	Trusted         []string        `json:"-"`
	CustomHarnesses []CustomHarness `json:"-"`
}

// PlanNotify is the config's [notify] (docs/design.md §7.9): the command a run's end
// runs. When OnSet is false it runs at every end; else at the ends On
// lists ("failure", "success"). Header is the [notify] table's, where a
// refusal of it points.
type PlanNotify struct {
	Command []string
	On      []string
	OnSet   bool
	Header  Range
}

// PlanResources is the config's [resources] (docs/design.md §7.9), read: what a session
// step waits for before it starts. A zero MaxLoad or MinFreeMemory waits
// for nothing. The texts are the values as the config writes them
// ("2GiB", "30m"), for messages. Header is the [resources] table's, where a
// refusal of it points.
type PlanResources struct {
	// MaxLoad is the 1-minute load average a step waits to fall to.
	MaxLoad float64
	// MinFreeMemory is the bytes of available memory a step waits for.
	MinFreeMemory     int64
	MinFreeMemoryText string
	// Wait is how long a session waits for the machine before it starts
	// anyway, with a warning.
	Wait     time.Duration
	WaitText string
	Header   Range
}

// CustomHarness is a [harnesses.NAME] of the config (docs/design.md §8): Command is an
// argv whose items may hold {{.Model}}, {{.Effort}}, {{.Access}},
// {{.MaxTurns}} and {{.Worktree}}; Preflight is the argv that proves it can start (Command's
// first item when empty). Usage ([harnesses.NAME.usage]) maps figures of a
// Usage, by their names in UsageKeys, to the JSON paths in the CLI's output
// that report them (".total_cost_usd").
type CustomHarness struct {
	Name      string
	Command   []string
	Preflight []string
	Usage     map[string]string
}

// UsageKeys are the names of a Usage's figures, as a record writes them and
// a custom harness's [harnesses.NAME.usage] names them.
var UsageKeys = []string{"turns", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd"}

// PlanLimits are the effective limits of a run (docs/design.md §6.3). BudgetUSD is the
// most the run may spend, the least of the config's, the file's and
// --budget; nil when none sets one. BudgetAt is where the budget that won
// was written, the file's or the config's value (none for --budget), for a
// refusal of it.
type PlanLimits struct {
	RepairCap      IntSetting    `json:"repair_cap"`
	SelfMerge      bool          `json:"self_merge"`
	Merge          Setting       `json:"merge"`
	ProtectedPaths []string      `json:"protected_paths"`
	BudgetUSD      *FloatSetting `json:"budget_usd,omitempty"`
	BudgetAt       Range         `json:"-"`
	// DailyBudgetUSD is the config's [limits] daily_budget_usd: the most
	// every run of the home that starts on one UTC day may spend
	// together; nil when it sets none.
	DailyBudgetUSD *FloatSetting `json:"daily_budget_usd,omitempty"`
}

// PlanWorktree is a worktree of the plan. Base is the base branch it starts
// from; Branch is set for issue-branch worktrees; Implicit marks the
// "default" worktree no file declared. Copy lists what is copied into it
// after it is made, Setup the script run in it then (empty: none), under
// SetupTimeout.
type PlanWorktree struct {
	Name         string     `json:"name"`
	Kind         string     `json:"kind"`
	Base         string     `json:"base"`
	Branch       string     `json:"branch"`
	Implicit     bool       `json:"implicit"`
	Copy         []PlanCopy `json:"copy"`
	Setup        string     `json:"setup"`
	SetupTimeout string     `json:"setup_timeout"`
}

// PlanCopy is one glob of a worktree's copy. Source says where it was
// written: CopyFromFile (the process file's copy, a doublestar glob
// matched against paths from the repository's root) or CopyFromInclude
// (a gitignore-style pattern of the repository's .worktreeinclude).
type PlanCopy struct {
	Glob   string `json:"glob"`
	Source string `json:"source"`
}

// The sources of a PlanCopy.
const (
	CopyFromFile    = "file"
	CopyFromInclude = WorktreeInclude
)

// PlanStep is a step of the plan with its actions resolved.
type PlanStep struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Worktree    string `json:"worktree"`
	Parallel    string `json:"parallel"`
	// Needs are the steps this one waits for, in file order: those its
	// needs name (NeedsWritten), else the step or parallel group before
	// it.
	Needs        []string `json:"needs"`
	NeedsWritten bool     `json:"needs_written"`
	// When is the step's condition as written (package expr), "" for
	// none: false skips the step.
	When string `json:"when"`
	// ForEach is the step's list as written (package expr), "" for none:
	// the step runs once per item. MaxItems is the most items it may
	// have (the config's [limits] max_items, else DefaultMaxItems); 0
	// without ForEach.
	ForEach  string       `json:"for_each"`
	MaxItems int          `json:"max_items"`
	Optional bool         `json:"optional"`
	Timeout  string       `json:"timeout"`
	Env      []PlanEnv    `json:"env"`
	Actions  []PlanAction `json:"actions"`
	Precheck *PlanPhase   `json:"precheck"`
	Validate *PlanPhase   `json:"validate"`
	// Output is the step's typed output; nil when it declares none.
	Output *PlanOutput `json:"output,omitempty"`
}

// PlanEnv is one environment variable a step sets.
type PlanEnv struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// PlanAction is one resolved action. Harness, Model, Effort, Access,
// MaxTurns and Sandbox are set for sessions only; BudgetUSD for a session
// whose step sets budget_usd, the most the step's sessions may spend
// (besides the run's budget).
type PlanAction struct {
	Kind        ActionKind    `json:"kind"`
	Skill       *PlanSkill    `json:"skill,omitempty"`
	Prompt      string        `json:"prompt,omitempty"`
	Command     string        `json:"command,omitempty"`
	Catalogue   string        `json:"catalogue,omitempty"`
	Process     string        `json:"process,omitempty"`
	SpecProcess string        `json:"spec_process,omitempty"`
	Harness     *Setting      `json:"harness,omitempty"`
	Model       *Setting      `json:"model,omitempty"`
	Effort      *Setting      `json:"effort,omitempty"`
	Access      *Setting      `json:"access,omitempty"`
	MaxTurns    *IntSetting   `json:"max_turns,omitempty"`
	Sandbox     *PlanSandbox  `json:"sandbox,omitempty"`
	BudgetUSD   *FloatSetting `json:"budget_usd,omitempty"`
}

// PlanSandbox says whether a sandbox confines a session's commands to its
// worktree (Active), with what confines them or why nothing does
// ("codex's workspace-write sandbox", "none: gemini has no sandbox for
// write access").
type PlanSandbox struct {
	Active bool   `json:"active"`
	Detail string `json:"detail"`
}

// The places a skill can be found, in lookup order (docs/design.md §5).
const (
	SkillRepo    = "repo"
	SkillHome    = "home"
	SkillBuiltin = "builtin"
)

// PlanSkill is the skill file a session step found: Source is one of the
// Skill* constants; Path is relative to the repository for SkillRepo, absolute
// for SkillHome, and "builtin:NAME" for SkillBuiltin.
type PlanSkill struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Source string `json:"source"`
}

// PlanPhase is a precheck or validate phase of the plan. Model is its
// judge's model when it has instructions (or names a model); Harness and
// Access are the judge's harness and access when it has instructions.
type PlanPhase struct {
	Shells       []string `json:"shells"`
	Instructions []string `json:"instructions"`
	Whys         []string `json:"whys"`
	Severity     string   `json:"severity"`
	Model        *Setting `json:"model,omitempty"`
	Harness      *Setting `json:"harness,omitempty"`
	Access       *Setting `json:"access,omitempty"`
}

// HarnessStatus is a harness's preflight result. Checked is false when
// preflight was skipped (--no-preflight, --lint).
type HarnessStatus struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Checked bool   `json:"checked"`
	Detail  string `json:"detail"`
	// LoggedIn is whether the harness's CLI can authenticate, as its own
	// status command or the key variables it reads say: nil when that is
	// unknown (a custom harness, a CLI that cannot start, no preflight).
	LoggedIn *bool `json:"logged_in"`
	// Login says how LoggedIn was found ("ANTHROPIC_API_KEY", "codex
	// login status: Not logged in"); empty when LoggedIn is nil.
	Login string `json:"login,omitempty"`
}
