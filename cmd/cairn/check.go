package main

import (
	"io"
	"os"
	"slices"

	"github.com/cairn-dev/cairn/internal/proc"
	"golang.org/x/term"

	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/views"
)

// checkCmd is `cairn check`.
type checkCmd struct {
	Targets     []string `arg:"" optional:"" name:"name|file" predictor:"process" help:"Processes to check: a name looked up in $CAIRN_HOME/processes and the config's process_path, or a file path. None: every process cairn list finds. End with \"issue ISSUE\" to check against an issue."`
	Issue       string   `placeholder:"ISSUE" help:"The issue to check against: a number or an issue URL (also written as \"issue ISSUE\" after the targets)."`
	Format      string   `enum:"text,json,sarif,github,mermaid,dot" default:"text" help:"Output format: text, json, sarif, github, or a picture of each plan's steps and needs: mermaid or dot (the diagnostics then go to stderr)."`
	NoPreflight bool     `help:"Do not ask each harness whether it can start."`
	Lint        bool     `help:"Only the rules that depend on the file alone: no config, skills, processes or harnesses."`
	Rules       bool     `help:"Print every rule and exit."`
	Fix         bool     `help:"Write the fixes the diagnostics carry into their files, inside the repository only, and check again."`
	// check words the limits' help as a preview of run's.
	//lint:ignore SA5008 kong reads every set tag of a field.
	planFlags `set:"merge=Preview the plan as cairn run --merge would carry it: a self-merge step merges." set:"repair_cap=Preview the plan with the repair cap tightened to N, as cairn run --repair-cap N." set:"protect=Preview the plan with the paths GLOB matches kept from every self-merge (repeatable), as cairn run --protect." set:"budget=Preview the plan with the run's budget tightened to USD US dollars, as cairn run --budget USD."`
}

// issueWord introduces the issue among check's positional arguments; it is a
// reserved process name, so it cannot be a target.
const issueWord = "issue"

// Run checks the targets and prints the report in the chosen format.
func (c *checkCmd) Run(a *app) error {
	if c.Rules {
		return views.WriteRules(a.stdout, load.Rules())
	}
	targets, issue, err := c.splitIssue()
	if err != nil {
		return err
	}
	flags, err := c.checkFlags()
	if err != nil {
		return err
	}
	ws := load.Open(a.ctx, a.dir, load.Options{Lint: c.Lint, NoPreflight: c.NoPreflight, Flags: flags, Env: a.env})
	ctx, stop := interrupts(a.ctx)
	defer stop()
	r := ws.Check(ctx, targets, issue)
	if c.Fix && ctx.Err() == nil {
		var fixed *views.Fixed
		r, fixed = ws.FixAndCheck(ctx, r, targets, issue)
		if err := fixed.WriteText(a.stderr, views.Style{Color: colorOn(a.env, a.stderr)}); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return interrupted(a)
	}
	if (c.Format == "sarif" || c.Format == "github") && ws.Env.Repo != nil {
		// Code scanning and annotations map paths from the repository's
		// root, whichever folder cairn ran in.
		r = r.Rebased(ws.Env.Repo.Root, a.dir)
	}
	switch c.Format {
	case "json":
		err = r.WriteJSON(a.stdout, terminal(a.stdout))
	case "sarif":
		err = r.WriteSARIF(a.stdout, views.Tool{Version: version(), Rules: load.Rules()}, terminal(a.stdout))
	case "github":
		err = r.WriteGitHub(a.stdout)
	case "mermaid", "dot":
		err = r.WriteGraphs(a.stdout, a.stderr, c.Format, views.Style{Color: colorOn(a.env, a.stderr)})
	default:
		err = r.WriteText(a.stdout, views.Style{Color: colorOn(a.env, a.stdout)})
		if err == nil {
			_, err = io.WriteString(a.stderr, r.Summary()+"\n")
		}
	}
	if err != nil {
		return err
	}
	if r.Failed() {
		return failed
	}
	return nil
}

// splitIssue splits a trailing "issue ISSUE" off the targets and merges it
// with --issue.
func (c *checkCmd) splitIssue() (targets []string, issue string, err error) {
	targets, issue = c.Targets, c.Issue
	if n := len(targets); n >= 2 && targets[n-2] == issueWord {
		if issue != "" {
			return nil, "", usageError("the issue is given twice: as %q and as --issue %q", targets[n-1], issue)
		}
		targets, issue = targets[:n-2], targets[n-1]
	}
	if i := slices.Index(targets, issueWord); i >= 0 {
		if i == len(targets)-1 {
			return nil, "", usageError("%q needs an issue number or URL after it", issueWord)
		}
		return nil, "", usageError("%q is not a process name: write the issue last, as \"cairn check NAME issue ISSUE\"", issueWord)
	}
	return targets, issue, nil
}

// colorOn reports whether text to w may be coloured: w is a terminal and,
// in cairn's environment env, NO_COLOR is unset (https://no-color.org) and
// the terminal is not dumb.
func colorOn(env []string, w io.Writer) bool {
	if proc.Getenv(env, "NO_COLOR") != "" || proc.Getenv(env, "TERM") == "dumb" {
		return false
	}
	return terminal(w)
}

// terminal reports whether w is a terminal: JSON is indented for a person
// there, and compact for the program reading a pipe. It asks the terminal
// driver, as a character device such as /dev/null is no terminal.
func terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
