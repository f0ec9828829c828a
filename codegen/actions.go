package codegen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
	"github.com/cairn-dev/cairn/views"
	"mvdan.cc/sh/v3/syntax"
)

// pinnedAction is an action a workflow uses, pinned by the commit of a
// release (Version, written beside it).
type pinnedAction struct {
	Uses, Version string
}

// The only actions a compiled workflow uses: act (and GitHub) fetch every
// `uses:` of a job when it is set up, even one whose `if:` is false, so a
// workflow that needs nothing else runs wherever these can be had.
var (
	checkoutAction = pinnedAction{Uses: "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1", Version: "v7.0.1"}
	uploadAction   = pinnedAction{Uses: "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f", Version: "v7.0.0"}
	downloadAction = pinnedAction{Uses: "actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c", Version: "v8.0.1"}
)

// maxWorkflowBytes is the largest workflow file GitHub starts runs of.
const maxWorkflowBytes = 500 * 1000

// defaultRunsOn is the runner of a process whose [github] names none.
const defaultRunsOn = "ubuntu-latest"

// actionsInfo names the github-actions target.
var actionsInfo = targetInfo{
	name:           "github-actions",
	artifact:       "workflow",
	issues:         true,
	delivers:       true,
	publishes:      true,
	calls:          true,
	unrollsRepairs: true,
}

// actionsTarget is a GitHub Actions workflow (Actions).
type actionsTarget struct{}

func (actionsTarget) Name() string     { return actionsInfo.name }
func (actionsTarget) Executable() bool { return false }

func (actionsTarget) Compile(plan *ir.Plan, in Inputs) (Output, []ir.Diagnostic) {
	c, diags := newCompiler(plan, in, actionsInfo)
	if c == nil || ir.HasErrors(diags) {
		return Output{}, diags
	}
	out, _, more := c.actions()
	diags = append(diags, more...)
	if ir.HasErrors(diags) {
		return Output{}, diags
	}
	return Output{Artifact: out, Siblings: c.siblings}, diags
}

// Actions compiles plan into a GitHub Actions workflow that does what `cairn
// run` does with it, on GitHub's runners and without cairn: a job per step,
// the members of a parallel group sibling jobs with the same needs (one
// job that runs them all at once, in commit mode), each running the bash
// target's script for its step given the earlier steps' results
// (artifacts), what their scripts share defined once, by a first
// job that keeps it as an artifact every step's job takes, and a last job
// that gathers the run's folder and shows the last stage's results.
// What the workflow cannot carry is refused with rule not-compilable at its
// place in the process file: all a script cannot, and what only one machine
// could.
//
// A process whose run-published-issue step calls child processes compiles
// to more than one workflow: Actions returns the caller's alone, and the
// target's Compile all of them.
func Actions(plan *ir.Plan, in Inputs) ([]byte, []ir.Diagnostic) {
	c, diags := newCompiler(plan, in, actionsInfo)
	if c == nil || ir.HasErrors(diags) {
		return nil, diags
	}
	out, _, more := c.actions()
	diags = append(diags, more...)
	if ir.HasErrors(diags) {
		return nil, diags
	}
	return out, diags
}

// actions is the workflow of c's plan, and its model, with what it refuses
// besides newCompiler's refusals (none of them errors); the workflows of
// the child processes it calls are c.siblings.
func (c *compiler) actions() ([]byte, *workflow, []ir.Diagnostic) {
	plan := c.plan
	var diags []ir.Diagnostic
	if len(plan.Notify.Command) > 0 {
		diags = append(diags, ir.Diagnostic{
			Rule: ir.RuleNotCompilable, Severity: ir.Warning, Range: plan.Notify.Header,
			Message: "the config's [notify] is not compiled: GitHub notifies of a workflow's end",
		})
	}
	s, more := c.script()
	diags = append(diags, more...)
	if ir.HasErrors(diags) {
		return nil, nil, diags
	}
	wf, more := c.workflow(s)
	diags = append(diags, more...)
	if ir.HasErrors(diags) {
		return nil, nil, diags
	}
	out, err := actionsWorkflow(wf)
	if err != nil {
		return nil, nil, append(diags, notCompilable(c.at.file(), "cannot render the workflow: %v", err))
	}
	if len(out) > maxWorkflowBytes {
		return nil, nil, append(diags, notCompilable(c.at.file(),
			"the workflow would be %d KB: GitHub starts no run of a workflow file over %d KB; split the process", len(out)/1000, maxWorkflowBytes/1000))
	}
	return out, wf, diags
}

// workflow is the model actions/workflow.yml.tmpl renders.
type workflow struct {
	Header                     []string
	Process, Description       string
	Schedule                   []string
	RunsOn                     string
	TimeoutMinutes             int
	Concurrency                string
	Checkout, Upload, Download pinnedAction
	// Runtime is the first job, which keeps what the steps' scripts share.
	Runtime *runtimeJob
	Jobs    []*workflowJob
	Final   *resultsJob
	// Issue, for a process with an issue-branch worktree, is the job that
	// says whether the run goes on, and on which issue.
	Issue *issueJob
	// Push, for a process with commit = true, is the job that pushes the
	// run's commits (actions/commit.yml.tmpl).
	Push *pushJob
	// PushToken is the secret [github] push_token names, which the jobs
	// that deliver push with ("" for none: the workflow's own token);
	// Merges is set when a step self-merges, which the input merge lets.
	PushToken string
	Merges    bool
	// Art goes before the name of every artifact the workflow keeps or
	// takes: "" for a workflow of its own; the input prefix for a child's,
	// which a run-published-issue step calls once for each of its issues
	// in the one workflow run, where artifacts share one namespace.
	Art string
	// Calls are the jobs that call the workflows of child processes, for
	// run-published-issue steps (publishedJobs).
	Calls []*callJob
	// Called is set for the workflow of a child process, which a
	// run-published-issue step's job calls (on: workflow_call) with the
	// issue to run on, the artifacts' prefix and the caller's directive
	// and merge.
	Called bool
	// Publishes are the jobs that publish what the sessions of a step
	// asked gh to (publishJob); PublishScript is their script.
	Publishes     []*publishJob
	PublishScript string
}

// publishJob is the job after the job of a step whose sessions may publish
// issues (workflowJob.Publishes): the only one that may write issues, it
// runs no agent, and does with the workflow's token what the step's
// sessions asked gh to, which gh recorded in the step's run folder
// (bash/outbox-gh.bash), then keeps the step's result and run folder again,
// its issues named by their real numbers. Its output issues lists those it
// opened, which the jobs that check them trust as the run's own.
type publishJob struct {
	ID, Step string
	Needs    []string
	// Commits is set in commit mode: the job takes the run's commits as
	// the step's job kept them, makes the step's commit and those after
	// it again with the results mapped, and keeps them for the jobs after
	// it and the push, which wait for it.
	Commits bool
	// ForEach is set for a step with for_each: its items' results, in
	// results/STEP/, are mapped and kept with its own.
	ForEach bool
	// Anchor and Alias write the job's publish step, the same in every
	// publish job (its step and part are the job's env), once: the first
	// job anchors it, the others alias it.
	Anchor, Alias string
	// Items is set for a step with for_each whose items run in jobs of
	// their own: the job takes what each kept, does what each item's
	// sessions asked, in item order, with a map of the item's own (each
	// job numbered its issues from 900000001), and keeps the items'
	// results and outboxes as ItemsArtifact for the step's job.
	Items bool
}

// ItemsArtifact is the artifact of the items' results, their issues named
// by their numbers, which the publish job of a step with for_each keeps
// for the step's job.
func (p *publishJob) ItemsArtifact() string { return "cairn-published-" + p.Step }

// ResultArtifact is the artifact of the step's result, which the publish
// job keeps again.
func (p *publishJob) ResultArtifact() string { return "cairn-result-" + p.Step }

// RunArtifact is the artifact of the step's run folder, which the publish
// job takes and keeps again.
func (p *publishJob) RunArtifact() string { return runPartArtifact(p.Step) }

// mayPublish says whether st has a session that reaches gh, whose access is
// full: in a workflow, what it asks gh to publish is published by a job
// after its own (publishJob).
func mayPublish(st *ir.PlanStep) bool {
	return st != nil && slices.ContainsFunc(st.Actions, func(a ir.PlanAction) bool {
		return a.Kind == ir.Session && a.Access != nil && a.Access.Value == ir.AccessFull
	})
}

// pushJob is the last job of a workflow in commit mode: the only one with
// contents: write, it takes the bundle of the run's commits the last step's
// job kept, and pushes them to the branch the workflow ran on.
type pushJob struct {
	ID    string
	Needs []string
}

// issueJob is the first job of a workflow that runs on an issue
// (actions/issue.yml.tmpl): started by Label set on an issue or by a
// dispatch naming the issue, it lets the run go on only when an account
// with write access started it, and names the issue, as a number, to the
// steps' jobs. The concurrency group per issue is the issue's Claim.
type issueJob struct {
	ID, Label, RunsOn string
	// Process names the run in the claim; Checkout is the action the job
	// pushes it with. Release is the id of the last job, which deletes
	// the claim, and Needs what it waits for: every other job.
	Process  string
	Checkout pinnedAction
	Release  string
	Needs    []string
	// Called is set in a child's workflow: the issue is the input the
	// caller gives, whatever event started the caller's run. Claims is
	// set when the run holds the issue's Claim (an issue-branch
	// worktree): a child without one takes none, as its script does.
	Called, Claims bool
}

// runtimeJob is the workflow's first job: its Scripts (its run steps, in
// order) define the functions (and the constants) every step's script
// shares, and keep them as the artifact Artifact, which every step's job
// takes before its script runs.
type runtimeJob struct {
	ID, Artifact string
	Scripts      []string
}

// workflowJob is the job of one step: the results it is given (and the
// changes an earlier job left in its worktree), the agent CLIs it installs
// and the keys they read (from the secrets, in the environment of a step of
// their own, which keeps them in files for the script to give to the
// sessions' CLIs alone), its script, and what it keeps for the jobs after
// it. A step the same in every job it is in is written in the first one,
// anchored, and aliased in the others (anchor).
type workflowJob struct {
	ID, Step string
	// Members, for the job of parallel group Group in commit mode
	// (groupJob), are the group's steps, in file order, which its script
	// runs at once as the bash target's runs them, making their commits
	// one history; Step is the first. Nil for the job of one step.
	Members []string
	Group   string
	Needs   []string
	// If is the job's condition ("" for none): a job after a delivery
	// whose repair loop is unrolled into jobs runs once one of the
	// delivery's jobs ended it succeeded (repairJobs).
	If string
	// Role is the job's part in a delivery's repair loop unrolled into
	// jobs (scriptJob.Role): "" for the delivery's first job, "repair"
	// for a repair job, "redeliver" for the delivery's job after one; Round
	// the number of the repair job it is or follows, and Branch the
	// delivery's worktree.
	Role   string
	Round  int
	Branch string
	// HandsOff is set for a delivery's job that may hand the delivery to
	// a repair job (its output repair says what failed): it keeps the
	// step's result, run folder and changes only when it does not. Keeps
	// is the artifact a delivery's job keeps for the repair job after it,
	// or a repair job for the delivery's job after it; Handoff and
	// Repaired are the artifacts a repair job and the delivery's job after
	// it take.
	HandsOff                 bool
	Keeps, Handoff, Repaired string

	Installs []harness.Install
	Keys     []harness.Key
	Script   string
	// Given is set when earlier steps may have left results; Changes is
	// the changes an earlier job left in its worktree.
	Given bool
	// Decides is set for a step with a when: the job takes the run
	// folders the earlier jobs kept, whose records say their steps'
	// outcomes, which the when reads.
	Decides bool
	Changes *artifactDownload
	// MoreChanges are the changes of the other worktrees a group's job
	// takes (groupJob), after Changes, the first one's.
	MoreChanges []artifactDownload
	// Patch is set when a later job works in its worktree. A group's job
	// keeps the changes of each of its members' worktrees a later job
	// works in as GroupPatches instead; GroupResults are the files of
	// results/ it keeps, its members' results and outputs.
	Patch        *patchUpload
	GroupPatches []patchUpload
	GroupResults []string
	// Spent is set when the step runs sessions under the run's budget:
	// the job keeps what they spent, and takes what the earlier jobs'
	// spent (actions/budget.yml.tmpl).
	Spent bool
	// Commits is set in commit mode: the job keeps the run's commits and
	// folder, and takes the earlier jobs' when Given
	// (actions/commit.yml.tmpl).
	Commits bool
	// Writes is set for a step that delivers or self-merges: the only
	// jobs that may push and write pull requests, which run no agent and
	// nothing of the process's own; Merge, for a self-merge, is given the
	// input merge.
	Writes, Merge bool
	// Output is set for a step with a typed output: the job keeps it
	// (results/STEP.json) for the later jobs with its result, and gives
	// it as the job's output "output", for a later job's if:.
	Output bool
	// Steps are how the job writes its steps kept alike in other jobs,
	// by kind (anchor); InstallStep, KeysStep and ChangesStep are the
	// kinds of its steps that install CLIs, keep keys and take a
	// worktree's changes.
	Steps                              map[string]stepRef
	InstallStep, KeysStep, ChangesStep string
	// RunStep is the kind of the step that runs the job's script when
	// other jobs run the same one: a round of a repair loop's.
	RunStep string
	// Each is the job's part in a step with for_each, whose items run in
	// a matrix of jobs (eachJobs): "list" for the job that lists them
	// (its output indexes), "item" for the matrix's jobs, each running
	// one item and keeping it as cairn-item-STEP.N, and "end" for the
	// step's job after them, which takes what they kept and ends the
	// step, keeping its items' results and outputs with its own; "" for
	// another step's job. The three run the same script,
	// told their part by the job's environment. List is the ID of the
	// job that lists the items, and MaxParallel the matrix's bound.
	Each        string
	List        string
	MaxParallel int
	// Published is the job's part in a run-published-issue step
	// (publishedJobs): "plan" for the job that checks the issue the step
	// before published and names the child runs to start on it (its
	// outputs spec, the spec issue its spec_process runs on, and issues,
	// those its process runs on), "tickets" for the job that lists a
	// spec's tickets once its spec_process ran (output issues), and "end"
	// for the step's job, which takes the child runs' folders and ends the
	// step; "" for another step's job. They run the same script, told
	// their part by the job's environment.
	Published string
	// RunKeys and RunSpent are set when the job's run step gives its
	// script the agents' keys and what the earlier jobs spent: the job's
	// own (Keys, Spent), or, for a step with for_each, its items'.
	RunKeys, RunSpent bool
	// Publishes is set for the job of a step whose sessions may publish
	// issues (those with access full, which reach gh): its sessions' gh
	// records what they ask, which its publishJob does. RunIssues, for a
	// job that checks published issues, is the expression of the issues
	// the run's publish jobs opened.
	Publishes bool
	RunIssues []string
	// ItemsPublish is, for the job of a step with for_each whose sessions
	// may publish, the ID of the publish job between its items' jobs and
	// it, whose artifact it takes (publishJob.Items).
	ItemsPublish string
}

// callJob is a job that calls the workflow of a child process, File,
// beside the caller's (on: workflow_call), on Issue (an expression), the
// child run's artifacts named after Prefix; with Matrix, an expression of
// a JSON list of issue numbers, once for each, at most MaxParallel at once
// (0: all). Grants are the permissions it gives the child's jobs, and
// Merge says whether it hands on the input merge.
type callJob struct {
	ID, Name, If   string
	Needs          []string
	File, Issue    string
	Prefix, Matrix string
	MaxParallel    int
	Grants         []string
	Merge          bool
}

// stepRef is how a job writes a step that is the same in several jobs:
// Alias, an alias of the first job's, which that job anchors as Anchor
// (empty when no other job has the step).
type stepRef struct {
	Anchor, Alias string
}

// artifactDownload is an artifact a job takes (What says which), into
// $RUNNER_TEMP/cairn-given/INTO.
type artifactDownload struct {
	What, Artifact, Into string
}

// patchUpload is the changes a job leaves in worktree Worktree, kept as
// Artifact.
type patchUpload struct {
	Worktree, Artifact string
}

// resultsJob is the workflow's last job: it takes the run folders the
// steps' jobs kept (Parts, each into a folder of its own: download-artifact
// puts a pattern's one match straight into its path), gathers them and
// shows the last stage's results with Script, and keeps the run's folder as
// RunArtifact.
type resultsJob struct {
	ID                  string
	Needs               []string
	Parts               []runPart
	RunArtifact, Script string
	// Spent is set when a step's job keeps what its sessions spent: the
	// job takes them all, to end the run as cairn run ends it.
	Spent bool
}

// runPart is the run folder a step's job kept, as Artifact; What says
// whose ("step NAME", or the steps of a parallel group).
type runPart struct {
	What, Artifact string
}

// resultsScript is the model actions/results.sh.tmpl renders: for each
// step, in file order, its name, whether it is optional, its throwaway
// worktree (whose patch the run folder keeps), and its log line should its
// job never run; that of a step whose job failed before the step ended is
// the same line with LostOutcome in place of its "outcome=cancelled".
type resultsScript struct {
	// Outputs is set when a step declares a typed output, kept as
	// results/STEP.json.
	Outputs        bool
	Process        string
	Steps, Patches []string
	Optional       []bool
	Cancelled      []string
	LostOutcome    string
	LastStage      []int
	// Budget is the run's budget when the steps' jobs keep what their
	// sessions spent (script.Budget), else empty.
	Budget string
	// Judged is set when a step's judge may reach no verdict, which ends
	// the run inconclusive.
	Judged bool
	// Prepares is set when a worktree is readied before its steps (feature
	// prepare): the run folder keeps its setup's output and what readying
	// it left from the first job there.
	Prepares bool
	// Sessions is set when a step starts agent sessions: the summary
	// tables what each step's used.
	Sessions bool
	// ForEach is set when a step has for_each: the run folder keeps its
	// items' results, outputs, traces and patches.
	ForEach bool
	// Graph is the run's picture before its steps end
	// (views.Graph.MermaidTemplate), which the summary draws with their
	// outcomes.
	Graph string
	// Grouped is set when a parallel group's steps run in one job
	// (groupJob): Parts is then, for each step, the step whose name its
	// job's run folder is kept under (cairn-run-NAME), and Jobs its job's
	// ID.
	Grouped     bool
	Parts, Jobs []string
	// Called is set in a child's workflow: the results printed are kept
	// in $CAIRN_OUT too, for the step that called the run, and the run
	// folder holds the run's record, merged from its jobs'. Published is
	// set when a step starts child runs, whose folders the run folder
	// keeps in children/.
	Called, Published bool
	// Publishes are the workflow's publish jobs: one that failed fails
	// the run at its step.
	Publishes []*publishJob
}

// The artifacts of a workflow run: what a step's job keeps (its run folder,
// the changes of its worktree, which the next job there takes, and its
// result, cairn-result-STEP), and the run's folder the last job gathers
// from the steps'. A worktree's changes are kept under its name, each job
// there overwriting the last one's.
func patchArtifact(worktree string) string { return "cairn-worktree-" + worktree }
func runPartArtifact(step string) string   { return "cairn-run-" + step }

const runArtifact = "cairn-run"

// The artifacts of a delivery's repair loop unrolled into jobs: what the
// delivery's job before repair job round+1 keeps for it (its handoff), and
// what repair job round keeps for the delivery's job after it.
func handoffArtifact(step string, round int) string {
	return fmt.Sprintf("cairn-repair-%s-handoff-%d", step, round)
}
func repairedArtifact(step string, round int) string {
	return fmt.Sprintf("cairn-repair-%s-repaired-%d", step, round)
}

// jobID is the id of step's job: its name, behind an underscore when it
// starts with a digit (a job id cannot; no step name starts with "_").
func jobID(step string) string {
	if step != "" && step[0] >= '0' && step[0] <= '9' {
		return "_" + step
	}
	return step
}

// workflow builds the model of the workflow from s, the model of the whole
// process's script, with the refusals of what a job cannot carry.
func (c *compiler) workflow(s *script) (*workflow, []ir.Diagnostic) {
	var diags []ir.Diagnostic
	wf := &workflow{
		Header:      c.header(s),
		Process:     c.plan.Process,
		Description: c.plan.Description,
		RunsOn:      defaultRunsOn,
		Concurrency: "cairn-" + c.plan.Process,
		Checkout:    checkoutAction, Upload: uploadAction, Download: downloadAction,
		Runtime:   &runtimeJob{ID: "runtime", Artifact: functionsArtifact},
		PushToken: c.pushToken(), Merges: s.Merges,
	}
	if p := c.in.Process; p != nil {
		g := p.GitHub
		if g.RunsOn.Set && !g.RunsOn.Bad {
			wf.RunsOn = g.RunsOn.Value
		}
		wf.Schedule = ir.Values(g.Schedule)
		if g.TimeoutMinutes.Set && !g.TimeoutMinutes.Bad {
			wf.TimeoutMinutes = g.TimeoutMinutes.Value
		}
	}
	if len(c.in.parents) > 0 {
		// A child's artifacts are named after the caller's prefix: the
		// caller's and every child run's share the workflow run's.
		wf.Called, wf.Art = true, "${{ inputs.prefix }}"
	}
	if claims := hasIssueBranch(c.plan); claims || wf.Called {
		wf.Issue = &issueJob{ID: "issue", Label: ir.DefaultLabel, RunsOn: wf.RunsOn, Process: c.plan.Process, Checkout: checkoutAction, Release: "release", Called: wf.Called, Claims: claims}
		if p := c.in.Process; p != nil && p.GitHub.Label.Set && !p.GitHub.Label.Bad {
			wf.Issue.Label = p.GitHub.Label.Value
		}
		// One run on an issue at a time, as the issue's Claim.
		if wf.Called {
			wf.Concurrency += "-issue-${{ inputs.issue }}"
		} else {
			wf.Concurrency += "-issue-${{ github.event.issue.number || inputs.issue }}"
		}
	}
	diags = append(diags, c.describedExpression()...)
	kinds := map[string]string{}
	for _, w := range c.plan.Worktrees {
		kinds[w.Name] = w.Kind
	}
	// The jobs, then their scripts: a job's script says whether a later
	// job takes its worktree's changes. lastIn is the step that last
	// worked in each worktree, in an earlier stage: the job whose patch
	// the next step there starts from.
	lastIn := map[string]string{}
	warnedToken := false
	byStep := map[string]*workflowJob{}
	prev := []string{wf.Runtime.ID}
	earlier := false
	rs := resultsScript{Outputs: c.plan.HasOutputs(), Process: c.plan.Process, LastStage: s.LastStage, Judged: s.Uses["judge"], Prepares: s.Uses["prepare"], Sessions: s.Uses["sessions"], ForEach: s.Uses["foreach"],
		Graph: views.StepsGraph(c.plan.Process, record.PlanSteps(c.plan)).MermaidTemplate()}
	if s.keepsRunBudget() {
		rs.Budget = s.Budget
	}
	rs.Called, rs.Published = wf.Called, s.HasPublished
	if c.plan.Commit {
		wf.Push = &pushJob{ID: "push"}
	}
	// A process whose steps write needs maps them to the jobs' needs: a
	// job waits for the jobs of the steps its step needs, and starts from
	// the changes of the last of the steps it waits for in its worktree.
	// In commit mode a job also waits for the job of the step before it
	// in the file, which may not be one it needs: the jobs commit the one
	// run, and each takes the commits the job before it made, so steps
	// that may run beside each other run one after another, in file
	// order, as cairn run --jobs 1 runs them.
	dag, byNeeds := ir.NewDAG(c.plan), c.plan.WritesNeeds()
	planSteps := map[string]*ir.PlanStep{}
	for _, st := range dag.Steps {
		planSteps[st.Name] = st
	}
	index := 0
	// The jobs of each delivery's repair loop, after its first.
	loops := map[string][]string{}
	for _, stage := range c.plan.Stages {
		var ids []string
		// In commit mode a parallel group's members run in one job: on
		// runners of their own they would commit the one run at once
		// (groupJob). takes are the worktrees whose changes it takes.
		var group *workflowJob
		var takes []string
		serial := c.plan.Commit && len(stage) > 1 && !byNeeds && apartIn(stage)
		for i := range stage {
			st := &stage[i]
			if byNeeds {
				needs := dag.Needs[index]
				if c.plan.Commit && index > 0 && !slices.Contains(dag.Above[index], index-1) {
					needs = append(slices.Clone(needs), index-1)
				}
				prev, earlier = []string{wf.Runtime.ID}, len(needs) > 0
				if len(needs) > 0 {
					prev = nil
					for _, k := range needs {
						// A delivery ends in whichever job of its repair
						// loop ends it.
						prev = append(prev, jobID(dag.Steps[k].Name))
						prev = append(prev, loops[dag.Steps[k].Name]...)
					}
				}
				clear(lastIn)
				for _, k := range dag.Above[index] {
					lastIn[dag.Steps[k].Worktree] = dag.Steps[k].Name
				}
			}
			index++
			if serial && i > 0 {
				// After the members before it, whose commits it takes.
				prev, earlier = slices.Clone(ids), true
			}
			j := &workflowJob{ID: jobID(st.Name), Step: st.Name, Needs: prev, Given: earlier, Commits: c.plan.Commit, Output: st.Output != nil, Decides: st.When != "" || st.ForEach != ""}
			grouped := c.plan.Commit && len(stage) > 1 && !byNeeds && !serial
			first := grouped && group == nil
			if first {
				group = groupJob(stage, j)
			}
			if grouped {
				j = group
				j.Decides = j.Decides || st.When != "" || st.ForEach != ""
				j.GroupResults = append(j.GroupResults, st.Name+".md")
				if st.Output != nil {
					j.GroupResults = append(j.GroupResults, st.Name+".json")
				}
			}
			// In commit mode a checkout's work travels in the run's
			// commits, not as a patch.
			if p, ok := lastIn[st.Worktree]; ok && !(c.plan.Commit && kinds[st.Worktree] == ir.Checkout) {
				if grouped {
					takes = appendDistinct(takes, st.Worktree)
				} else {
					j.Changes = &artifactDownload{
						What: "Take the changes of worktree " + st.Worktree, Artifact: patchArtifact(st.Worktree), Into: "worktrees",
					}
				}
				keep := patchUpload{Worktree: st.Worktree, Artifact: patchArtifact(st.Worktree)}
				if k := byStep[p]; k.Members != nil {
					if !slices.Contains(k.GroupPatches, keep) {
						k.GroupPatches = append(k.GroupPatches, keep)
					}
				} else {
					k.Patch = &keep
				}
			}
			// A delivery whose repair loop is unrolled into jobs spends in
			// its repair jobs' sessions: its jobs carry what it spent.
			j.Spent = j.Spent || s.keepsRunBudget() && slices.ContainsFunc(st.Actions, func(a ir.PlanAction) bool {
				return a.Kind == ir.Session || s.RepairJobs && a.Kind == ir.Catalogue && a.Catalogue == ir.Delivery
			})
			for _, a := range st.Actions {
				if a.Kind == ir.Catalogue && (a.Catalogue == ir.Delivery || a.Catalogue == ir.SelfMerge) {
					j.Writes = true
					j.Merge = j.Merge || a.Catalogue == ir.SelfMerge
				}
				if a.Kind == ir.Catalogue && a.Catalogue == ir.Delivery && wf.PushToken == "" && !warnedToken {
					warnedToken = true
					diags = append(diags, ir.Diagnostic{Rule: ir.RuleNotCompilable, Severity: ir.Warning, Range: c.at.step(st.Name),
						Message: fmt.Sprintf("step %q: the workflow delivers with its own token, whose push starts no workflow: the pull request's checks do not run, so it is opened and left for review, and no self-merge merges it, and only where the repository lets GitHub Actions create pull requests; name the secret of a token of yours in [github] push_token", st.Name)})
				}
			}
			diags = append(diags, c.agents(st, j)...)
			// A group's job never holds a publishing member (apartIn). A
			// step with for_each publishes from its items' jobs (eachJobs).
			if mayPublish(st) {
				j.Publishes = true
				s.Steps[slices.IndexFunc(s.Steps, func(x *scriptStep) bool { return x.Name == st.Name })].Publishes = true
			}
			byStep[st.Name] = j
			if st.ForEach != "" && !c.plan.Commit {
				// In commit mode the items run in the step's job: on
				// runners of their own they would commit the one run at
				// once, as a group's members would (groupJob).
				wf.Jobs = append(wf.Jobs, c.eachJobs(st, j)...)
			}
			var calls []*callJob
			if i := slices.IndexFunc(st.Actions, func(a ir.PlanAction) bool { return a.Kind == ir.Catalogue && a.Catalogue == ir.RunPublishedIssue }); i >= 0 {
				var before []*workflowJob
				before, calls = c.publishedJobs(s, st, i, j)
				wf.Jobs = append(wf.Jobs, before...)
				wf.Calls = append(wf.Calls, calls...)
				var pub *workflowJob
				if len(st.Needs) == 1 {
					pub = byStep[st.Needs[0]]
				}
				if pub != nil && pub.Publishes {
					// The step's jobs trust the issues the publisher's
					// publish job opened as the run's own.
					opened := fmt.Sprintf("needs.%s_publish.outputs.issues", pub.ID)
					for _, k := range append(before, j) {
						k.RunIssues = append([]string{opened}, k.RunIssues...)
						if !slices.Contains(k.Needs, pub.ID) {
							// A job reads the outputs of the jobs it needs
							// alone; the rewiring below adds the publish job.
							k.Needs = append(slices.Clone(k.Needs), pub.ID)
						}
					}
				} else if len(st.Needs) == 1 && !mayPublish(planSteps[st.Needs[0]]) {
					// A publisher whose sessions reach gh was warned of above.
					diags = append(diags, ir.Diagnostic{Rule: ir.RuleNotCompilable, Severity: ir.Warning, Range: c.at.step(st.Needs[0]),
						Message: fmt.Sprintf("step %q publishes the issue step %q runs on, but in a workflow only the sessions of a step of its own with access \"full\" publish issues with gh (a job after theirs does what they ask): give it one, without for_each", st.Needs[0], st.Name)})
				}
			}
			if !grouped || first {
				wf.Jobs = append(wf.Jobs, j)
				ids = append(ids, j.ID)
			}
			if s.RepairJobs && slices.ContainsFunc(st.Actions, func(a ir.PlanAction) bool { return a.Kind == ir.Catalogue && a.Catalogue == ir.Delivery }) {
				chain, more := c.repairJobs(s, st, j)
				diags = append(diags, more...)
				wf.Jobs = append(wf.Jobs, chain...)
				for _, r := range chain {
					ids = append(ids, r.ID)
					loops[st.Name] = append(loops[st.Name], r.ID)
				}
			}

			line := record.LogLine{Step: st.Name, Worktree: st.Worktree}
			ss := s.Steps[slices.IndexFunc(s.Steps, func(x *scriptStep) bool { return x.Name == st.Name })]
			line.Kind, line.Harness, line.Model, line.Effort = ss.Kind, ss.Harness, ss.Model, ss.Effort
			line.Outcome = record.Cancelled
			cancelled := line.String()
			rs.Cancelled = append(rs.Cancelled, cancelled)
			line.Outcome, line.Cause = record.Failed, "its job failed before the step ended"
			lost, ok := strings.CutPrefix(line.String(), strings.TrimSuffix(cancelled, "outcome=cancelled"))
			if !ok || rs.LostOutcome != "" && lost != rs.LostOutcome {
				diags = append(diags, notCompilable(c.at.step(st.Name), "step %q: cannot render the log line of a step whose job failed", st.Name))
			}
			rs.LostOutcome = lost
			rs.Steps = append(rs.Steps, st.Name)
			rs.Optional = append(rs.Optional, st.Optional)
			rs.Parts, rs.Jobs = append(rs.Parts, j.Step), append(rs.Jobs, j.ID)
			rs.Grouped = rs.Grouped || grouped
			patch := ""
			if kinds[st.Worktree] == ir.Throwaway {
				patch = st.Worktree
			}
			rs.Patches = append(rs.Patches, patch)
		}
		// A download for each worktree a group's job takes the changes
		// of: a pattern's braces, which download-artifact may read as
		// alternatives, are no artifact name to act's.
		for k, w := range takes {
			d := artifactDownload{What: "Take the changes of worktree " + w, Artifact: patchArtifact(w), Into: "worktrees"}
			if k == 0 {
				group.Changes = &d
			} else {
				group.MoreChanges = append(group.MoreChanges, d)
			}
		}
		for _, st := range stage {
			lastIn[st.Worktree] = st.Name
		}
		prev, earlier = ids, true
	}
	// A job after that of a step whose sessions may publish does what they
	// asked gh to; every job that waits for the step's job waits for it.
	// For a step whose items run in jobs of their own, it comes after
	// theirs and before the step's job, which takes the items' results
	// as it left them.
	for _, j := range wf.Jobs {
		if !j.Publishes || j.Each == "list" || j.Each == "item" {
			continue
		}
		p := &publishJob{ID: j.ID + "_publish", Step: j.Step, Needs: []string{j.ID}, ForEach: planSteps[j.Step].ForEach != "", Commits: c.plan.Commit}
		if j.Each == "end" {
			p.Needs, p.Items = []string{j.ID + "_items"}, true
			j.Needs, j.ItemsPublish = append(slices.Clone(j.Needs), p.ID), p.ID
		}
		wf.Publishes = append(wf.Publishes, p)
		for _, k := range wf.Jobs {
			if slices.Contains(k.Needs, j.ID) {
				k.Needs = append(slices.Clone(k.Needs), p.ID)
			}
		}
		for _, cj := range wf.Calls {
			if slices.Contains(cj.Needs, j.ID) {
				cj.Needs = append(slices.Clone(cj.Needs), p.ID)
			}
		}
	}
	if len(wf.Publishes) > 1 {
		wf.Publishes[0].Anchor = "publish"
		for _, p := range wf.Publishes[1:] {
			p.Alias = "publish"
		}
	}
	// The jobs of a repair loop keep the delivery's branch for each other,
	// and for the jobs after them as its first job would.
	for _, j := range wf.Jobs {
		if j.Role == "redeliver" {
			j.Patch = byStep[j.Step].Patch
		}
	}
	var files []*syntax.File
	refused := map[string]bool{}
	for _, j := range wf.Jobs {
		patch := ""
		if j.Patch != nil {
			patch = j.Patch.Worktree
		}
		if j.Branch != "" {
			patch = j.Branch
		}
		if j.Each == "list" || j.Each == "item" {
			// The step's jobs run its job's script (eachJobs).
			if end := byStep[j.Step]; end.Patch != nil {
				patch = end.Patch.Worktree
			}
		}
		names := []string{j.Step}
		if j.Members != nil {
			names = j.Members
		}
		js, err := c.jobScript(s, names, patch)
		var f *syntax.File
		if err == nil {
			for _, p := range j.GroupPatches {
				js.Job.Patches = append(js.Job.Patches, p.Worktree)
			}
			if j.Role == "repair" {
				js.repairJob(s)
			}
			// In commit mode the jobs run one after another (but for a
			// group's members, in one job): the job of the file's last
			// step ends the run.
			last := s.StepNames[len(s.StepNames)-1]
			js.Job.EndsRun = j.Step == last || slices.Contains(j.Members, last)
			if js.Commit != nil {
				js.Commit.Steps, js.Commit.Cancelled = rs.Steps, rs.Cancelled
			}
			var b []byte
			if b, err = bashScript(js); err == nil {
				f, j.Script, err = compactScript(j.Step, b)
			}
		}
		if err != nil {
			diags = append(diags, notCompilable(c.at.step(j.Step), "step %q: cannot render the script of its job: %v", j.Step, err))
		}
		// The jobs of one step (a for_each's, a repair loop's) hold its
		// values alike: what one cannot carry is refused once.
		if ds := c.carriable(j.Step, j.Script); len(ds) > 0 && !refused[j.Step] {
			refused[j.Step] = true
			diags = append(diags, ds...)
		}
		files = append(files, f)
	}
	if ir.HasErrors(diags) {
		return wf, diags
	}
	if err := wf.shareFunctions(files); err != nil {
		return wf, append(diags, notCompilable(c.at.file(), "cannot render the scripts of the jobs: %v", err))
	}
	final := &resultsJob{ID: "results", RunArtifact: runArtifact}
	if _, taken := byStep["results"]; taken {
		final.ID = "_results"
	}
	if _, taken := byStep["runtime"]; taken {
		wf.Runtime.ID = "_runtime"
		for _, j := range wf.Jobs {
			if slices.Equal(j.Needs, []string{"runtime"}) {
				j.Needs = []string{wf.Runtime.ID}
			}
		}
	}
	for _, j := range wf.Jobs {
		final.Spent = final.Spent || j.Spent
		final.Needs = append(final.Needs, j.ID)
		if j.Role == "" && j.KeepsStep() {
			what := "step " + j.Step
			if j.Members != nil {
				what = "the steps of parallel group " + j.Group
			}
			final.Parts = append(final.Parts, runPart{What: what, Artifact: runPartArtifact(j.Step)})
		}
	}
	for _, cj := range wf.Calls {
		final.Needs = append(final.Needs, cj.ID)
	}
	for _, p := range wf.Publishes {
		final.Needs = append(final.Needs, p.ID)
	}
	if wf.Push != nil {
		if _, taken := byStep[wf.Push.ID]; taken {
			wf.Push.ID = "_push"
		}
		for _, j := range wf.Jobs {
			wf.Push.Needs = append(wf.Push.Needs, j.ID)
		}
		// A publish job keeps the run's commits again.
		for _, p := range wf.Publishes {
			wf.Push.Needs = append(wf.Push.Needs, p.ID)
		}
	}
	if wf.Issue != nil {
		if _, taken := byStep["issue"]; taken {
			wf.Issue.ID = "_issue"
		}
		// Every job reads the issue's number from its outputs.
		for _, j := range wf.Jobs {
			j.Needs = append(slices.Clone(j.Needs), wf.Issue.ID)
		}
		final.Needs = append(final.Needs, wf.Issue.ID)
		if wf.Push != nil {
			wf.Push.Needs = append(wf.Push.Needs, wf.Issue.ID)
		}
		// The claim is released once every other job has ended.
		if _, taken := byStep[wf.Issue.Release]; taken {
			wf.Issue.Release = "_release"
		}
		wf.Issue.Needs = append(slices.Clone(final.Needs), final.ID)
		if wf.Push != nil {
			wf.Issue.Needs = append(wf.Issue.Needs, wf.Push.ID)
		}
	}
	wf.afterRepairs()
	wf.afterItems()
	wf.anchor()
	if len(wf.Publishes) > 0 {
		var err error
		data := publishScript{Commits: c.plan.Commit, Items: slices.ContainsFunc(wf.Publishes, func(p *publishJob) bool { return p.Items })}
		if wf.PublishScript, err = actionsPublish(data); err != nil {
			diags = append(diags, notCompilable(c.at.file(), "cannot render the script of a publish job: %v", err))
		}
	}
	rs.Publishes = wf.Publishes
	script, err := actionsResults(rs)
	if err != nil {
		diags = append(diags, notCompilable(c.at.file(), "cannot render the script of the last job: %v", err))
	} else if strings.Contains(script, "${{") {
		// Its log lines hold the steps' harnesses and models.
		diags = append(diags, notCompilable(c.at.file(), "the script of the last job would hold \"${{\", which GitHub Actions reads as an expression"))
	}
	final.Script = script
	wf.Final = final
	return wf, diags
}

// anchor sets how each job writes the steps that are the same in several
// jobs (checking out, taking the functions and the earlier results,
// keeping the step's result, changes, run folder and what its sessions
// spent, taking what earlier ones spent, installing a set of CLIs, keeping
// a set of keys), by kind: the first job that has one anchors
// it, when another has it too, and every other aliases it.
func (wf *workflow) anchor() {
	var installs, keys, changes []string
	for _, j := range wf.Jobs {
		j.Steps = map[string]stepRef{}
		kinds := []string{"checkout", "take-functions"}
		// A job that may hand its delivery off keeps the step's result,
		// run folder and changes only when it did not (keepKind).
		if j.Role != "repair" && j.KeepsStep() {
			kinds = append(kinds, j.KeepKind("keep-result"), j.KeepKind("keep-run"))
		}
		if j.Members != nil {
			// Its members' results, a list of its own (GroupResults).
			kinds = slices.DeleteFunc(kinds, func(k string) bool { return k == "keep-result" })
		}
		if j.Given {
			kinds = append(kinds, "take-results")
		}
		if j.Decides {
			kinds = append(kinds, "take-records")
		}
		if j.Patch != nil {
			kinds = append(kinds, j.KeepKind("keep-patch"))
		}
		if j.Output {
			kinds = append(kinds, "keep-output", "give-output")
		}
		if j.KeepsCommits() {
			kinds = append(kinds, "keep-commits")
		}
		if j.Commits {
			if j.Given {
				kinds = append(kinds, "take-commits")
			}
		}
		if j.Spent {
			// A repair job hands what it spent to the delivery's next
			// job, which keeps the step's.
			if j.KeepsStep() && j.Role != "repair" {
				kinds = append(kinds, j.KeepKind("keep-spent"))
			}
			if j.Given {
				kinds = append(kinds, "take-spent")
			}
		}
		if j.Changes != nil {
			j.ChangesStep = numbered("take-changes", &changes, j.Changes.Artifact)
			kinds = append(kinds, j.ChangesStep)
		}
		if len(j.Installs) > 0 {
			j.InstallStep = numbered("install", &installs, fmt.Sprint(j.Installs))
			kinds = append(kinds, j.InstallStep)
		}
		if len(j.Keys) > 0 {
			j.KeysStep = numbered("keys", &keys, fmt.Sprint(j.Keys))
			kinds = append(kinds, j.KeysStep)
		}
		if j.Role != "" {
			// Every round's repair job runs the same script, as does
			// every round's delivery's job.
			j.RunStep = "run-" + j.Role
			kinds = append(kinds, j.RunStep)
		}
		if j.Each != "" {
			// So do the jobs of a step with for_each.
			j.RunStep = "run-each-" + j.Step
			kinds = append(kinds, j.RunStep)
		}
		for _, k := range kinds {
			j.Steps[k] = stepRef{}
		}
	}
	first := map[string]*workflowJob{}
	for _, j := range wf.Jobs {
		for k := range j.Steps {
			if f, ok := first[k]; !ok {
				first[k] = j
			} else {
				f.Steps[k] = stepRef{Anchor: k}
				j.Steps[k] = stepRef{Alias: k}
			}
		}
	}
}

// numbered is kind-N, N the place of set in sets (which it joins when new),
// from 1.
func numbered(kind string, sets *[]string, set string) string {
	i := slices.Index(*sets, set)
	if i < 0 {
		i = len(*sets)
		*sets = append(*sets, set)
	}
	return fmt.Sprintf("%s-%d", kind, i+1)
}

// groupJob is the job of parallel group stage in commit mode, made from j,
// its first member's: it runs the members at once, as the bash target's
// script runs the group, each in its own worktree, and their commits are
// one history, made a commit at a time as cairn run makes them; on runners
// of their own the members would each commit the one run at once. Its ID,
// "_group_" and the first member's name, is no step's job's (one starts
// with "_" only before a digit). It keeps its members' results and changes
// with files of their own (GroupResults, GroupPatches), and the run folder
// they share as its first member's.
func groupJob(stage []ir.PlanStep, j *workflowJob) *workflowJob {
	j.ID, j.Group, j.Output = "_group_"+j.Step, stage[0].Parallel, false
	for _, st := range stage {
		j.Members = append(j.Members, st.Name)
	}
	return j
}

// apartIn reports whether a step of parallel group stage delivers,
// self-merges or may publish. In commit mode its members cannot run in
// one job (groupJob): it would hold a token that can write where their
// agents run, or give a publishing member's sessions no stand-in gh and
// no publish job after theirs. They run one after another, each in a job
// of its own, in file order, as cairn run --jobs 1 runs them.
func apartIn(stage []ir.PlanStep) bool {
	return slices.ContainsFunc(stage, func(st ir.PlanStep) bool {
		return mayPublish(&st) || slices.ContainsFunc(st.Actions, func(a ir.PlanAction) bool {
			return a.Kind == ir.Catalogue && (a.Catalogue == ir.Delivery || a.Catalogue == ir.SelfMerge)
		})
	})
}

// describedExpression refuses a description holding "${{", at the "${{":
// the jobs' scripts hold the description (their usage says it), where
// GitHub would read it as an expression.
func (c *compiler) describedExpression() []ir.Diagnostic {
	if !strings.Contains(c.plan.Description, "${{") {
		return nil
	}
	r := c.at.file()
	if p := c.at.process; p != nil {
		if at, ok := within(p.Description, "${{", or(p.Description.At(), r)); ok {
			r = at
		}
	}
	return []ir.Diagnostic{notCompilable(r,
		"the description would be in the workflow's scripts, where GitHub Actions reads \"${{\" as an expression; write it otherwise (\"$ {{\", \"${ {\")")}
}

// shareFunctions sets the scripts of wf's jobs from their compacted
// scripts (files, in job order): the functions they share, which the first
// job keeps for the others (wf.Runtime), and the rest of each job's.
func (wf *workflow) shareFunctions(files []*syntax.File) error {
	sh, rest, err := sharedScripts(files)
	if err != nil {
		return err
	}
	if wf.Runtime.Scripts, err = sharedScript(sh); err != nil {
		return err
	}
	for i, j := range wf.Jobs {
		if j.Script, err = jobRunScript(j.Step, rest[i]); err != nil {
			return fmt.Errorf("step %q: %w", j.Step, err)
		}
	}
	return nil
}

// agents adds to j the agent CLIs the sessions and the judge of step st
// need, and their keys. A custom harness's CLI, which cairn cannot install, must be on the
// runner already; a key cairn cannot name is the user's to add.
func (c *compiler) agents(st *ir.PlanStep, j *workflowJob) []ir.Diagnostic {
	var users []agentUser
	for _, a := range st.Actions {
		if a.Kind == ir.Session {
			users = append(users, agentUser{a.Harness, a.Model})
		}
	}
	if v := st.Validate; v != nil && len(v.Instructions) > 0 {
		// The judge's CLI and key, as its sessions'.
		users = append(users, agentUser{v.Harness, v.Model})
	}
	return c.agentsOf(st.Name, users, j)
}

// agentUser is a session of a step, by its harness and model.
type agentUser struct{ harness, model *ir.Setting }

// agentsOf adds to j the agent CLIs the sessions users of step need, and
// their keys.
func (c *compiler) agentsOf(step string, users []agentUser, j *workflowJob) []ir.Diagnostic {
	var diags []ir.Diagnostic
	st := &ir.PlanStep{Name: step}
	for _, a := range users {
		if a.harness == nil {
			continue
		}
		h, ok := c.in.Harnesses.Lookup(a.harness.Value)
		if !ok {
			continue
		}
		if in, ok := h.Install(); ok {
			if !slices.Contains(j.Installs, in) {
				j.Installs = append(j.Installs, in)
			}
		} else {
			diags = append(diags, ir.Diagnostic{
				Rule: ir.RuleNotCompilable, Severity: ir.Warning, Range: c.at.harness(st.Name),
				Message: fmt.Sprintf("step %q: the workflow does not install the CLI of custom harness %q: it must be on the runner (runs_on)", st.Name, h.Name),
			})
		}
		model := settingValue(a.model)
		if ks := h.Keys(model); len(ks) > 0 {
			for _, k := range ks {
				if !slices.Contains(j.Keys, k) {
					j.Keys = append(j.Keys, k)
				}
			}
		} else if h.Builtin {
			diags = append(diags, ir.Diagnostic{
				Rule: ir.RuleNotCompilable, Severity: ir.Warning, Range: c.at.model(st.Name),
				Message: fmt.Sprintf("step %q: the workflow gives harness %q no key: cairn knows none for model %q", st.Name, h.Name, model),
			})
		}
	}
	return diags
}

// carriable refuses a job's script that a workflow cannot hold as its run
// step: one where GitHub would read "${{" as an expression (a run step
// holding one is also limited to 21,000 characters), or one with a
// character a YAML block cannot carry. A "${{" of the description, which
// every job's script holds, is refused once, by describedExpression.
func (c *compiler) carriable(step, script string) []ir.Diagnostic {
	if strings.Contains(script, "${{") {
		r, ok := c.at.holding(step, "${{")
		if ok || !strings.Contains(c.plan.Description, "${{") {
			return []ir.Diagnostic{notCompilable(r,
				"step %q: its script would hold \"${{\", which GitHub Actions reads as an expression; write it otherwise (\"$ {{\", \"${ {\")", step)}
		}
	}
	if r, bad := YAMLBlockSafe(script); bad {
		return []ir.Diagnostic{notCompilable(c.at.step(step), "step %q: its script would hold the character %U, which a workflow file cannot carry", step, r)}
	}
	return nil
}

// KeepKind is the kind of the step of j that keeps what kind keeps: a
// kind of its own in a job that may hand its delivery off to a repair job,
// which keeps it only when it did not.
func (j *workflowJob) KeepKind(kind string) string {
	if j.HandsOff {
		return kind + "-unless-repaired"
	}
	if j.Each == "end" && kind == "keep-result" {
		// Its items' results too.
		return kind + "-items"
	}
	return kind
}

// Name is what GitHub shows of the job: its step's name, and its part in
// the step's repair loop, or in its for_each (an item's job is named as
// cairn names the item, STEP[N]).
func (j *workflowJob) Name() string {
	switch j.Role {
	case "repair":
		return fmt.Sprintf("%s: repair %d", j.Step, j.Round)
	case "redeliver":
		return fmt.Sprintf("%s: deliver after repair %d", j.Step, j.Round)
	}
	if j.Members != nil {
		return fmt.Sprintf("parallel group %s: %s", j.Group, strings.Join(j.Members, ", "))
	}
	switch j.Each {
	case "list":
		return j.Step + ": list its items"
	case "item":
		return j.Step + "[${{ matrix.index }}]"
	}
	switch j.Published {
	case "plan":
		return j.Step + ": check the published issue"
	case "tickets":
		return j.Step + ": list the spec's tickets"
	}
	return j.Step
}

// KeepsStep reports whether the job keeps its step's result, run folder
// and changes: every step's job but those that list a step's items and run
// them (Each), whose step's job keeps them.
func (j *workflowJob) KeepsStep() bool {
	return (j.Each == "" || j.Each == "end") && (j.Published == "" || j.Published == "end")
}

// KeepsCommits reports whether the job keeps the run's commits for the
// jobs after it (commit mode): every job but a repair job, which ends no
// step: the delivery's next job takes the run's commits as the job before
// the delivery left them.
func (j *workflowJob) KeepsCommits() bool {
	return j.Commits && j.Role != "repair"
}

// afterItems gives a condition to each job after the jobs of a for_each's
// items: GitHub skips a job with no if: when a job anywhere before it failed
// or was skipped, and an item's job fails with its item (an optional
// step's run goes on), or is skipped when the list has no item. Such a
// job runs when the jobs it needs succeeded, as without the items' jobs.
// A job that afterRepairs gave a condition keeps it: it is of the same
// kind.
func (wf *workflow) afterItems() {
	byID := map[string]*workflowJob{}
	for _, j := range wf.Jobs {
		byID[j.ID] = j
	}
	after := map[string]bool{}
	var isAfter func(j *workflowJob) bool
	isAfter = func(j *workflowJob) bool {
		if v, ok := after[j.ID]; ok {
			return v
		}
		after[j.ID] = false
		for _, n := range j.Needs {
			if d := byID[n]; d != nil && (d.Each == "item" || d.Published == "end" || isAfter(d)) {
				after[j.ID] = true
				break
			}
		}
		return after[j.ID]
	}
	for _, j := range wf.Jobs {
		if j.Role != "" || j.Each == "item" || j.Each == "end" || j.Published != "" || j.If != "" || !isAfter(j) {
			continue
		}
		conds := []string{"!cancelled()"}
		for _, n := range j.Needs {
			conds = append(conds, fmt.Sprintf("needs.%s.result == 'success'", n))
		}
		j.If = strings.Join(conds, " && ")
	}
}

// eachJobs are the jobs that run the items of step st, which has for_each,
// before end, the step's job (docs/design.md §9): a job that evaluates
// the list as the step would (over the records and outputs of the steps
// it waits for) and gives its items' indexes as its output, then a matrix
// of jobs over those indexes (from fromJSON, at most --jobs or max_items
// at once, none cancelled when another fails), each running one item in a
// throwaway of its own and keeping what it left. The step's job runs
// after them, even when items failed, as long as the list was had: it
// evaluates the list again, takes what each item's job kept, and ends
// the step as cairn run does. Nothing of the list travels in the matrix
// but indexes: each item's job finds its item in the list again. The
// items' jobs install the CLIs and keep the keys; the step's job starts
// no session.
func (c *compiler) eachJobs(st *ir.PlanStep, end *workflowJob) []*workflowJob {
	list := &workflowJob{ID: end.ID + "_list", Step: st.Name, Needs: end.Needs, If: end.If, Given: end.Given, Decides: true, Each: "list"}
	items := &workflowJob{ID: end.ID + "_items", Step: st.Name, Needs: []string{list.ID}, Given: end.Given, Decides: true,
		Each: "item", List: list.ID, Installs: end.Installs, Keys: end.Keys, Spent: end.Spent, MaxParallel: st.MaxItems,
		If: fmt.Sprintf("!cancelled() && needs.%[1]s.result == 'success' && needs.%[1]s.outputs.indexes != ''", list.ID)}
	if c.in.Jobs > 0 && c.in.Jobs < items.MaxParallel {
		items.MaxParallel = c.in.Jobs
	}
	end.Each, end.List = "end", list.ID
	end.Needs = append(slices.Clone(end.Needs), list.ID, items.ID)
	end.If = fmt.Sprintf("!cancelled() && needs.%s.result == 'success'", list.ID)
	end.Installs, end.Keys = nil, nil
	// The items' sessions run gh as the stand-in (bash/outbox.sh.tmpl),
	// which the three jobs' one run step gives the job's token.
	list.Publishes, items.Publishes = end.Publishes, end.Publishes
	for _, j := range []*workflowJob{list, items, end} {
		j.RunKeys, j.RunSpent = len(items.Keys) > 0, items.Spent
	}
	return []*workflowJob{list, items}
}

// repairJobs unrolls the repair loop of delivery step st, whose first job
// is deliver, into jobs (docs/design.md §9): for each round up to the
// plan's repair cap, a repair job, which runs the round's sessions with
// the workflow's read-only token when the delivery's job before it handed
// the delivery off (its checks failed, or its branch conflicts with the
// base), and the delivery's job after it, which may push: it pushes what
// the repair job did, waits for the checks again, and ends the step or
// hands it to the next repair job. The last one hands nothing off: at the
// cap, the delivery fails as cairn run's does. In commit mode a job that
// hands the delivery off, and a repair job, commit nothing of the run and
// keep no commits: the delivery's next job takes the run's commits as the
// job before the delivery left them, and the branch the repair job left
// (bash/commit.sh.tmpl, commit_keep).
func (c *compiler) repairJobs(s *script, st *ir.PlanStep, deliver *workflowJob) ([]*workflowJob, []ir.Diagnostic) {
	var diags []ir.Diagnostic
	deliver.HandsOff, deliver.Branch = true, st.Worktree
	deliver.Keeps = handoffArtifact(st.Name, 0)
	var jobs []*workflowJob
	prev := deliver
	for round := 1; round <= s.RepairCap; round++ {
		repair := &workflowJob{
			ID: fmt.Sprintf("%s-repair-%d", deliver.ID, round), Step: st.Name, Needs: []string{prev.ID}, Given: deliver.Given,
			Role: "repair", Round: round, Branch: st.Worktree, Spent: deliver.Spent, Commits: deliver.Commits,
			If:      fmt.Sprintf("needs.%s.outputs.repair != ''", prev.ID),
			Handoff: handoffArtifact(st.Name, round-1), Keeps: repairedArtifact(st.Name, round),
		}
		if a := c.plan.Repair; a != nil {
			diags = append(diags, c.agentsOf(st.Name, []agentUser{{a.Harness, a.Model}}, repair)...)
		}
		redeliver := &workflowJob{
			ID: fmt.Sprintf("%s-redeliver-%d", deliver.ID, round), Step: st.Name, Needs: []string{repair.ID}, Given: deliver.Given,
			Role: "redeliver", Round: round, Branch: st.Worktree, Writes: true, Merge: deliver.Merge, Spent: deliver.Spent, Commits: deliver.Commits,
			// The delivery's job after a repair job runs when that one ran,
			// whatever its end: it ends the step so when it failed.
			If:      fmt.Sprintf("!cancelled() && needs.%s.result != 'skipped'", repair.ID),
			Handoff: handoffArtifact(st.Name, round-1), Repaired: repairedArtifact(st.Name, round),
		}
		if round < s.RepairCap {
			redeliver.HandsOff, redeliver.Keeps = true, handoffArtifact(st.Name, round)
		}
		jobs = append(jobs, repair, redeliver)
		prev = redeliver
	}
	return jobs, diags
}

// afterRepairs gives each job after a delivery whose repair loop is
// unrolled into jobs its condition: it runs when the delivery's job that
// ended the step succeeded, and every other job it needs did, as a job
// after the delivery's one job would.
func (wf *workflow) afterRepairs() {
	loops := map[string][]*workflowJob{}
	in := map[string]string{}
	for _, j := range wf.Jobs {
		if j.HandsOff || j.Role == "redeliver" {
			loops[j.Step] = append(loops[j.Step], j)
		}
		if j.HandsOff || j.Role != "" {
			in[j.ID] = j.Step
		}
	}
	for _, j := range wf.Jobs {
		// The jobs of a for_each's items and its step's job after them
		// run as the job that lists the items says (eachJobs).
		if j.Role != "" || j.Each == "item" || j.Each == "end" || !slices.ContainsFunc(j.Needs, func(n string) bool { _, ok := in[n]; return ok }) {
			continue
		}
		conds := []string{"!cancelled()"}
		var steps []string
		for _, n := range j.Needs {
			step, ok := in[n]
			if !ok {
				conds = append(conds, fmt.Sprintf("needs.%s.result == 'success'", n))
				continue
			}
			if slices.Contains(steps, step) {
				continue
			}
			steps = append(steps, step)
			var ends []string
			for _, d := range loops[step] {
				end := fmt.Sprintf("needs.%s.result == 'success'", d.ID)
				if d.HandsOff {
					end = fmt.Sprintf("(%s && needs.%s.outputs.repair == '')", end, d.ID)
				}
				ends = append(ends, end)
			}
			conds = append(conds, "("+strings.Join(ends, " || ")+")")
		}
		j.If = strings.Join(conds, " && ")
	}
}

// publishedJobs are the jobs of run-published-issue step st (its action
// a), before end, the step's job (docs/design.md §9): a job that checks
// the issue the step before published as the step would and names the
// child runs to start on it; on a spec, a job that calls the workflow of
// its spec_process on it, then one that lists the spec's tickets once
// that run succeeded; then a job that calls the workflow of its process
// on each issue named (a matrix, at most --jobs at once, none cancelled
// when another fails). The step's job runs after them all, as long as the
// first ran: it checks again, takes the folders the child runs kept, and
// ends the step as cairn run does. Each child run's artifacts are named
// after child-STEP-N-, N its issue's number, and its jobs get the
// permissions its workflow asks for.
func (c *compiler) publishedJobs(s *script, st *ir.PlanStep, a int, end *workflowJob) ([]*workflowJob, []*callJob) {
	ss := s.Steps[slices.IndexFunc(s.Steps, func(x *scriptStep) bool { return x.Name == st.Name })]
	args := ss.Actions[a].Catalogue.Args
	child := func(i string) *scriptChild {
		k, err := strconv.Atoi(i)
		if err != nil || k < 0 || k >= len(s.Children) {
			return nil
		}
		return &s.Children[k]
	}
	process, spec := child(args[2]), child(args[4])
	plan := &workflowJob{ID: end.ID + "_plan", Step: st.Name, Needs: end.Needs, If: end.If, Given: end.Given, Decides: true, Published: "plan"}
	jobs := []*workflowJob{plan}
	var calls []*callJob
	// A child run is given its issue's URL, as cairn run gives it, which
	// its record keeps.
	call := func(id, what string, ch *scriptChild, needs []string, cond, issue, matrix string) *callJob {
		return &callJob{
			ID: id, Name: fmt.Sprintf("%s: %s %s on #%s", st.Name, what, ch.Process, issue), If: cond, Needs: needs,
			File: ch.File, Issue: "${{ github.server_url }}/${{ github.repository }}/issues/" + issue, Prefix: "child-" + st.Name + "-" + issue + "-", Matrix: matrix,
			MaxParallel: max(c.in.Jobs, 0), Grants: ch.Grants, Merge: ch.Merges,
		}
	}
	issues := fmt.Sprintf("needs.%s.outputs.issues", plan.ID)
	if spec != nil {
		sc := call(end.ID+"_spec", "spec_process", spec, []string{plan.ID},
			fmt.Sprintf("!cancelled() && needs.%s.result == 'success' && needs.%s.outputs.spec != ''", plan.ID, plan.ID), fmt.Sprintf("${{ needs.%s.outputs.spec }}", plan.ID), "")
		// It runs whether or not the issue is a spec, naming the issues
		// the process runs on either way: a skipped job's outputs are no
		// value act evaluates.
		tickets := &workflowJob{ID: end.ID + "_tickets", Step: st.Name, Needs: []string{plan.ID, sc.ID}, Given: end.Given, Decides: true, Published: "tickets",
			If: fmt.Sprintf("!cancelled() && needs.%s.result == 'success'", plan.ID)}
		if slices.Contains(spec.Grants, "issues: write") {
			// The spec's run publishes its tickets: those its publish jobs
			// opened are the run's own.
			opened := fmt.Sprintf("needs.%s.outputs.issues", sc.ID)
			tickets.RunIssues = append(tickets.RunIssues, opened)
			end.RunIssues = append(end.RunIssues, opened)
		}
		calls, jobs = append(calls, sc), append(jobs, tickets)
		issues = fmt.Sprintf("needs.%s.outputs.issues", tickets.ID)
	}
	if process != nil {
		var needs []string
		for _, j := range jobs {
			needs = append(needs, j.ID)
		}
		calls = append(calls, call(end.ID+"_each", "process", process, needs,
			fmt.Sprintf("!cancelled() && needs.%s.result == 'success' && %s != ''", plan.ID, issues), "${{ matrix.issue }}", fmt.Sprintf("fromJSON(%s || '[]')", issues)))
	}
	end.Published, end.Decides = "end", true
	end.Needs = slices.Clone(end.Needs)
	for _, j := range jobs {
		end.Needs = append(end.Needs, j.ID)
	}
	for _, cj := range calls {
		end.Needs = append(end.Needs, cj.ID)
	}
	end.If = fmt.Sprintf("!cancelled() && needs.%s.result == 'success'", plan.ID)
	return jobs, calls
}

// grants are the permissions a job that calls wf, a child's workflow,
// must give it, as no job of wf gets more than its caller's: contents:
// write when a job of it pushes (the issue's Claim, a delivery, commit
// mode's push, or a child of its own that does), pull-requests: write when
// one writes a pull request, issues: read, which its first job reads the
// issue with, or write when a publish job of it (or of a child of its own)
// opens issues, and checks, statuses and actions: read when a delivery of
// it pushes with a push token and reads the checks with the workflow's.
func (wf *workflow) grants() []string {
	contents, prs, checks := wf.Issue != nil && wf.Issue.Claims || wf.Push != nil, false, false
	issues := len(wf.Publishes) > 0
	for _, j := range wf.Jobs {
		contents, prs = contents || j.Writes, prs || j.Writes
		checks = checks || j.Writes && wf.PushToken != ""
	}
	for _, cj := range wf.Calls {
		contents = contents || slices.Contains(cj.Grants, "contents: write")
		prs = prs || slices.Contains(cj.Grants, "pull-requests: write")
		checks = checks || slices.Contains(cj.Grants, "checks: read")
		issues = issues || slices.Contains(cj.Grants, "issues: write")
	}
	g := []string{"contents: read"}
	if contents {
		g[0] = "contents: write"
	}
	if prs {
		g = append(g, "pull-requests: write")
	}
	if issues {
		g = append(g, "issues: write")
	} else {
		g = append(g, "issues: read")
	}
	if checks {
		// A delivery with a push token reads the pull request's checks
		// and their logs with the workflow's own token.
		g = append(g, "checks: read", "statuses: read", "actions: read")
	}
	return g
}
