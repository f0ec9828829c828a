// Package check decides whether a process makes sense: it runs the rules of
// docs/design.md §6.1 over the IR and resolves the process, its config, the command line and
// the issue into a plan with provenance.
package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
)

// Rule is one check of docs/design.md §6.1 as a value: its stable kebab-case ID, a one-line
// doc, the severity it reports at, and the function that finds every instance
// in a process, in source order. FrontEnd rules are reported by the parsers
// (Run is nil). Lint rules depend on the file alone, so `check --lint` keeps
// them and drops the rest.
type Rule struct {
	ID       string
	Doc      string
	Severity ir.Severity
	Lint     bool
	FrontEnd bool
	Run      func(*Pass)
}

// Pass is one rule's view of one process: the process, its environment, the
// resolution (nil under --lint), and where the rule reports.
type Pass struct {
	Process    *ir.Process
	Env        *Env
	Resolution *Resolution
	rule       *Rule
	diags      *[]ir.Diagnostic
	// ctx ends what a rule starts: the harnesses' preflight.
	ctx context.Context
}

// Report records a finding of the pass's rule at r, at the rule's severity.
func (p *Pass) Report(r ir.Range, format string, args ...any) {
	p.ReportAs(p.rule.Severity, r, nil, format, args...)
}

// ReportRelated records a finding at r that also points at related places,
// such as the earlier of two steps.
func (p *Pass) ReportRelated(r ir.Range, related []ir.Related, format string, args ...any) {
	p.ReportAs(p.rule.Severity, r, related, format, args...)
}

// ReportFixes records a finding at r that fixes resolve (none when fixes
// is empty): a did-you-mean's suggestion written in place, say.
func (p *Pass) ReportFixes(r ir.Range, fixes []ir.Fix, format string, args ...any) {
	p.ReportAs(p.rule.Severity, r, nil, format, args...)
	(*p.diags)[len(*p.diags)-1].Fixes = fixes
}

// ReportAs records a finding at an explicit severity (a rule that is an error
// at run time and a warning from check, a config value dropped with a note).
func (p *Pass) ReportAs(sev ir.Severity, r ir.Range, related []ir.Related, format string, args ...any) {
	*p.diags = append(*p.diags, ir.Diagnostic{
		Rule:     p.rule.ID,
		Severity: sev,
		Message:  fmt.Sprintf(format, args...),
		Range:    r,
		Related:  related,
	})
}

// change is the fix that writes want in place of f's value, of the
// process's file.
func (p *Pass) change(f ir.Field[string], want string) []ir.Fix {
	return ir.Change(p.Process.Source, valueRange(f), f.Value, want)
}

// Flags are the command-line settings that take part in resolution (docs/design.md §6.2,
// docs/design.md §6.3).
type Flags struct {
	Harness   string
	Model     string
	Effort    string
	Merge     bool
	RepairCap int // 0: not given
	Protect   []string
	Issue     *ir.Issue
	// Access is --access, a ceiling on every session's access: it lowers
	// any above it and raises none (docs/design.md §6.3). Empty: not given.
	Access string
	// Budget is --budget, a ceiling on the run's budget in US dollars: it
	// lowers the config's and the file's and raises neither. 0: not
	// given.
	Budget float64
}

// Env is everything outside the process file that checking may consult.
type Env struct {
	// Dir is the directory cairn works in (-C), which process files named
	// relative are taken from; "" for the process's working directory.
	Dir string
	// Home is $CAIRN_HOME.
	Home string
	// Config is the user config; never nil (an empty Config when there is
	// no file).
	Config *config.Config
	Flags  Flags
	// Repo is the git repository cairn works on; nil outside one.
	Repo *git.Repo
	// Harnesses is the registry of built-in and custom harnesses.
	Harnesses *harness.Registry
	// Lint keeps only the rules that depend on the file alone.
	Lint bool
	// Preflight asks each distinct harness whether it can start.
	Preflight bool
	// Runtime is set by `cairn run`: rules that only warn from check (an
	// issue-branch process without an issue) refuse.
	Runtime bool
	// Environ is the environment harness CLIs are preflighted in, whole,
	// and whose key variables say whether they can log in.
	Environ []string

	// cache memoises lookups shared by many files of one invocation (a
	// harness's preflight, a skill, a process by name), keyed by a string
	// that starts with what kind of lookup it is.
	cache sync.Map
}

// Check runs every applicable rule over p and, unless it is refused, resolves
// it into a plan. It returns the diagnostics sorted; the plan is nil when any
// diagnostic (of the front-end's, passed in, or of the rules) is an error.
// Cancelling ctx cancels the harnesses' preflight and the git lookups.
func Check(ctx context.Context, p *ir.Process, frontEnd []ir.Diagnostic, env *Env) (*ir.Plan, []ir.Diagnostic) {
	diags := slices.Clone(frontEnd)
	if p == nil || hasSyntaxError(frontEnd) {
		ir.SortDiagnostics(diags)
		return nil, diags
	}
	pass := &Pass{Process: p, Env: env, diags: &diags, ctx: ctx}
	if !env.Lint {
		pass.Resolution = Resolve(ctx, p, env)
	}
	for _, r := range Rules() {
		if r.Run == nil || (env.Lint && !r.Lint) {
			continue
		}
		pass.rule = r
		r.Run(pass)
	}
	ir.SortDiagnostics(diags)
	if ir.HasErrors(diags) || env.Lint {
		return nil, diags
	}
	return BuildPlan(ctx, p, pass.Resolution, env), diags
}

func hasSyntaxError(ds []ir.Diagnostic) bool {
	for _, d := range ds {
		if d.Rule == ir.RuleSyntax {
			return true
		}
	}
	return false
}

// Rules returns every rule, sorted by ID.
func Rules() []*Rule {
	all := slices.Concat(frontEndRules, lintRules, envRules, lookupRules)
	slices.SortFunc(all, func(a, b *Rule) int { return strings.Compare(a.ID, b.ID) })
	return all
}

// frontEndRules are the rules the parsers report; they are listed here so
// that `--rules` and the rules page name them.
var frontEndRules = []*Rule{
	{ID: ir.RuleSyntax, Doc: "a file its parser cannot read", Severity: ir.Error, Lint: true, FrontEnd: true},
	{ID: ir.RuleUnknownKey, Doc: "a key the format does not have (with a \"did you mean\" suggestion)", Severity: ir.Error, Lint: true, FrontEnd: true},
	{ID: ir.RuleType, Doc: "a value of the wrong type", Severity: ir.Error, Lint: true, FrontEnd: true},
	{ID: ir.RuleDuplicate, Doc: "a key, step, worktree or block defined twice", Severity: ir.Error, Lint: true, FrontEnd: true},
	{ID: ir.RuleHCLExpression, Doc: "an HCL expression that is not a literal", Severity: ir.Error, Lint: true, FrontEnd: true},
	{ID: ir.RuleNotCompilable, Doc: "(compile only) a feature a standalone script cannot carry", Severity: ir.Error, Lint: false, FrontEnd: true},
	{ID: ir.RuleStubMismatch, Doc: "(stubs and test files) a stub its step's kind cannot take: a command step's without exit, a session's keys on a command step, a verdict on a step without a judge, attempts on a step without review retries", Severity: ir.Error, Lint: false, FrontEnd: true},
}
