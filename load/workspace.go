// Package load is the check pipeline: it opens a workspace (home, config,
// repository, harnesses) as a check environment, checks the process files
// targets name into the reports `cairn check` and `cairn list` render, and
// prepares the plan `cairn run` or `cairn compile` carries out.
package load

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
	"github.com/cairn-dev/cairn/views"
)

// Options are the command line's say in checking.
type Options struct {
	// Lint keeps only the rules that depend on the file alone.
	Lint bool
	// NoPreflight skips asking each harness whether it can start.
	NoPreflight bool
	// Flags are --harness, --model, --effort and the rest; the issue is
	// given to Check, which shape-checks it.
	Flags check.Flags
	// Env is cairn's environment, whole, which main reads once: git runs
	// in it, and harnesses are preflighted in it.
	Env []string
}

// Workspace is the check environment of one invocation, with the
// diagnostics and sources of setting it up (the config's).
type Workspace struct {
	Env *check.Env
	// Diagnostics are the config's: reported with every report.
	Diagnostics []ir.Diagnostic
	// Sources maps the config file to its bytes, for quoting.
	Sources map[string][]byte
	// NoRepo is set when dir is not inside a git repository.
	NoRepo bool

	// dir and opts are what the workspace was opened with: FixAndCheck
	// opens it anew.
	dir  string
	opts Options
	// reader reads the process files, resolving their folders once.
	reader source.Reader
}

// Open builds the workspace of the directory cairn works in, dir (-C's; ""
// for the process's working directory), on the git repository holding it
// (dir may lie outside any repository: checking still works, without
// repository skills). Process files named relative are taken relative to
// dir. A config that is refused refuses every file: the rules then run as
// under --lint, and no file gets a plan. ctx ends the git Open runs.
func Open(ctx context.Context, dir string, o Options) *Workspace {
	// Checking reads the repository from its files where they answer as
	// git would: a linter runs no git process it can do without.
	repo, err := git.Find(ctx, git.New(o.Env), workdir.Path(dir, "."))
	if err != nil {
		repo = nil
	}
	return open(dir, o, repo)
}

// open is Open on repo, the repository holding dir, nil when there is none.
func open(dir string, o Options, repo *git.Repo) *Workspace {
	home := config.Home(o.Env, dir, repo != nil)
	cfg, diags := config.Load(home)
	if cfg == nil {
		cfg = &config.Config{}
	}
	ws := &Workspace{
		Diagnostics: diags,
		Sources:     map[string][]byte{},
		NoRepo:      repo == nil,
		dir:         dir,
		opts:        o,
	}
	if cfg.File != "" && cfg.Source != nil {
		ws.Sources[cfg.File] = cfg.Source
	}
	lint := o.Lint || ir.HasErrors(diags)
	ws.Env = &check.Env{
		Dir:       dir,
		Home:      home,
		Config:    cfg,
		Flags:     o.Flags,
		Repo:      repo,
		Harnesses: harness.NewRegistry(cfg.CustomHarnesses()).WithPrices(cfg.PriceOverrides()),
		Lint:      lint,
		Preflight: !o.NoPreflight && !lint,
		Environ:   o.Env,
	}
	return ws
}

// Check checks the processes targets name (every process List finds when
// there are none) with issue (none when empty), and returns the report.
// Cancelling ctx cancels the harnesses' preflight.
func (ws *Workspace) Check(ctx context.Context, targets []string, issue string) *views.Report {
	r := &views.Report{
		Sources: maps.Clone(ws.Sources),
		NoRepo:  ws.NoRepo,
		Plans:   []*ir.Plan{},
	}
	diags := slices.Clone(ws.Diagnostics)
	if issue != "" {
		is, err := ir.ParseIssue(issue)
		if err != nil {
			diags = append(diags, ir.Diagnostic{
				Rule:     check.RuleInvalidValue,
				Severity: ir.Error,
				Message:  err.Error(),
			})
			// Like a refused config, a bad issue refuses every file:
			// each is still linted, and none gets a plan.
			ws.Env.Lint, ws.Env.Preflight = true, false
		}
		ws.Env.Flags.Issue = is
	}
	files, found := ws.files(targets)
	diags = append(diags, found...)
	if len(targets) == 0 {
		r.Searched = check.ProcessDirs(ws.Env)
		if r.Searched == nil {
			r.Searched = []string{}
		}
	}
	files = uniqueOrder(files)
	r.Files = len(files)
	if len(files) > 0 {
		defer check.Prefetch(ctx, ws.Env)()
	}
	for i, c := range ws.checkFiles(ctx, files) {
		if c.src != nil {
			r.Sources[files[i]] = c.src
		}
		if c.plan != nil {
			r.Plans = append(r.Plans, c.plan)
		}
		diags = append(diags, c.diags...)
	}
	r.Diagnostics = unique(diags)
	return r
}

// files are the process files targets name, in order, with the diagnostics
// of finding them (check.Find: a target with a '/' or an extension is a path,
// any other a name to look up); a test or stubs file is passed by, with a
// note.
func (ws *Workspace) files(targets []string) ([]string, []ir.Diagnostic) {
	if len(targets) == 0 {
		found, diags := check.List(ws.Env)
		files := make([]string, 0, len(found))
		for _, f := range found {
			files = append(files, f.File)
		}
		return files, diags
	}
	var files []string
	var diags []ir.Diagnostic
	for _, t := range targets {
		if parse.NotProcess(t) {
			// A shell's glob (processes/*.toml) takes in the test and stubs
			// files cairn test keeps beside the processes: they are passed
			// by, as listing passes them by, and said so.
			diags = append(diags, ir.Diagnostic{
				Rule:     check.RuleUnknownProcess,
				Severity: ir.Note,
				Message:  fmt.Sprintf("%q is passed by: a file of cairn test (*%s, *%s), not a process", t, parse.TestSuffix, parse.StubsSuffix),
				Range:    ir.Range{File: t},
			})
			continue
		}
		file, ds := check.Find(ws.Env, t)
		diags = append(diags, ds...)
		if file != "" && !ir.HasErrors(ds) {
			files = append(files, file)
		}
	}
	return files, diags
}

// checked is one file's outcome: its bytes, its plan and its diagnostics.
type checked struct {
	src   []byte
	plan  *ir.Plan
	diags []ir.Diagnostic
}

// checkFiles checks files on one worker per CPU (files are independent, and
// the environment's lookups are shared and safe for concurrent use),
// returning the outcomes in the files' order.
func (ws *Workspace) checkFiles(ctx context.Context, files []string) []checked {
	out := make([]checked, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for i := range next {
				out[i].src, out[i].plan, out[i].diags = ws.checkFile(ctx, files[i])
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// uniqueOrder drops the repeats of a file named twice, keeping the first.
func uniqueOrder(files []string) []string {
	seen := make(map[string]bool, len(files))
	out := files[:0:0]
	for _, f := range files {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// checkFile reads, parses and checks one file, returning its bytes (nil when
// unreadable), its plan (nil when refused) and its diagnostics.
func (ws *Workspace) checkFile(ctx context.Context, file string) ([]byte, *ir.Plan, []ir.Diagnostic) {
	src, p, diags := ws.read(file)
	if p == nil {
		return src, nil, diags
	}
	plan, diags := check.Check(ctx, p, diags, ws.Env)
	return src, plan, diags
}

// read reads one process file (source.ReadFile, through ws.reader: a
// regular file, capped, inside the repository when named inside it) and
// parses it by the format its name says.
func (ws *Workspace) read(file string) ([]byte, *ir.Process, []ir.Diagnostic) {
	format, ok := parse.FormatOf(file)
	if !ok {
		return nil, nil, []ir.Diagnostic{{
			Rule:     ir.RuleSyntax,
			Severity: ir.Error,
			Message:  fmt.Sprintf("%q is not a process file: its name must end in .toml, .hcl or %s", file, parse.CardSuffix),
			Range:    ir.Range{File: file},
		}}
	}
	root := ""
	if ws.Env.Repo != nil {
		root = ws.Env.Repo.Root
	}
	src, err := ws.reader.ReadFile(workdir.Path(ws.Env.Dir, file), root)
	if err != nil {
		return nil, nil, []ir.Diagnostic{{
			Rule:     ir.RuleSyntax,
			Severity: ir.Error,
			Message:  readError(file, err),
			Range:    ir.Range{File: file},
		}}
	}
	p, diags := parseAs(format, file, src)
	return src, p, diags
}

// parseAs parses src, the process file file, as format.
func parseAs(format ir.Format, file string, src []byte) (*ir.Process, []ir.Diagnostic) {
	switch format {
	case ir.TOML:
		return parse.TOML(file, src)
	case ir.HCL:
		return parse.HCL(file, src)
	default:
		return parse.Card(file, src)
	}
}

// CheckSource checks src, the text of the process file file (an editor's,
// which may not be saved), as Check checks a file, and returns its
// diagnostics with the config's.
func (ws *Workspace) CheckSource(ctx context.Context, file string, src []byte) []ir.Diagnostic {
	format, ok := parse.FormatOf(file)
	if !ok {
		format = ir.TOML
	}
	p, diags := parseAs(format, file, src)
	_, diags = check.Check(ctx, p, diags, ws.Env)
	return unique(slices.Concat(ws.Diagnostics, diags))
}

// readError words why a file could not be read, without Go's "open …:"
// prefix repeating the name.
func readError(file string, err error) string {
	switch {
	case os.IsNotExist(err):
		return fmt.Sprintf("cannot read %q: no such file", file)
	case os.IsPermission(err):
		return fmt.Sprintf("cannot read %q: permission denied", file)
	}
	var perr *os.PathError
	if errors.As(err, &perr) {
		return fmt.Sprintf("cannot read %q: %v", file, perr.Err)
	}
	return fmt.Sprintf("cannot read %q: %v", file, err)
}

// List finds every process (check.List) and parses each for its
// description; a file that does not parse is listed with its first refusal.
func (ws *Workspace) List() *views.Listing {
	found, diags := check.List(ws.Env)
	l := &views.Listing{
		Diagnostics: unique(slices.Concat(ws.Diagnostics, diags)),
		Searched:    check.ProcessDirs(ws.Env),
	}
	for _, f := range found {
		item := views.Listed{Name: f.Name, File: f.File, Format: f.Format}
		_, p, ds := ws.read(f.File)
		ir.SortDiagnostics(ds)
		for _, d := range ds {
			if d.Severity == ir.Error {
				item.Error = &d
				break
			}
		}
		if p != nil && p.Description.Set && !p.Description.Bad {
			item.Description = p.Description.Value
		}
		l.Processes = append(l.Processes, item)
	}
	return l
}

// unique sorts ds and drops repeats: a finding in the config can be reported
// while checking each of several files.
func unique(ds []ir.Diagnostic) []ir.Diagnostic {
	ir.SortDiagnostics(ds)
	out := make([]ir.Diagnostic, 0, len(ds))
	for _, d := range ds {
		if len(out) > 0 && same(out[len(out)-1], d) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// same reports whether a and b are one finding.
func same(a, b ir.Diagnostic) bool {
	return a.Rule == b.Rule && a.Severity == b.Severity && a.Message == b.Message &&
		a.Range == b.Range && slices.Equal(a.Related, b.Related) &&
		slices.EqualFunc(a.Fixes, b.Fixes, func(x, y ir.Fix) bool { return x.Message == y.Message && slices.Equal(x.Edits, y.Edits) })
}
