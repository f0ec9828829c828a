package codegen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
)

// Child is a process a run-published-issue step starts (docs/design.md
// §7.8), found by name and checked as `cairn run` finds and checks it, with
// what compiling it needs besides its plan (as Inputs names them).
type Child struct {
	Plan      *ir.Plan
	Process   *ir.Process
	Harnesses *harness.Registry
	Source    []byte
	RepoRoot  string
}

// scriptChild is a child process compiled into the script: Func is the
// function that writes its script, Text, a heredoc ended by Delim; Merges
// says whether it takes --merge.
type scriptChild struct {
	Process string
	Func    string
	Text    string
	Delim   string
	Merges  bool
	// File, for a target whose children are artifacts of their own
	// (targetInfo.calls), is the name of the child's workflow, beside the
	// caller's, and Workflow its bytes (no Func nor Text then); Grants
	// are the permissions the job that calls it must give it.
	File     string
	Workflow []byte
	Grants   []string
}

// published is the run-published-issue action a of step st, as the script
// carries it (feature published): catalogue_published with its publisher,
// the step before it, and its process and spec_process, each compiled into
// the script as a child (c.child), named by its index. A publisher check refuses is the cause
// the step fails with, as cairn run's does.
func (c *compiler) published(st *ir.PlanStep, a *ir.PlanAction, j int, s *script) (*scriptCatalogue, []ir.Diagnostic) {
	s.HasPublished = true
	sc := &scriptCatalogue{Func: "catalogue_published"}
	publisher := ""
	if len(st.Needs) != 1 {
		sc.Refused = fmt.Sprintf("run-published-issue step %q must come directly after a single session step, whose result's last line names the issue", st.Name)
	} else {
		publisher = st.Needs[0]
	}
	var diags []ir.Diagnostic
	funcs := []string{"", ""}
	for i, f := range []struct {
		key, process string
		field        func(*ir.Action) ir.Field[string]
	}{
		{"process", a.Process, func(ia *ir.Action) ir.Field[string] { return ia.Keys().Process }},
		{"spec_process", a.SpecProcess, func(ia *ir.Action) ir.Field[string] { return ia.Keys().SpecProcess }},
	} {
		if f.process == "" {
			continue
		}
		r := c.at.step(st.Name)
		if ia := c.at.action(st.Name, j); ia != nil {
			r = or(f.field(ia).At(), r)
		}
		fn, ds := c.child(st.Name, f.key, f.process, r, s)
		funcs[i] = fn
		diags = append(diags, ds...)
	}
	sc.Args = []string{publisher, a.Process, funcs[0], a.SpecProcess, funcs[1]}
	return sc, diags
}

// child compiles the process name, which key of step names at r, into s
// as a child script (once however many steps name it), and returns its
// index, N of the function child_N that writes it. It is compiled as `cairn run` runs a child: on
// an issue the script is given, in its parent's run folder, with no
// notification of its own. Not found, refused by its check or by the
// target, or starting its own parent, it is refused here.
func (c *compiler) child(step, key, name string, r ir.Range, s *script) (string, []ir.Diagnostic) {
	for i, ch := range s.Children {
		if ch.Process == name {
			return strconv.Itoa(i), nil
		}
	}
	refuse := func(format string, args ...any) (string, []ir.Diagnostic) {
		why := fmt.Sprintf(format, args...)
		return "", []ir.Diagnostic{notCompilable(r, "step %q: %s %q cannot be compiled to %s: %s", step, key, name, c.target.name, why)}
	}
	if c.in.Children == nil {
		return refuse("the compiler was given no way to find it")
	}
	chain := append(slices.Clone(c.in.parents), c.plan.Process)
	if slices.Contains(chain, name) {
		return refuse("a run of it starts it again (%s), so its script would hold itself", strings.Join(append(chain, name), " → "))
	}
	ch, err := c.in.Children(name)
	if err != nil {
		return refuse("%v", err)
	}
	plan := *ch.Plan
	// A child run sends no notification: its parent's says how it all ended.
	plan.Notify = ir.PlanNotify{}
	cc, ds := newCompiler(&plan, Inputs{
		Process: ch.Process, Harnesses: ch.Harnesses, ReadFile: c.in.ReadFile, Source: ch.Source,
		RepoRoot: ch.RepoRoot, Dir: c.in.Dir, Jobs: c.in.Jobs, Children: c.in.Children, parents: chain,
	}, c.target)
	var cs *script
	var wf *workflow
	var called []byte
	if !ir.HasErrors(ds) {
		var more []ir.Diagnostic
		if c.target.calls {
			called, wf, more = cc.actions()
		} else {
			cs, more = cc.script()
		}
		ds = append(ds, more...)
	}
	var errs []string
	for _, d := range ds {
		if d.Severity == ir.Error {
			errs = append(errs, fmt.Sprintf("%s:%d:%d: %s", d.Range.File, d.Range.Start.Line, d.Range.Start.Column, d.Message))
		}
	}
	switch len(errs) {
	case 0:
	case 1:
		return refuse("%s", errs[0])
	default:
		return refuse("%s (and %d more)", errs[0], len(errs)-1)
	}
	if c.target.calls {
		file := strings.Join(append(slices.Clone(chain), name), ".") + ".yml"
		s.Children = append(s.Children, scriptChild{Process: name, File: file, Workflow: called, Merges: wf.Merges, Grants: wf.grants()})
		s.Merges = s.Merges || wf.Merges
		c.siblings = append(append(c.siblings, Sibling{Name: file, Data: called}), cc.siblings...)
		return strconv.Itoa(len(s.Children) - 1), nil
	}
	out, err := bashScript(cs)
	if err != nil {
		return refuse("cannot render its script: %v", err)
	}
	text := string(afterShebang(out, cc.header(cs)))
	i := len(s.Children)
	delim := "CAIRN_CHILD_SCRIPT"
	for strings.Contains(text, delim) {
		delim += "_"
	}
	s.Children = append(s.Children, scriptChild{Process: name, Func: fmt.Sprintf("child_%d", i), Text: text, Delim: delim, Merges: cs.Merges})
	s.Merges = s.Merges || cs.Merges
	for _, b := range cs.Bins {
		if !slices.Contains(s.Bins, b) {
			s.Bins = append(s.Bins, b)
		}
	}
	return strconv.Itoa(i), nil
}

// specLabel is forge.SpecLabel, as the script compares labels: in lower
// case.
var specLabel = strings.ToLower(forge.SpecLabel)
