package main

import (
	"io"
	"os"
	"slices"

	"github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/templates"
)

// checkCmd is `cairn check`.
type checkCmd struct {
	Targets     []string
	Issue       string
	Format      string
	NoPreflight bool
	Lint        bool
	Rules       bool
	planFlags
}

// command is the command line of `cairn check`.
func (c *checkCmd) command() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "Check process files and print the plan each resolves to.",
		Arguments: []cli.Argument{&positional{name: "name|file", optional: true, words: &c.Targets,
			help: "Processes to check: a name looked up in $CAIRN_HOME/processes and the config's process_path, or a file path. None: every process cairn list finds. End with \"issue ISSUE\" to check against an issue."}},
		Flags: slices.Concat([]cli.Flag{
			&cli.StringFlag{Name: "issue", Destination: &c.Issue,
				Usage: "The issue to check against: a number or an issue URL (also written as \"issue ISSUE\" after the targets)."},
			&cli.StringFlag{Name: "format", Value: "text", Destination: &c.Format, Validator: oneOf("text", "json", "sarif", "github"),
				Usage: "Output format: text, json, sarif or github."},
			&cli.BoolFlag{Name: "no-preflight", Destination: &c.NoPreflight,
				Usage: "Do not ask each harness whether it can start."},
			&cli.BoolFlag{Name: "lint", Destination: &c.Lint,
				Usage: "Only the rules that depend on the file alone: no config, skills, processes or harnesses."},
			&cli.BoolFlag{Name: "rules", Destination: &c.Rules,
				Usage: "Print every rule and exit."},
		}, c.flags(true)),
	}
}

// issueWord introduces the issue among check's positional arguments; it is a
// reserved process name, so it cannot be a target.
const issueWord = "issue"

// Run checks the targets and prints the report in the chosen format.
func (c *checkCmd) Run(a *app) error {
	if c.Rules {
		return templates.WriteRules(a.stdout, load.Rules())
	}
	targets, issue, err := c.splitIssue()
	if err != nil {
		return err
	}
	flags, err := c.checkFlags()
	if err != nil {
		return err
	}
	ws := load.Open(a.dir, load.Options{Lint: c.Lint, NoPreflight: c.NoPreflight, Flags: flags})
	ctx, stop := interrupts()
	defer stop()
	r := ws.Check(ctx, targets, issue)
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
		err = r.WriteSARIF(a.stdout, templates.Tool{Version: version(), Rules: load.Rules()}, terminal(a.stdout))
	case "github":
		err = r.WriteGitHub(a.stdout)
	default:
		err = r.WriteText(a.stdout, templates.Style{Color: colorOn(a.stdout)})
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

// colorOn reports whether text to w may be coloured: w is a terminal and
// NO_COLOR is unset (https://no-color.org), and the terminal is not dumb.
func colorOn(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
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
