package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/alecthomas/kong"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/text"
	"github.com/cairn-dev/cairn/ir"
)

// cli is cairn's command line: the flags every command takes, then its
// commands, in the order its help lists them.
type cli struct {
	Directory   string           `short:"C" placeholder:"DIR" predictor:"file" help:"Work in DIR, on the git repository holding it, as if cairn were started there."`
	VersionFlag kong.VersionFlag `name:"version" help:"Print cairn's version and exit."`

	Check      checkCmd      `cmd:"" help:"Check process files and print the plan each resolves to."`
	List       listCmd       `cmd:"" help:"List the processes cairn can find, with their descriptions."`
	Run        runCmd        `cmd:"" help:"Run a process: check it, then carry out its plan in worktrees."`
	Compile    compileCmd    `cmd:"" help:"Compile a process into a standalone bash script, or a GitHub Actions workflow, that does what cairn run does."`
	Test       testCmd       `cmd:"" help:"Run test files: each runs a process with stubs instead of agents and checks how the run ended."`
	Stubs      stubsCmd      `cmd:"" help:"Write a stubs skeleton for a process: a stub for every session step, for cairn run --stubs and cairn test."`
	Status     statusCmd     `cmd:"" help:"List the runs of this repository: running, crashed, ended and skipped."`
	Show       showCmd       `cmd:"" help:"Show a run's record: each step's log line, result and trace."`
	Resume     resumeCmd     `cmd:"" help:"Resume a failed, interrupted or crashed run from its first step that neither succeeded nor skipped."`
	Stop       stopCmd       `cmd:"" help:"Stop a running run, as Ctrl-C would."`
	Gc         gcCmd         `cmd:"" help:"Delete expired runs, keeping the newest of each process and any still running."`
	Schema     schemaCmd     `cmd:"" help:"Print the JSON Schema of a file cairn reads, for editors (process, card, config, stubs or test), or of cairn run --json's events."`
	Lsp        lspCmd        `cmd:"" help:"Run the language server of process files on stdin and stdout, for editors."`
	Completion completionCmd `cmd:"" help:"Print the script that completes cairn's command line in bash, zsh or fish."`
	Init       initCmd       `cmd:"" help:"Write a first process, its stubs and a test case of it, on the agent CLI this machine has."`
	Doctor     doctorCmd     `cmd:"" help:"Check what runs need on this machine: git, gh, each agent CLI and its login, what compiled scripts need."`
	Version    versionCmd    `cmd:"" help:"Print cairn's version."`
	// Complete answers the completion scripts.
	Complete completeCmd `cmd:"" name:"__complete" hidden:"" passthrough:""`
}

// description is cairn's one-line description, atop its help.
const description = "cairn turns a declarative process file into a checked plan, and runs it."

// helpWidth is the widest cairn's help is wrapped to.
const helpWidth = 80

// app is what every command writes to, the directory it works in, and
// what main gives it.
type app struct {
	stdout io.Writer
	stderr io.Writer
	// dir is -C's directory, made absolute: the paths a user gives are
	// taken from it, as git -C takes them, and cairn's own working
	// directory never moves. "" without -C.
	dir string
	// ctx is main's context: a command that stops what it started on an
	// interrupt derives its own from it (interrupts).
	ctx context.Context
	// env is cairn's environment, whole, which main reads once: git, the
	// steps, the harnesses and the notification run in it, and the
	// command reads NO_COLOR and TERM there.
	env []string
}

// exited is what kong's Exit panics with once --help or --version has
// answered: the parse stops there, and cairn ends with the code.
type exited int

// parser is cairn's command line read into c.
func parser(c *cli, stdout, stderr io.Writer) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("cairn"),
		kong.Description(description),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exited(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, WrapUpperBound: helpWidth}),
		kong.Vars{
			"version":     "cairn " + version(),
			"accesses":    strings.Join(ir.Accesses, ","),
			"run_help":    "The run: its folder's name or a unique prefix of it. Default: the latest run of this repository.",
			"events_help": "Write the run's events on stdout, one JSON object a line (cairn schema events); the progress and results go to stderr.",
		},
	)
}

// run runs cairn with args, in the environment env, and returns its exit
// code.
func run(ctx context.Context, args, env []string, stdout, stderr io.Writer) (code int) {
	var c cli
	p, err := parser(&c, stdout, stderr)
	if err != nil {
		return report(stderr, "", err)
	}
	if len(args) == 0 {
		// A bare cairn is a question: the help answers it.
		args = []string{"--help"}
	}
	defer func() {
		r := recover()
		if e, ok := r.(exited); ok {
			code = int(e)
		} else if r != nil {
			panic(r)
		}
	}()
	kctx, err := p.Parse(args)
	if err != nil {
		chosen, err := usage(err)
		return report(stderr, chosen, err)
	}
	command := kctx.Selected().Name
	if err := runsProcesses(command); err != nil {
		return report(stderr, command, err)
	}
	env, err = config.ResolveHome(env)
	if err != nil {
		return report(stderr, command, err)
	}
	dir, err := workDir(c.Directory)
	if err != nil {
		return report(stderr, command, usageError("-C %s: %s", c.Directory, pathError(err)))
	}
	return report(stderr, command, kctx.Run(&app{stdout: stdout, stderr: stderr, dir: dir, ctx: ctx, env: env}))
}

// usage words kong's refusal of a command line as cairn's usage error:
// the word at fault as typed, quoted, and what is wanted there. chosen is
// the command the line chose, "" for none.
func usage(err error) (chosen string, _ error) {
	var pe *kong.ParseError
	if !errors.As(err, &pe) || pe.Context == nil {
		return "", usageError("%s", err)
	}
	ctx := pe.Context
	node := ctx.Selected()
	if node != nil {
		chosen = node.Name
	} else {
		node = ctx.Model.Node
	}
	if ctx.Error != nil {
		// kong stopped at the first word it could not read.
		if rest := ctx.Path[len(ctx.Path)-1].Remainder(); len(rest) > 0 {
			return chosen, unreadable(node, rest[0], rest[1:], ctx.Error)
		}
	}
	for _, p := range ctx.Path {
		v := p.Positional
		if p.Flag != nil {
			v = p.Flag.Value
		}
		if v == nil || v.Enum == "" {
			continue
		}
		got := reflect.Indirect(v.Target)
		if got.IsValid() && !slices.Contains(v.EnumSlice(), fmt.Sprint(got)) {
			return chosen, usageError("%s %q: want %s", v.ShortSummary(), fmt.Sprint(got), ir.OneOf(v.EnumSlice()))
		}
	}
	for _, p := range node.Positional {
		if p.Required && !p.Set {
			return chosen, usageError("missing argument %q", "<"+p.Name+">")
		}
	}
	if chosen == "" {
		return "", usageError("missing command")
	}
	return chosen, usageError("%s", err)
}

// unreadable is the usage error of word, which kong could not read (why:
// err) where it stood on node's command line, before the words after it.
func unreadable(node *kong.Node, word string, after []string, err error) error {
	if word == "-" || !strings.HasPrefix(word, "-") {
		if node.Type == kong.ApplicationNode {
			return usageError("unknown command %q%s", word, didYouMean(ir.Suggest(word, commandNames(node))))
		}
		return usageError("unexpected argument %q", word)
	}
	typed, value, inline := flagWord(word)
	name := strings.TrimLeft(typed, "-")
	flag, names := lookupFlag(node, name)
	switch {
	case flag == nil:
		hint := ""
		if s := ir.Suggest(name, names); s != "" {
			hint = didYouMean("--" + s)
		}
		return usageError("unknown flag %q%s", typed, hint)
	case !inline && len(after) == 0:
		return usageError("%s needs a value", typed)
	case !inline && len(after[0]) > 1 && after[0][0] == '-':
		// kong takes a word that starts with a dash for a flag.
		return usageError("%s needs a value; for one that starts with a dash, write %s=%s", typed, typed, after[0])
	case !inline:
		value = after[0]
	}
	kind := flag.Target.Type()
	if kind.Kind() == reflect.Pointer {
		kind = kind.Elem()
	}
	switch kind.Kind() {
	case reflect.Bool:
		return usageError("%s %q: want true or false", typed, value)
	case reflect.Int:
		return usageError("%s %q: want a whole number", typed, value)
	}
	return usageError("%s", err)
}

// flagWord splits a word that starts with a dash into the flag as typed
// and its value, if one is attached: --name, --name=VALUE, -n or -nVALUE.
func flagWord(word string) (typed, value string, inline bool) {
	if strings.HasPrefix(word, "--") {
		return strings.Cut(word, "=")
	}
	_, size := utf8.DecodeRuneInString(word[1:])
	return word[:1+size], word[1+size:], len(word) > 1+size
}

// lookupFlag is the flag of node, or of a command above it, called name
// (long or short), and the long names of all those flags.
func lookupFlag(node *kong.Node, name string) (*kong.Flag, []string) {
	var found *kong.Flag
	var names []string
	for _, group := range node.AllFlags(true) {
		for _, f := range group {
			names = append(names, f.Name)
			if f.Name == name || f.Short != 0 && string(f.Short) == name {
				found = f
			}
		}
	}
	return found, names
}

// commandNames are the names of node's commands, hidden ones aside.
func commandNames(node *kong.Node) []string {
	var names []string
	for _, c := range node.Children {
		if c.Type == kong.CommandNode && !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names
}

// didYouMean is "; did you mean %q?" of a suggestion, "" of none.
func didYouMean(suggestion string) string {
	if suggestion == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", suggestion)
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
// A usage error adds a hint to the --help of the command chosen ("" for
// none).
func report(stderr io.Writer, chosen string, err error) int {
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
	msg := err.Error()
	if terminal(stderr) {
		// It may carry a cause: what a program wrote.
		msg = text.Escaped(msg)
	}
	fmt.Fprintf(stderr, "cairn: error: %s\n", msg)
	if code == exitUsage {
		help := "cairn --help"
		if chosen != "" {
			help = "cairn " + chosen + " --help"
		}
		fmt.Fprintf(stderr, "run %q for usage\n", help)
	}
	return code
}

// pathError is err without the path an *os.PathError repeats.
func pathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// planFlags are the flags check and run share, which become the
// check.Flags a plan is resolved with: what a session step that names none
// takes and the cap on every session's access (--harness, --model,
// --effort, --access), and the limits a run is carried out under (--merge,
// --repair-cap, --protect, --budget). The limits' help is run's; check
// sets its own words for them (merge, repair_cap, protect, budget), as it
// previews the plan as run would carry it.
type planFlags struct {
	Harness   string   `placeholder:"H" help:"Harness H for the session steps that name none."`
	Model     string   `placeholder:"M" help:"Model M for the session steps that name none."`
	Effort    string   `placeholder:"E" help:"Effort E for the session steps that name none."`
	Access    *string  `placeholder:"A" enum:"${accesses}" help:"Tighten every session's access to at most A: read, write or full. It lowers any above A and raises none."`
	Merge     bool     `help:"${merge=Let a self-merge step merge.}"`
	RepairCap int      `placeholder:"N" help:"${repair_cap=Tighten the repair cap to N.}"`
	Protect   []string `placeholder:"GLOB" sep:"none" help:"${protect=Keep the paths GLOB matches from every self-merge (repeatable).}"`
	Budget    string   `placeholder:"USD" help:"${budget=Tighten the run's budget to USD US dollars. It lowers the config's and the file's budget_usd and raises neither.}"`
}

// checkFlags are the flags as check.Flags, or the usage error of one whose
// value is out of range.
func (f *planFlags) checkFlags() (check.Flags, error) {
	if f.RepairCap < 0 {
		return check.Flags{}, usageError("--repair-cap %d: want 0 or more", f.RepairCap)
	}
	budget, err := budgetFlag(f.Budget)
	if err != nil {
		return check.Flags{}, err
	}
	return check.Flags{
		Harness: f.Harness, Model: f.Model, Effort: f.Effort, Access: orEmpty(f.Access),
		Merge: f.Merge, RepairCap: f.RepairCap, Protect: f.Protect, Budget: budget,
	}, nil
}

// orEmpty is the value of a flag kept as a pointer (so that kong checks
// an empty value given against its enum), "" without the flag.
func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
