package codegen

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/expr"
	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/machine"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/skills"
	"github.com/cairn-dev/cairn/step/prompts"
	"github.com/cairn-dev/cairn/views"
)

// Inputs are what Bash needs besides the plan: the process file as parsed
// (the ranges of its refusals) and the harnesses its sessions name (the
// plan's, when nil).
type Inputs struct {
	Process   *ir.Process
	Harnesses *harness.Registry
	// ReadFile reads a home skill's SKILL.md; os.ReadFile when nil.
	ReadFile func(path string) ([]byte, error)
	// Source is the process file's bytes, whose SHA-256 the script's
	// run record carries as cairn run's does.
	Source []byte
	// RepoRoot is the root of the repository the process is compiled in:
	// a process file inside it is recorded as that file of the repository
	// the script runs in. Empty records the file's path as it is.
	RepoRoot string
	// Dir is the directory cairn works in (-C), which the plan's file is
	// named relative to; "" for cairn's working directory.
	Dir string
	// Jobs is how many steps of a parallel group a script runs at once
	// unless its --jobs or $CAIRN_JOBS says otherwise; 0 for all.
	Jobs int
	// Children finds and checks, by name, a process a run-published-issue
	// step starts, as `cairn run` finds it on the process path; nil
	// refuses such a step.
	Children func(process string) (*Child, error)
	// parents are the processes whose scripts this one is compiled into
	// (published.go), outermost first; none for a script of its own.
	parents []string
}

// newCompiler is the compiler of plan for target, its inputs' defaults
// filled in, and what target refuses of plan (compiler.refuse).
func newCompiler(plan *ir.Plan, in Inputs, target targetInfo) (*compiler, []ir.Diagnostic) {
	if plan == nil {
		return nil, []ir.Diagnostic{{Rule: ir.RuleNotCompilable, Severity: ir.Error, Message: "no plan to compile"}}
	}
	if in.Harnesses == nil {
		in.Harnesses = harness.NewRegistry(plan.CustomHarnesses)
	}
	if in.ReadFile == nil {
		in.ReadFile = os.ReadFile
	}
	c := &compiler{plan: plan, in: in, at: newPlaces(plan, in.Process), target: target}
	return c, c.refuse()
}

// Bash compiles plan into one standalone bash script (docs/design.md §9) that does what
// `cairn run` does with it, rendered through bash/script.sh.tmpl. What a
// script cannot carry is refused with rule not-compilable at its place in
// the process file; nothing is rendered then. A warning says what of the
// config the script leaves out.
func Bash(plan *ir.Plan, in Inputs) ([]byte, []ir.Diagnostic) {
	c, diags := newCompiler(plan, in, bashInfo)
	if ir.HasErrors(diags) {
		return nil, diags
	}
	s, more := c.script()
	diags = append(diags, more...)
	if ir.HasErrors(diags) {
		return nil, diags
	}
	out, err := bashScript(s)
	if err != nil {
		return nil, append(diags, ir.Diagnostic{
			Rule: ir.RuleNotCompilable, Severity: ir.Error, Range: c.at.file(),
			Message: fmt.Sprintf("cannot render the script: %v", err),
		})
	}
	return afterShebang(out, c.header(s)), diags
}

// compiler is one compilation of a plan.
type compiler struct {
	plan   *ir.Plan
	in     Inputs
	at     *places
	target targetInfo
	// siblings are the workflows of the child processes the plan's
	// run-published-issue steps call (targetInfo.calls), and theirs.
	siblings []Sibling
}

// targetInfo is how a target's refusals name it and what it writes.
type targetInfo struct {
	// name is what --target calls it; artifact what it writes ("script").
	name, artifact string
	// issues is set for a target that carries a run on an issue and its
	// issue-branch worktrees (bash/issue.sh.tmpl).
	issues bool
	// delivers is set for a target that carries delivery and self-merge
	// steps (bash/delivery.sh.tmpl).
	delivers bool
	// publishes is set for a target that carries run-published-issue
	// steps, their child processes compiled in (bash/published.sh.tmpl).
	publishes bool
	// repairs is set for a target that carries a delivery's repair loop
	// (bash/repair.sh.tmpl); unrollsRepairs for one that carries it as
	// jobs, one a session and one a push for each round, when a token of
	// the user's pushes (the pull request's checks run then); another
	// delivers with no repair session.
	repairs, unrollsRepairs bool
	// calls is set for a target whose child processes are artifacts of
	// their own, which the run-published-issue step's jobs call (a
	// workflow's reusable workflows), rather than compiled into it.
	calls bool
	// copies is set for a target that copies the user's untracked files
	// into worktrees (a worktree's copy).
	copies bool
	// waits is set for a target whose sessions wait for the machine the
	// config's [resources] asks for (bash/resources.sh.tmpl): a script's
	// machine is the user's, a workflow's job has a runner of its own.
	waits bool
}

// repairs reports whether the target carries the repair loop of a
// delivery: the bash target always; a workflow when a token of the user's
// pushes.
func (c *compiler) repairs() bool {
	return c.target.repairs || c.target.unrollsRepairs && c.pushToken() != ""
}

// bashInfo names the bash target.
var bashInfo = targetInfo{
	name:      "bash",
	artifact:  "script",
	issues:    true,
	delivers:  true,
	publishes: true,
	repairs:   true,
	copies:    true,
	waits:     true,
}

// scriptResources is the config's [resources] as a script waits for it
// (bash/resources.sh.tmpl, internal/machine's Wait): the load average to
// fall to Load (a number jq reads; "" for none, LoadText as messages write
// it), Memory bytes available (0 for none, MemoryText as the config writes
// it), for at most WaitUS microseconds (WaitText).
type scriptResources struct {
	Load, LoadText string
	Memory         int64
	MemoryText     string
	WaitUS         int64
	WaitText       string
}

// script is the model bash/script.sh.tmpl renders.
type script struct {
	Process     string
	File        string
	Description string
	Bins        []string
	Harnesses   []scriptHarness
	Worktrees   []ir.PlanWorktree
	Steps       []*scriptStep
	StepNames   []string
	// ProcessSteps are the names of every step of the process, in file
	// order, in a workflow's job too.
	ProcessSteps []string
	Stages       [][]int
	LastStage    []int
	// Needs is set when a step writes its needs: the steps then run as
	// each one's needs end (feature needs), not stage by stage, and
	// each step's Earlier are the steps it waits for, directly or not.
	Needs  bool
	Skills []scriptSkill
	// Prompts are the functions that set the parts of the sessions'
	// prompts, one for each kind of prompt.
	Prompts []scriptPrompt
	// CLIs are the functions that start the sessions' CLIs, one for each
	// kind of session.
	CLIs        []*scriptCLI
	HasSessions bool
	// HasSettings is true when a session's CLI gets settings of cairn's
	// (harness.Settings): the script defines settings_overlay.
	HasSettings bool
	// FinalJQ is the jq that reads each harness's final message and
	// usage.
	FinalJQ string
	// UsageJQ is the jq that sums what sessions used.
	UsageJQ     string
	Notify      []string
	NotifyOn    []string
	NotifyOnSet bool
	// Resources is what the sessions wait for the machine to have (the
	// config's [resources]); nil when they wait for nothing.
	Resources *scriptResources
	Excludes  []string
	// Keys are the variables of the agent CLIs' keys
	// (harness.KeyVariables): the script takes them out of its
	// environment and gives them to each session's CLI alone.
	Keys []string
	// RecordFile is the process file as the run record names it: relative
	// to the repository's root when it lies in it, else absolute. SHA256
	// is the file's hash.
	RecordFile string
	SHA256     string
	// RunExpiry and FailedRunExpiry are how long after its end a run that
	// succeeded, or ended otherwise, expires: in microseconds, or "never".
	RunExpiry       string
	FailedRunExpiry string
	// RecordSteps are the steps of the run record as a run begins it, as
	// JSON.
	RecordSteps string
	// Budget is the run's budget in US dollars as the script's jq reads
	// it, empty for none; BudgetText words it ("$4.00"), and BudgetFrom
	// says where it came from.
	Budget, BudgetText, BudgetFrom string
	// Jobs is the default of the script's --jobs.
	Jobs int
	// Commit is set for a process with commit = true (bash/commit.sh.tmpl).
	Commit *scriptCommit
	// Job is set when the script is one job of a workflow (jobScript).
	Job *scriptJob
	// Features are the features of the runtime the script holds, in
	// order; Uses says, by name, whether it holds each (features).
	Features []string
	Uses     map[string]bool
	// Trusted are the config's trusted accounts; IssueJQ and
	// IssueEditsQuery are how the script reads the issue through gh
	// (forge.IssueJQ, forge.IssueEditsQuery), as cairn run does.
	Trusted         []string
	IssueJQ         string
	IssueEditsQuery string
	// HasDelivery and HasSelfMerge say whether a step delivers or
	// self-merges (bash/delivery.sh.tmpl); CairnPathspecs are cairn's own
	// files as pathspecs, which a delivered branch must not carry;
	// ProtectedPaths, SelfMerge and Merge are the plan's limits.
	HasDelivery, HasSelfMerge bool
	CairnPathspecs            []string
	ProtectedPaths            []string
	SelfMerge, Merge          bool
	// RepairCap is the plan's repair cap; Repair, a delivery's repair loop
	// when the cap starts any session (bash/repair.sh.tmpl).
	RepairCap int
	Repair    *scriptRepair
	// RepairJobs is set for a workflow that unrolls the repair loop into
	// jobs (targetInfo.unrollsRepairs).
	RepairJobs bool
	// Merges is set for a script that takes --merge: it self-merges, or a
	// child it starts does.
	Merges bool
	// HasPublished says whether a step runs a published issue
	// (bash/published.sh.tmpl), whose child processes' scripts are
	// Children; PublishedJQ is forge.PublishedJQ.
	HasPublished bool
	Children     []scriptChild
	PublishedJQ  string
	SpecLabel    string
	// OnIssue is set for a script that takes an issue: one with an
	// issue-branch worktree, or a child script, which a run-published-issue
	// step starts on one. IsChild is set for a child script, which makes its
	// run folder in its parent's (--runs) and says where (--began).
	OnIssue, IsChild bool
	// Claims is set for a script that holds its issue's Claim: one with an
	// issue-branch worktree.
	Claims bool
}

// scriptHarness is a harness the script preflights: its CLI on PATH.
type scriptHarness struct {
	Name, Bin string
}

// scriptSkill is a home or built-in skill's text, held in a variable of the
// script.
type scriptSkill struct {
	Var, Body string
}

// scriptStep is one step of the script. Kind, Harness, Model and Effort are
// its log line's, Detail its progress line's.
type scriptStep struct {
	Index                        int
	Name, Worktree               string
	Optional                     bool
	Kind, Harness, Model, Effort string
	Detail                       string
	// Timeout is in seconds, 0 for none; TimeoutText as the file wrote it.
	Timeout     int64
	TimeoutText string
	// Budget is the least budget_usd of its sessions in US dollars, the
	// most they may spend besides the run's budget; empty for none.
	Budget string
	Env    []string
	// Earlier are the steps of earlier stages, in file order (with Needs:
	// the steps it waits for, directly or not): the results a session may
	// be given.
	Earlier []string
	// Publishes is set, in a workflow, for a step whose sessions may
	// publish issues: they run gh as outbox-gh.bash, which records what
	// they ask for the job after the step's (publishJob).
	Publishes bool
	// NeedIndices are the indices of the steps it needs, and Group the
	// index of its stage (with Needs only).
	NeedIndices []int
	Group       int
	// When is the jq program of its when (expr.Expr.JQ), WhenText the
	// when on one line; both empty for a step without one.
	When, WhenText string
	Precheck       *scriptPhase
	Actions        []scriptAction
	Validate       *scriptPhase
	// Settles is set for a step on an issue-branch worktree that may leave
	// work there, which the script commits on the branch after its run
	// phase, as cairn run does.
	Settles *scriptSettle
	// HasSession is set for a step that runs an agent session: in commit
	// mode, what it leaves uncommitted is committed after its run phase.
	HasSession bool
	// Judge judges its validate phase's instructions; Review sends its
	// agent back to work (severity "review"). Nil when it has none.
	Judge  *scriptJudge
	Review *scriptReview
	// Output is how the script checks its typed output; nil without one.
	Output *scriptOutput
	// ForEach is how the step runs once per item; nil without for_each.
	ForEach *scriptForEach
	// Releases is set for the last step in a throwaway: its changes are
	// saved as it ends, as cairn run releases the throwaway, which in
	// commit mode the next commit holds.
	Releases bool
}

// scriptForEach is a step's for_each: the jq program of its list
// (expr.Expr.ItemsJQ), the expression on one line, and the most items it
// may have.
type scriptForEach struct {
	JQ, Text string
	Max      int
}

// scriptSettle is how a step's work is committed on its issue branch:
// Session says it runs a session, whose work is committed however it
// ended; a command's only when it ended well.
type scriptSettle struct {
	Session bool
}

// scriptPhase is a precheck or validate phase: its shells, a precheck's
// whys, a validate's severity.
type scriptPhase struct {
	Shells   []string
	Whys     []string
	Severity string
}

// scriptAction is a command (Command, What naming it where its failure
// is shown), a session (Session) or a catalogue step (Catalogue).
type scriptAction struct {
	Index     int
	Command   string
	What      string
	Session   *scriptSession
	Catalogue *scriptCatalogue
}

// scriptCatalogue is a catalogue action the script carries: Func is its
// function (catalogue_delivery, catalogue_self_merge, catalogue_published),
// Base the base branch its pull request goes into, Args what else it is
// given; Refused, when set, is the cause it fails with before it starts, as
// cairn run's fails.
type scriptCatalogue struct {
	Func    string
	Base    string
	Args    []string
	Refused string
}

// scriptSession is a session action: the skill it reads, its prompt (the
// function that sets its parts, one of script.Prompts, with its inline
// prompt and skill's name when they read them: StepPrompt, SkillNameVar)
// and how its CLI starts (CLI, one of script.CLIs).
type scriptSession struct {
	Index         int
	Harness       string
	SkillName     string
	SkillVar      string
	SkillRepoPath string
	Prompt        string
	StepPrompt    string
	SkillNameVar  string
	CLI           *scriptCLI
}

// scriptCLI is how the sessions of one kind start their CLI, the function
// Name of the script: the harness's argv, the variables it sets over the
// step's environment and the files it writes first (Env, Files), and its
// command given a budget (Budgeted: nil when its CLI takes none; BudgetArgs
// when that is the command with words added), how its final message is
// read (Final: the name of its jq function) and how it ended (End: a jq
// expression, whose usage and budget the script reads), the most bytes of
// prompt its CLI takes whole on stdin, where the prompt goes (MaxPrompt: 0
// for any) and the cause of a longer one, of $prompt_size bytes, and the
// turn cap the script enforces by counting the CLI's events with the jq
// program TurnJQ (0: none) and the cause of a session it stops.
type scriptCLI struct {
	Name        string
	Harness     string
	Final       string
	End         string
	MaxPrompt   int
	PromptCause BashWord
	Argv        []BashWord
	Env         []BashWord
	Files       []harness.File
	Budgeted    *sessionCommand
	BudgetArgs  *budgetArgs
	Settings    *harness.Settings
	MaxTurns    int
	TurnJQ      string
	TurnCause   string
	// Bin is the CLI's program, argv[0].
	Bin string
}

// budgetArgs is a session's command given a budget as its command without
// one (Head, then Tail) with Args between them.
type budgetArgs struct {
	Head, Args, Tail []BashWord
}

// scriptPrompt is the function Name of the script that sets the parts of
// the prompts of sessions alike but for the values its slots hold.
type scriptPrompt struct {
	Name  string
	Words promptWords
}

// script builds the model of the script, with the refusals of what could
// not be rendered.
func (c *compiler) script() (*script, []ir.Diagnostic) {
	plan := c.plan
	sum := sha256.Sum256(c.in.Source)
	s := &script{
		Process:         plan.Process,
		File:            plan.File,
		Description:     plan.Description,
		Worktrees:       c.worktrees(),
		Excludes:        ir.CairnFiles,
		Keys:            harness.KeyVariables,
		UsageJQ:         harness.UsageJQHelpers(),
		RecordFile:      recordFile(workdir.Path(c.in.Dir, plan.File), c.in.RepoRoot),
		SHA256:          hex.EncodeToString(sum[:]),
		RunExpiry:       expiryMicros(plan.RunExpiry, ir.DefaultRunExpiry),
		FailedRunExpiry: expiryMicros(plan.FailedRunExpiry, ir.DefaultFailedRunExpiry),
		Jobs:            max(c.in.Jobs, 0),
		Trusted:         plan.Trusted,
		IssueJQ:         forge.IssueJQ(),
		IssueEditsQuery: forge.IssueEditsQuery,
		CairnPathspecs:  ir.CairnPathspecs(),
		ProtectedPaths:  plan.Limits.ProtectedPaths,
		SelfMerge:       plan.Limits.SelfMerge,
		RepairCap:       plan.Limits.RepairCap.Value,
		Merge:           plan.Limits.Merge.Value == "true",
		PublishedJQ:     forge.PublishedJQ(),
		SpecLabel:       specLabel,
		IsChild:         len(c.in.parents) > 0 && !c.target.calls,
	}
	if len(c.in.parents) > 0 && c.in.RepoRoot != "" {
		// A child's file, found on the process path, as its header names it.
		if rel := recordFile(workdir.Path(c.in.Dir, plan.File), c.in.RepoRoot); !filepath.IsAbs(rel) {
			s.File = rel
		}
	}
	s.Claims = hasIssueBranch(plan)
	s.OnIssue = len(c.in.parents) > 0 || s.Claims
	if b := plan.Limits.BudgetUSD; b != nil && b.Value > 0 {
		s.Budget, s.BudgetText, s.BudgetFrom = usdNumber(b.Value), ir.FormatUSD(b.Value), c.budgetFrom(b.Source)
	}
	var diags []ir.Diagnostic
	kinds := map[string]string{}
	for _, w := range plan.Worktrees {
		kinds[w.Name] = w.Kind
	}
	skillVars := map[string]string{}
	harnesses := map[string]bool{}
	var earlier []string
	dag := ir.NewDAG(plan)
	// A when reads the steps a step waits for: the script schedules by
	// needs then, deciding each when before the step starts.
	s.Needs = plan.WritesNeeds() || slices.ContainsFunc(dag.Steps, func(st *ir.PlanStep) bool { return st.When != "" || st.ForEach != "" })
	for k, stage := range plan.Stages {
		var indices []int
		for i := range stage {
			st := &stage[i]
			ss := c.step(st, len(s.Steps), earlier)
			if s.Needs {
				ss.Earlier, ss.Group = nil, k
				for _, j := range dag.Above[ss.Index] {
					ss.Earlier = append(ss.Earlier, dag.Steps[j].Name)
				}
				ss.NeedIndices = dag.Needs[ss.Index]
			}
			if st.When != "" {
				diags = append(diags, c.when(st, ss)...)
			}
			kind := kinds[st.Worktree]
			if st.ForEach != "" {
				diags = append(diags, c.forEach(st, ss)...)
				// Its items work in throwaways of their own (item_start).
				kind = ir.Throwaway
			}
			for j := range st.Actions {
				a := &st.Actions[j]
				if a.Kind == ir.Catalogue && a.Catalogue == ir.RunPublishedIssue {
					sc, ds := c.published(st, a, j, s)
					diags = append(diags, ds...)
					ss.Actions = append(ss.Actions, scriptAction{Index: j, Catalogue: sc})
					continue
				}
				if a.Kind == ir.Catalogue {
					ss.Actions = append(ss.Actions, scriptAction{Index: j, Catalogue: c.catalogue(st, a, kinds[st.Worktree], s)})
					continue
				}
				if a.Kind != ir.Session {
					ss.Actions = append(ss.Actions, scriptAction{Index: j, Command: a.Command, What: views.CommandWhat(len(st.Actions), j)})
					continue
				}
				sess, bin, ds := c.session(st, a, j, kind, skillVars, s)
				diags = append(diags, ds...)
				if sess == nil {
					continue
				}
				ss.Actions = append(ss.Actions, scriptAction{Index: j, Session: sess})
				ss.HasSession = true
				s.HasSessions = true
				s.HasSettings = s.HasSettings || sess.CLI.Settings != nil
				if !harnesses[sess.Harness] {
					harnesses[sess.Harness] = true
					s.Harnesses = append(s.Harnesses, scriptHarness{Name: sess.Harness, Bin: bin})
					if !slices.Contains(s.Bins, bin) {
						s.Bins = append(s.Bins, bin)
					}
				}
			}
			if kind == ir.IssueBranch && !plan.Commit {
				for _, a := range st.Actions {
					if a.Kind == ir.Session || a.Kind == ir.Command {
						ss.Settles = &scriptSettle{Session: ss.Settles != nil && ss.Settles.Session || a.Kind == ir.Session}
					}
				}
			}
			out, ds := c.output(st)
			ss.Output = out
			diags = append(diags, ds...)
			if v := st.Validate; v != nil && len(v.Instructions) > 0 {
				diags = append(diags, c.judge(st, ss, s)...)
				s.HasSessions = true
			}
			if v := st.Validate; v != nil && v.Severity == ir.SeverityReview {
				diags = append(diags, c.review(st, ss, s)...)
			}
			indices = append(indices, ss.Index)
			s.Steps = append(s.Steps, ss)
			s.StepNames = append(s.StepNames, ss.Name)
		}
		for _, st := range stage {
			earlier = append(earlier, st.Name)
		}
		s.Stages = append(s.Stages, indices)
		s.LastStage = indices
	}
	// The last step in each throwaway releases it (cairn run's
	// Worktrees.Release).
	last := map[string]*scriptStep{}
	for _, ss := range s.Steps {
		last[ss.Worktree] = ss
	}
	for w, ss := range last {
		ss.Releases = kinds[w] == ir.Throwaway
	}
	if s.HasDelivery && s.RepairCap > 0 && !c.repairs() {
		// At [limits] repair_cap, or at the first delivery.
		at := c.at.file()
		for _, st := range s.Steps {
			if slices.ContainsFunc(st.Actions, func(a scriptAction) bool { return a.Catalogue != nil && a.Catalogue.Func == "catalogue_delivery" }) {
				at = c.at.step(st.Name)
				break
			}
		}
		if l := c.at.process; l != nil && l.Limits.RepairCap.Set {
			at = l.Limits.RepairCap.At()
		}
		diags = append(diags, ir.Diagnostic{Rule: ir.RuleNotCompilable, Severity: ir.Warning, Range: at,
			Message: fmt.Sprintf("the repair cap (%d) is not compiled to %s: without a [github] push_token the pull request's checks do not run, so no repair starts; its pull request is left open for review when a check fails or the branch conflicts", s.RepairCap, c.target.name)})
		s.RepairCap = 0
	}
	if s.HasDelivery && s.RepairCap > 0 {
		s.RepairJobs = c.target.unrollsRepairs
		r, err := c.repair(plan.Repair, skillVars, s)
		if err != nil {
			diags = append(diags, notCompilable(c.at.file(), "the repair sessions of a delivery cannot be compiled: %v", err))
		}
		s.Repair = r
		s.HasSessions = true
	}
	s.ProcessSteps = slices.Clone(s.StepNames)
	if plan.Commit {
		s.Commit = newScriptCommit(plan.Process, s.StepNames)
	}
	s.Notify = plan.Notify.Command
	s.NotifyOn = plan.Notify.On
	s.NotifyOnSet = plan.Notify.OnSet
	if res := plan.Resources; c.target.waits && (res.MaxLoad > 0 || res.MinFreeMemory > 0) {
		s.Resources = &scriptResources{Memory: res.MinFreeMemory, MemoryText: res.MinFreeMemoryText, WaitUS: res.Wait.Microseconds(), WaitText: res.WaitText}
		if res.MaxLoad > 0 {
			s.Resources.Load = strconv.FormatFloat(res.MaxLoad, 'f', -1, 64)
			s.Resources.LoadText = machine.FormatLoad(res.MaxLoad)
		}
	}
	diags = append(diags, c.quotable(s)...)
	// The run record begins as cairn run's does: its own step records.
	steps := record.PlanSteps(plan)
	if steps == nil {
		steps = []record.StepRecord{}
	}
	b, err := json.Marshal(steps)
	if err != nil {
		diags = append(diags, notCompilable(c.at.file(), "cannot render the run record's steps: %v", err))
	}
	s.RecordSteps = string(b)
	// The jq of the harnesses its sessions run on, and no other's.
	var used []*harness.Harness
	for _, cli := range s.CLIs {
		if h, ok := c.in.Harnesses.Lookup(cli.Harness); ok {
			used = append(used, h)
		}
	}
	s.FinalJQ = harness.AdapterJQDefs(used)
	s.Merges = s.Merges || s.HasSelfMerge
	s.useFeatures()
	return s, diags
}

// usdNumber is an amount of US dollars as the script's jq reads it: a
// JSON number with no exponent.
func usdNumber(usd float64) string {
	return strconv.FormatFloat(usd, 'f', -1, 64)
}

// budgetFrom says, for the script's comments, where the run's budget of
// source src was set.
func (c *compiler) budgetFrom(src ir.Source) string {
	key := "[limits] budget_usd"
	if p := c.at.process; p != nil && p.Format == ir.Card {
		key = "budget-usd"
	}
	switch src {
	case ir.FromConfig:
		return "the config's [limits] budget_usd when the script was compiled"
	case ir.FromFile:
		return "the process file's " + key
	case ir.FromFlag:
		return "--budget when the script was compiled"
	}
	return string(src)
}

// recordFile is the process file as a script's run record names it: its
// path in the repository at root (the script records it in the repository
// it runs in), or its absolute path when it lies outside, or there is no
// root.
func recordFile(file, root string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return file
	}
	if root == "" {
		return abs
	}
	resolved, err1 := filepath.EvalSymlinks(abs)
	realRoot, err2 := filepath.EvalSymlinks(root)
	if err1 != nil || err2 != nil {
		return abs
	}
	rel, err := filepath.Rel(realRoot, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.ToSlash(rel)
}

// expiryMicros is a run_expiry or failed_run_expiry in microseconds ("never"
// stays "never"), def's when s is not a duration, as cairn run reads it.
func expiryMicros(s, def string) string {
	if s == ir.Never {
		return ir.Never
	}
	d, err := ir.ParseDuration(s)
	if err != nil {
		d, _ = ir.ParseDuration(def)
	}
	return strconv.FormatInt(d.Microseconds(), 10)
}

// step is the script's step st, the index-th of the script, with the steps
// of earlier stages; its actions are added by the caller.
func (c *compiler) step(st *ir.PlanStep, index int, earlier []string) *scriptStep {
	ss := &scriptStep{
		Index:       index,
		Name:        st.Name,
		Worktree:    st.Worktree,
		Optional:    st.Optional,
		Detail:      views.DescribeStep(st),
		TimeoutText: st.Timeout,
		Earlier:     slices.Clone(earlier),
	}
	var kinds, hs, models, efforts []string
	// As cairn run, the step's budget is the least of its sessions'.
	stepBudget := 0.0
	for _, a := range st.Actions {
		kinds = appendDistinct(kinds, string(a.Kind))
		hs = appendDistinct(hs, settingValue(a.Harness))
		models = appendDistinct(models, settingValue(a.Model))
		efforts = appendDistinct(efforts, settingValue(a.Effort))
	}
	ss.Kind, ss.Harness = strings.Join(kinds, "+"), strings.Join(hs, "+")
	ss.Model, ss.Effort = strings.Join(models, "+"), strings.Join(efforts, "+")
	for _, a := range st.Actions {
		if b := a.BudgetUSD; b != nil && b.Value > 0 && (ss.Budget == "" || b.Value < stepBudget) {
			stepBudget, ss.Budget = b.Value, usdNumber(b.Value)
		}
	}
	if st.Timeout != "" {
		if d, err := ir.ParseDuration(st.Timeout); err == nil {
			ss.Timeout = int64((d + time.Second - 1) / time.Second)
		}
	}
	for _, e := range st.Env {
		ss.Env = append(ss.Env, e.Name+"="+e.Value)
	}
	if p := st.Precheck; p != nil && len(p.Shells) > 0 {
		ss.Precheck = &scriptPhase{Shells: p.Shells, Whys: p.Whys}
	}
	if v := st.Validate; v != nil && (len(v.Shells) > 0 || len(v.Instructions) > 0 || v.Severity == ir.SeverityReview) {
		sev := v.Severity
		if sev == "" {
			sev = ir.SeverityAbort
		}
		ss.Validate = &scriptPhase{Shells: v.Shells, Severity: sev}
	}
	return ss
}

// session is the script's session action a (the j-th of step st, in a
// worktree of kind wtKind), and the CLI it starts. A home or built-in skill
// is added to s once, as a variable.
func (c *compiler) session(st *ir.PlanStep, a *ir.PlanAction, j int, wtKind string, skillVars map[string]string, s *script) (*scriptSession, string, []ir.Diagnostic) {
	refuse := func(at ir.Range, format string, args ...any) (*scriptSession, string, []ir.Diagnostic) {
		return nil, "", []ir.Diagnostic{{Rule: ir.RuleNotCompilable, Severity: ir.Error, Range: at, Message: fmt.Sprintf(format, args...)}}
	}
	if a.Harness == nil {
		return refuse(c.at.step(st.Name), "step %q: the session has no harness", st.Name)
	}
	h, ok := c.in.Harnesses.Lookup(a.Harness.Value)
	if !ok {
		return refuse(c.at.harness(st.Name), "step %q: unknown harness %q", st.Name, a.Harness.Value)
	}
	sess := &scriptSession{Index: j, Harness: h.Name}
	inv := sessionInvocation(a, "")
	if st.Output != nil && h.TakesOutputSchema() {
		inv.OutputSchema = st.Output.Schema
	}
	cli, err := c.cli(h, inv)
	if err != nil {
		return refuse(c.at.harness(st.Name), "step %q: %v", st.Name, err)
	}
	bin := cli.Bin

	data := prompts.SessionData{
		Process:      c.plan.Process,
		Step:         st.Name,
		Prompt:       a.Prompt,
		WorktreeKind: wtKind,
	}
	if st.Output != nil && !h.TakesOutputSchema() {
		data.OutputSchema = st.Output.Schema
	}
	data.Outputs = c.plan.HasOutputs()
	if st.ForEach != "" {
		data.Item = itemSlot
	}
	if hasIssueBranch(c.plan) || len(c.in.parents) > 0 {
		// The script reads the issue: its url and its file, in every
		// worktree, are slots.
		data.IssueURL, data.IssueFile = issueSlot, issueSlot
	}
	if sk := a.Skill; sk != nil {
		data.Skill = sk.Name
		sess.SkillName = sk.Name
		var body []byte
		switch sk.Source {
		case ir.SkillRepo:
			sess.SkillRepoPath = sk.Path
		case ir.SkillHome:
			b, err := c.in.ReadFile(sk.Path)
			if err != nil {
				return refuse(c.at.skill(st.Name), "step %q: read skill %q: %v", st.Name, sk.Name, err)
			}
			body = b
		case ir.SkillBuiltin:
			b, ok := skills.Get(strings.TrimPrefix(sk.Path, "builtin:"))
			if !ok {
				return refuse(c.at.skill(st.Name), "step %q: cairn has no built-in skill %q", st.Name, sk.Name)
			}
			body = b
		default:
			return refuse(c.at.skill(st.Name), "step %q: skill %q: unknown source %q", st.Name, sk.Name, sk.Source)
		}
		if sk.Source != ir.SkillRepo {
			sess.SkillVar = s.skillVar(skillVars, sk, body)
		}
	}
	w, err := sessionPrompt(data, a.Skill != nil)
	if err != nil {
		return refuse(c.at.step(st.Name), "step %q: the session prompt cannot be compiled: %v", st.Name, err)
	}
	if w.reads(varPrompt) {
		sess.StepPrompt = strings.TrimSpace(a.Prompt)
	}
	if w.reads(varSkillName) {
		sess.SkillNameVar = sess.SkillName
	}
	i := slices.IndexFunc(s.Prompts, func(p scriptPrompt) bool { return reflect.DeepEqual(p.Words, w) })
	if i < 0 {
		i = len(s.Prompts)
		s.Prompts = append(s.Prompts, scriptPrompt{Name: fmt.Sprintf("prompt_%d", i+1), Words: w})
	}
	sess.Prompt = s.Prompts[i].Name
	sess.CLI = s.addCLI(cli)
	return sess, bin, nil
}

// skillVar is the script's variable holding the text body of the home or
// built-in skill sk, one per skill however many sessions read it
// (skillVars, by source and path), added to s's skills the first time.
func (s *script) skillVar(skillVars map[string]string, sk *ir.PlanSkill, body []byte) string {
	key := sk.Source + "\x00" + sk.Path
	v, ok := skillVars[key]
	if !ok {
		v = fmt.Sprintf("skill_%d", len(skillVars)+1)
		skillVars[key] = v
		s.Skills = append(s.Skills, scriptSkill{Var: v, Body: string(body)})
	}
	return v
}

// sessionInvocation is how session action a starts its CLI (as
// step.Invocation has it), resuming the session of the script's variable
// resume when it is set.
func sessionInvocation(a *ir.PlanAction, resume string) harness.Invocation {
	return harness.Invocation{
		Model:    settingValue(a.Model),
		Effort:   settingValue(a.Effort),
		Access:   settingValue(a.Access),
		MaxTurns: intSetting(a.MaxTurns),
		Resume:   resume,
	}
}

// cli is how a session of harness h given inv starts its CLI (unnamed);
// inv.Resume, when set, names the script's variable of the session resumed.
func (c *compiler) cli(h *harness.Harness, inv harness.Invocation) (*scriptCLI, error) {
	cli := &scriptCLI{Harness: h.Name, Final: h.FinalJQ(), End: h.EndJQFor(inv.Model)}
	if max, cause := h.PromptLimit(); max > 0 {
		size := newSlots("s", varSize)
		w, err := size.word(cause(size.marker(varSize)))
		if err != nil {
			return nil, fmt.Errorf("the prompt limit of harness %q cannot be compiled: %v", h.Name, err)
		}
		cli.MaxPrompt, cli.PromptCause = max, w
	}
	cmd, budgeted, err := harnessCommand(h, inv)
	if err != nil {
		return nil, fmt.Errorf("the command of harness %q cannot be compiled: %v", h.Name, err)
	}
	cli.Argv, cli.Env, cli.Files, cli.Budgeted, cli.Settings = cmd.Argv, cmd.Env, cmd.Files, budgeted, cmd.Settings
	if budgeted != nil && sameWords(budgeted.Env, cmd.Env) {
		cli.BudgetArgs = insertedWords(cmd.Argv, budgeted.Argv)
	}
	if _, jq, ok := h.CountsTurns(); ok && inv.MaxTurns > 0 {
		cli.MaxTurns, cli.TurnJQ, cli.TurnCause = inv.MaxTurns, jq, harness.TurnCause(inv.MaxTurns)
	}
	if inv.Resume != "" && !slices.ContainsFunc(cli.Argv, func(w BashWord) bool {
		return slices.ContainsFunc(w, func(p BashPiece) bool { return p.Var == varSession })
	}) {
		return nil, errResume
	}
	for _, p := range cmd.Argv[0] {
		if p.Var != "" {
			return nil, fmt.Errorf("the command of harness %q starts with a value known only at run time", h.Name)
		}
		cli.Bin += p.Text
	}
	return cli, nil
}

// addHarness adds harness name, whose CLI is bin, to those the script
// preflights, unless it is there.
func (s *script) addHarness(name, bin string) {
	if !slices.ContainsFunc(s.Harnesses, func(h scriptHarness) bool { return h.Name == name }) {
		s.Harnesses = append(s.Harnesses, scriptHarness{Name: name, Bin: bin})
	}
}

// appendDistinct appends v to list unless it is empty or already there.
func appendDistinct(list []string, v string) []string {
	if v == "" || slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// settingValue is s's value, "" when s is nil.
func settingValue(s *ir.Setting) string {
	if s == nil {
		return ""
	}
	return s.Value
}

// intSetting is s's value, 0 when s is nil.
func intSetting(s *ir.IntSetting) int {
	if s == nil {
		return 0
	}
	return s.Value
}

// insertedWords is with as without with words inserted in one place, or nil
// when it is not.
func insertedWords(without, with []BashWord) *budgetArgs {
	n := len(with) - len(without)
	if n <= 0 {
		return nil
	}
	same := func(a, b BashWord) bool { return slices.Equal(a, b) }
	at := 0
	for at < len(without) && same(without[at], with[at]) {
		at++
	}
	if !slices.EqualFunc(without[at:], with[at+n:], same) {
		return nil
	}
	return &budgetArgs{Head: without[:at], Args: with[at : at+n], Tail: without[at:]}
}

// catalogue is the catalogue action a of step st, on a worktree of kind
// wtKind, as the script carries it; s learns which catalogue steps it
// holds. What keeps it from starting is its cause, as catalogue's
// issueBranchOf words it.
func (c *compiler) catalogue(st *ir.PlanStep, a *ir.PlanAction, wtKind string, s *script) *scriptCatalogue {
	sc := &scriptCatalogue{Func: "catalogue_delivery"}
	what := "delivery"
	if a.Catalogue == ir.SelfMerge {
		sc.Func, what = "catalogue_self_merge", "self-merge"
		s.HasSelfMerge = true
	} else {
		s.HasDelivery = true
	}
	for _, w := range c.plan.Worktrees {
		if w.Name == st.Worktree {
			sc.Base = w.Base
		}
	}
	switch {
	case wtKind != ir.IssueBranch:
		sc.Refused = fmt.Sprintf("%s works on an issue-branch worktree, and worktree %q is a %s worktree", what, st.Worktree, wtKind)
	case sc.Base == "" || sc.Base == "HEAD":
		sc.Refused = fmt.Sprintf("%s: worktree %q has no base branch for the pull request to go into; set base_branch in the config", what, st.Worktree)
	}
	return sc
}

// GivenWords are the steps whose results the step may be given (Earlier),
// as one word list, for a script whose steps write needs.
func (ss *scriptStep) GivenWords() string { return strings.Join(ss.Earlier, " ") }

// NeedWords are the indices of the steps it needs, as one word list.
func (ss *scriptStep) NeedWords() string {
	words := make([]string, len(ss.NeedIndices))
	for i, j := range ss.NeedIndices {
		words[i] = strconv.Itoa(j)
	}
	return strings.Join(words, " ")
}

// GroupSizes is how many steps each stage has, by its index: a parallel
// group's members share the run's budget.
func (s *script) GroupSizes() []int {
	sizes := make([]int, len(s.Stages))
	for i, stage := range s.Stages {
		sizes[i] = len(stage)
	}
	return sizes
}

// when sets ss's When and WhenText from step st's when, or refuses one it
// cannot write in jq.
func (c *compiler) when(st *ir.PlanStep, ss *scriptStep) []ir.Diagnostic {
	x, errs := expr.Parse(st.When)
	if len(errs) > 0 {
		return []ir.Diagnostic{notCompilable(c.at.step(st.Name), "step %q: its when: %s", st.Name, errs[0].Message)}
	}
	prog, err := x.JQBody()
	if err != nil {
		return []ir.Diagnostic{notCompilable(c.at.step(st.Name), "step %q: its when: %v", st.Name, err)}
	}
	ss.When, ss.WhenText = prog, x.Text()
	return nil
}

// HasWhen reports whether a step of s has a when, or a for_each, which
// reads what a when reads (feature when).
func (s *script) HasWhen() bool {
	return slices.ContainsFunc(s.Steps, func(st *scriptStep) bool { return st.When != "" || st.ForEach != nil })
}

// HasForEach reports whether a step of s has for_each (feature foreach).
func (s *script) HasForEach() bool {
	return slices.ContainsFunc(s.Steps, func(st *scriptStep) bool { return st.ForEach != nil })
}

// forEach sets ss's ForEach from step st's for_each, or refuses one it
// cannot write in jq.
func (c *compiler) forEach(st *ir.PlanStep, ss *scriptStep) []ir.Diagnostic {
	at := c.at.step(st.Name)
	if s := c.at.steps[st.Name]; s != nil {
		at = or(s.Keys().ForEach.At(), at)
	}
	x, errs := expr.Parse(st.ForEach)
	if len(errs) > 0 {
		return []ir.Diagnostic{notCompilable(at, "step %q: its for_each: %s", st.Name, errs[0].Message)}
	}
	prog, err := x.ItemsJQBody()
	if err != nil {
		return []ir.Diagnostic{notCompilable(at, "step %q: its for_each: %v", st.Name, err)}
	}
	ss.ForEach = &scriptForEach{JQ: prog, Text: x.Text(), Max: st.MaxItems}
	return nil
}
