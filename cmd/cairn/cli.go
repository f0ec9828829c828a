package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v3"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/text"
	"github.com/cairn-dev/cairn/ir"
)

// command is one of cairn's commands (§10): its command line, with its
// flags and positional arguments bound to its fields, and what it does
// with them.
type command interface {
	command() *cli.Command
	Run(a *app) error
}

// commands are cairn's commands, in the order its help lists them.
func commands() []command {
	return []command{
		&checkCmd{}, &listCmd{}, &runCmd{}, &compileCmd{}, &testCmd{}, &stubsCmd{},
		&statusCmd{}, &showCmd{}, &resumeCmd{}, &stopCmd{}, &gcCmd{}, &schemaCmd{},
		&lspCmd{}, versionCmd{},
	}
}

func init() {
	// cairn's -h and --help are its own flags, answered with writeHelp: the
	// library must not take a flag called help for its own and print its
	// help instead.
	cli.HelpFlag = nil
}

// description is cairn's one-line description, atop its help.
const description = "cairn turns a declarative process file into a checked plan, and runs it."

// app is what every command writes to, and the directory it works in.
type app struct {
	stdout io.Writer
	stderr io.Writer
	// dir is -C's directory, made absolute: the paths a user gives are
	// taken from it, as git -C takes them, and cairn's own working
	// directory never moves. "" without -C.
	dir string
}

// invocation is one reading of cairn's command line: the flags every
// command takes, and the command the arguments chose.
type invocation struct {
	stdout, stderr io.Writer
	directory      string
	help, version  bool
	// chosen is the command the arguments named, "" before one is.
	chosen string
}

// run runs cairn with args and returns its exit code.
func run(args []string, stdout, stderr io.Writer) int {
	inv := &invocation{stdout: stdout, stderr: stderr}
	root := inv.root()
	err := root.Run(context.Background(), append([]string{"cairn"}, attachedValues(root, args)...))
	return report(stderr, inv.chosen, err)
}

// attachedValues splits the value a short flag has attached off it, as
// "-oFILE" into "-o" "FILE", which the library does not read, and makes a
// dash before a character no flag starts with a flag's; a word that is some
// flag's value, and every word after "--", are left as they are.
func attachedValues(root *cli.Command, args []string) []string {
	takesValue := map[string]bool{}
	for _, c := range append([]*cli.Command{root}, root.Commands...) {
		for _, f := range c.Flags {
			d, ok := f.(cli.DocGenerationFlag)
			for _, n := range f.Names() {
				takesValue[n] = ok && d.TakesValue()
			}
		}
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && !startsLetter(a[1:]):
			// The library takes "-1" or "-." for an argument and reads
			// no flag after it; cairn has no such argument, and refuses it
			// as the unknown flag it looks like.
			a = "-" + a
		case !strings.HasPrefix(a, "-") || strings.Contains(a, "="):
		case takesValue[strings.TrimLeft(a, "-")] && i+1 < len(args):
			out = append(out, a)
			i++
			a = args[i]
		case len(a) > 2 && a[1] != '-' && takesValue[a[1:2]]:
			out = append(out, a[:2])
			a = a[2:]
		}
		out = append(out, a)
	}
	return out
}

// startsLetter reports whether s starts with a letter, as a flag's name
// does.
func startsLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// root is cairn's command line: the flags every command takes, and the
// commands.
func (inv *invocation) root() *cli.Command {
	root := &cli.Command{
		Name:  "cairn",
		Usage: description,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Destination: &inv.help,
				Usage: "Show context-sensitive help."},
			&cli.StringFlag{Name: "directory", Aliases: []string{"C"}, Destination: &inv.directory,
				Usage: "Work in `DIR`, on the git repository holding it, as if cairn were started there."},
			&cli.BoolFlag{Name: "version", Destination: &inv.version,
				Usage: "Print cairn's version and exit."},
		},
		// No command is called help: cairn's --help shows help.
		HideHelp: true,
		Action:   inv.bare,
		// cairn maps errors to exit codes itself (report): the library
		// must never exit.
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		OnUsageError:   inv.usage,
	}
	for _, c := range commands() {
		cmd := c.command()
		cmd.Before = inv.before
		cmd.Action = inv.action(c)
		cmd.OnUsageError = inv.usage
		// A repeated flag's values are taken whole: a glob may hold a
		// comma.
		cmd.DisableSliceFlagSeparator = true
		root.Commands = append(root.Commands, cmd)
	}
	return root
}

// bare is cairn without a command: a word that names no command is a
// usage error, with --help or --version as without; --version prints the
// version, and anything else, a bare cairn included, is a question the help
// answers.
func (inv *invocation) bare(_ context.Context, cmd *cli.Command) error {
	switch {
	case cmd.Args().Present():
		return unknownCommand(cmd)
	case inv.version && !inv.help:
		return writeVersion(inv.stdout)
	}
	return writeHelp(inv.stdout, cmd)
}

// before runs ahead of a command: --help and --version answer at once,
// whatever else the command line holds.
func (inv *invocation) before(ctx context.Context, cmd *cli.Command) (context.Context, error) {
	inv.chosen = cmd.Name
	switch {
	case inv.help:
		return ctx, shown(writeHelp(inv.stdout, cmd))
	case inv.version:
		return ctx, shown(writeVersion(inv.stdout))
	}
	return ctx, nil
}

// shown ends cairn with exit 0 once help or a version is written.
func shown(err error) error {
	if err != nil {
		return err
	}
	return &exitError{code: exitOK}
}

// action runs c once its flags and arguments are read: in -C's directory,
// with cairn's home resolved.
func (inv *invocation) action(c command) cli.ActionFunc {
	return func(_ context.Context, cmd *cli.Command) error {
		if cmd.Args().Present() {
			return usageError("unexpected argument %q", cmd.Args().First())
		}
		if err := config.ResolveHome(); err != nil {
			return err
		}
		dir, err := workDir(inv.directory)
		if err != nil {
			return usageError("-C %s: %s", inv.directory, pathError(err))
		}
		return c.Run(&app{stdout: inv.stdout, stderr: inv.stderr, dir: dir})
	}
}

// usage words a command line the library could not read as a usage error
// that names the flag or the command at fault.
func (inv *invocation) usage(_ context.Context, cmd *cli.Command, err error, _ bool) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	if cmd.Root() == cmd {
		if cmd.Args().Present() {
			// A word that names no command stops cairn before its flags.
			return unknownCommand(cmd)
		}
	} else {
		inv.chosen = cmd.Name
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		hint := ""
		if s := ir.Suggest(name, flagNames(cmd)); s != "" {
			hint = fmt.Sprintf("; did you mean %q?", dashed(s))
		}
		return usageError("unknown flag %q%s", dashed(name), hint)
	}
	if flag, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return usageError("%s needs a value", flag)
	}
	if name, value, reason, ok := invalidValue(msg); ok {
		if f, ok := lookupFlag(cmd, name).(cli.DocGenerationFlag); ok && f.TypeName() == "int" {
			reason = "want a whole number"
		}
		return usageError("%s %q: %s", dashed(name), value, reason)
	}
	return usageError("%s", msg)
}

// invalidValue reads the library's refusal of a flag's value, `invalid
// value "VALUE" for flag -NAME: REASON`.
func invalidValue(msg string) (name, value, reason string, ok bool) {
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	if !ok {
		return "", "", "", false
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", "", "", false
	}
	if value, err = strconv.Unquote(quoted); err != nil {
		return "", "", "", false
	}
	rest, ok = strings.CutPrefix(rest[len(quoted):], " for flag -")
	if !ok {
		return "", "", "", false
	}
	name, reason, ok = strings.Cut(rest, ": ")
	return name, value, reason, ok
}

// unknownCommand refuses the word cmd, the root, took for a command.
func unknownCommand(cmd *cli.Command) error {
	word := cmd.Args().First()
	var names []string
	for _, c := range cmd.Commands {
		names = append(names, c.Name)
	}
	hint := ""
	if s := ir.Suggest(word, names); s != "" {
		hint = fmt.Sprintf("; did you mean %q?", s)
	}
	return usageError("unknown command %q%s", word, hint)
}

// dashed is a flag's name as written on the command line: -C, --format.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagNames are the names of every flag cmd takes.
func flagNames(cmd *cli.Command) []string {
	var names []string
	for c := cmd; c != nil; c = parent(c) {
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				names = append(names, n)
			}
		}
	}
	return names
}

// lookupFlag is the flag of cmd, or of a command above it, called name.
func lookupFlag(cmd *cli.Command, name string) cli.Flag {
	for c := cmd; c != nil; c = parent(c) {
		for _, f := range c.Flags {
			if slices.Contains(f.Names(), name) {
				return f
			}
		}
	}
	return nil
}

// parent is the command above cmd, nil for the root.
func parent(cmd *cli.Command) *cli.Command {
	lineage := cmd.Lineage()
	if len(lineage) < 2 {
		return nil
	}
	return lineage[1]
}

// oneOf is the Validator of a flag that takes only values: its refusal
// names them.
func oneOf(values ...string) func(string) error {
	return func(v string) error {
		if slices.Contains(values, v) {
			return nil
		}
		return fmt.Errorf("want %s", ir.OneOf(values))
	}
}

// positional is a command's positional argument: how its help shows it,
// and the field its words go to: words when it takes every word left,
// else word.
type positional struct {
	name     string
	help     string
	optional bool
	words    *[]string
	word     *string
}

// HasName reports whether the argument is called name.
func (p *positional) HasName(name string) bool { return name == p.name }

// Usage is the argument as the usage line shows it: <name>, [<name>],
// <name> ... or [<name> ...].
func (p *positional) Usage() string {
	s := "<" + p.name + ">"
	if p.words != nil {
		s += " ..."
	}
	if p.optional {
		s = "[" + s + "]"
	}
	return s
}

// Parse takes the argument's words from args and returns the rest.
func (p *positional) Parse(args []string) ([]string, error) {
	if len(args) == 0 && !p.optional {
		return nil, usageError("missing argument %q", "<"+p.name+">")
	}
	if p.words != nil {
		*p.words = args
		return nil, nil
	}
	if len(args) > 0 {
		*p.word, args = args[0], args[1:]
	}
	return args, nil
}

// Get is the argument's value: its words, or its word.
func (p *positional) Get() any {
	if p.words != nil {
		return *p.words
	}
	return *p.word
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
// --repair-cap, --protect, --budget), which check previews as run would
// carry them.
type planFlags struct {
	Harness   string
	Model     string
	Effort    string
	Access    string
	Merge     bool
	RepairCap int
	Protect   []string
	Budget    string
}

// flags declares the flags; preview words the limits' help as check's.
func (f *planFlags) flags(preview bool) []cli.Flag {
	merge, repairCap, protect, budget := "Let a self-merge step merge.",
		"Tighten the repair cap to `N`.",
		"Keep the paths `GLOB` matches from every self-merge (repeatable).",
		"Tighten the run's budget to `USD` US dollars. It lowers the config's and the file's budget_usd and raises neither."
	if preview {
		merge, repairCap, protect, budget = "Preview the plan as cairn run --merge would carry it: a self-merge step merges.",
			"Preview the plan with the repair cap tightened to `N`, as cairn run --repair-cap N.",
			"Preview the plan with the paths `GLOB` matches kept from every self-merge (repeatable), as cairn run --protect.",
			"Preview the plan with the run's budget tightened to `USD` US dollars, as cairn run --budget USD."
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "harness", Destination: &f.Harness,
			Usage: "Harness `H` for the session steps that name none."},
		&cli.StringFlag{Name: "model", Destination: &f.Model,
			Usage: "Model `M` for the session steps that name none."},
		&cli.StringFlag{Name: "effort", Destination: &f.Effort,
			Usage: "Effort `E` for the session steps that name none."},
		&cli.StringFlag{Name: "access", Destination: &f.Access, Validator: oneOf(ir.Accesses...),
			Usage: "Tighten every session's access to at most `A`: read, write or full. It lowers any above A and raises none."},
		&cli.BoolFlag{Name: "merge", Destination: &f.Merge, Usage: merge},
		&cli.IntFlag{Name: "repair-cap", Destination: &f.RepairCap, Usage: repairCap},
		&cli.StringSliceFlag{Name: "protect", Destination: &f.Protect, Usage: protect},
		&cli.StringFlag{Name: "budget", Destination: &f.Budget, Usage: budget},
	}
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
		Harness: f.Harness, Model: f.Model, Effort: f.Effort, Access: f.Access,
		Merge: f.Merge, RepairCap: f.RepairCap, Protect: f.Protect, Budget: budget,
	}, nil
}
