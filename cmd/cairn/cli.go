package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/cairn-dev/cairn/config"
)

// cli is cairn's command line (§10).
type cli struct {
	Directory   string           `short:"C" placeholder:"DIR" help:"Work in DIR, on the git repository holding it, as if cairn were started there."`
	VersionFlag kong.VersionFlag `name:"version" help:"Print cairn's version and exit."`

	Check   checkCmd   `cmd:"" help:"Check process files and print the plan each resolves to."`
	List    listCmd    `cmd:"" help:"List the processes cairn can find, with their descriptions."`
	Run     runCmd     `cmd:"" help:"Run a process: check it, then carry out its plan in worktrees."`
	Compile compileCmd `cmd:"" help:"Compile a process into a standalone bash script, or a GitHub Actions workflow, that does what cairn run does."`
	Test    testCmd    `cmd:"" help:"Run test files: each runs a process with stubs instead of agents and checks how the run ended."`
	Stubs   stubsCmd   `cmd:"" help:"Write a stubs skeleton for a process: a stub for every session step, for cairn run --stubs and cairn test."`
	Status  statusCmd  `cmd:"" help:"List the runs of this repository: running, crashed, ended and skipped."`
	Show    showCmd    `cmd:"" help:"Show a run's record: each step's log line, result and trace."`
	Resume  resumeCmd  `cmd:"" help:"Resume a failed, interrupted or crashed run from its first step that neither succeeded nor skipped."`
	Stop    stopCmd    `cmd:"" help:"Stop a running run, as Ctrl-C would."`
	Gc      gcCmd      `cmd:"" help:"Delete expired runs, keeping the newest of each process and any still running."`
	Schema  schemaCmd  `cmd:"" help:"Print the JSON Schema of a file cairn reads, for editors: process, card, config, stubs or test."`
	Lsp     lspCmd     `cmd:"" help:"Run the language server of process files on stdin and stdout, for editors."`
	Version versionCmd `cmd:"" help:"Print cairn's version."`
}

// app is what every command writes to, and the directory it works in.
type app struct {
	stdout io.Writer
	stderr io.Writer
	// dir is -C's directory, made absolute: the paths a user gives are
	// taken from it, as git -C takes them, and cairn's own working
	// directory never moves. "" without -C.
	dir string
}

// run runs cairn with args and returns its exit code.
func run(args []string, stdout, stderr io.Writer) int {
	var c cli
	exit := -1
	parser, err := kong.New(&c,
		kong.Name("cairn"),
		kong.Description("cairn turns a declarative process file into a checked plan, and runs it."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) {
			if exit < 0 {
				exit = code
			}
		}),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"version": "cairn " + version()},
	)
	if err != nil {
		fmt.Fprintf(stderr, "cairn: error: %v\n", err)
		return exitFailed
	}
	if len(args) == 0 {
		// A bare cairn is a question: the help answers it.
		args = []string{"--help"}
	}
	ctx, err := parser.Parse(args)
	if exit >= 0 {
		// --help printed the help and asked to stop.
		return exit
	}
	if err != nil {
		return report(stderr, commandOf(err), usageError("%s", err.Error()))
	}
	command := firstWord(ctx.Command())
	if err := config.ResolveHome(); err != nil {
		return report(stderr, command, err)
	}
	dir, err := workDir(c.Directory)
	if err != nil {
		return report(stderr, command, usageError("-C %s: %s", c.Directory, pathError(err)))
	}
	return report(stderr, command, ctx.Run(&app{stdout: stdout, stderr: stderr, dir: dir}))
}

// workDir is the directory -C names, made absolute; "" when it names none.
func workDir(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", &os.PathError{Op: "stat", Path: dir, Err: syscall.ENOTDIR}
	}
	return filepath.Abs(dir)
}

// report shows err once, on one line, and returns the exit code it maps to.
// A usage error adds a hint to the command's --help.
func report(stderr io.Writer, command string, err error) int {
	if err == nil {
		return exitOK
	}
	code := exitFailed
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	fmt.Fprintf(stderr, "cairn: error: %s\n", err)
	if code == exitUsage {
		help := "cairn --help"
		if command != "" {
			help = "cairn " + command + " --help"
		}
		fmt.Fprintf(stderr, "run %q for usage\n", help)
	}
	return code
}

// commandOf is the command a parse error happened in, "" when none was
// selected.
func commandOf(err error) string {
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		if node := pe.Context.Selected(); node != nil {
			return firstWord(node.Path())
		}
	}
	return ""
}

// pathError is err without the path an *os.PathError repeats.
func pathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// firstWord is a command path's first word: "check" of "check <name|file>".
func firstWord(s string) string {
	word, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return word
}
