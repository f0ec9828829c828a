package check

import (
	"strings"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/workdir"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// RuleProcessCycle is the ID of the rule about child processes that start
// each other.
const RuleProcessCycle = "process-cycle"

// ruleUnknownProcess refuses a run-published-issue child process (process or
// spec_process) that lookup by name cannot find.
var ruleUnknownProcess = &Rule{
	ID:       RuleUnknownProcess,
	Doc:      "a run-published-issue process / spec_process that cannot be found",
	Severity: ir.Error,
	Run: func(pass *Pass) {
		for _, f := range childFields(pass.Process) {
			if found := findByName(pass.Env, f.Value); found.diag != nil {
				pass.ReportFixes(valueRange(f), pass.change(f, found.suggestion), "%s", found.diag.Message)
			}
		}
	},
}

// ruleProcessCycle refuses a child process whose own children, followed
// through run-published-issue steps, lead back to a process already on the
// way: running it would never end. Only TOML children can be read so far;
// children in other formats end the chain.
var ruleProcessCycle = &Rule{
	ID:       RuleProcessCycle,
	Doc:      "child processes that start each other",
	Severity: ir.Error,
	Run: func(pass *Pass) {
		p := pass.Process
		root := absPath(pass.Env.Dir, p.File)
		c := &cycles{env: pass.Env, clean: map[string]bool{}}
		for _, f := range childFields(p) {
			found := findByName(pass.Env, f.Value)
			if found.diag != nil {
				continue
			}
			file := absPath(pass.Env.Dir, found.file)
			chain := []string{p.Name, f.Value}
			if file != root {
				chain = c.follow(file, chain, map[string]bool{root: true, file: true})
			}
			if chain != nil {
				pass.Report(valueRange(f), "child processes start each other: %s", strings.Join(chain, " → "))
			}
		}
	},
}

// cycles follows child processes from one checked file.
type cycles struct {
	env *Env
	// clean holds the files from which no cycle can be reached.
	clean map[string]bool
}

// follow walks the children of file, whose chain of names from the checked
// file is chain, with onPath the files on that chain. It returns the chain
// extended up to the first process met twice, or nil when there is none.
func (c *cycles) follow(file string, chain []string, onPath map[string]bool) []string {
	if c.clean[file] {
		return nil
	}
	for _, child := range childrenOf(c.env, file) {
		next := append(chain[:len(chain):len(chain)], child.name)
		if onPath[child.file] {
			return next
		}
		onPath[child.file] = true
		found := c.follow(child.file, next, onPath)
		delete(onPath, child.file)
		if found != nil {
			return found
		}
	}
	c.clean[file] = true
	return nil
}

// child is a child process a file starts: its name and its file.
type child struct {
	name, file string
}

// childrenOf returns the child processes the process file starts, found by
// name, once per invocation. A file cairn cannot read yet (a card), or cannot
// read or parse, starts none as far as checking can tell.
func childrenOf(env *Env, file string) []child {
	return lookupOnce(env, "process-children:"+file, func() []child {
		format, _ := parse.FormatOf(file)
		if format != ir.TOML && format != ir.HCL {
			return nil
		}
		root := ""
		if env.Repo != nil {
			root = env.Repo.Root
		}
		src, err := source.ReadFile(file, root)
		if err != nil {
			return nil
		}
		read := parse.TOML
		if format == ir.HCL {
			read = parse.HCL
		}
		p, _ := read(file, src)
		if p == nil {
			return nil
		}
		var out []child
		for _, f := range childFields(p) {
			if found := findByName(env, f.Value); found.diag == nil {
				out = append(out, child{name: f.Value, file: absPath(env.Dir, found.file)})
			}
		}
		return out
	})
}

// childFields returns the process and spec_process values of p's
// run-published-issue actions that name a process, in source order.
func childFields(p *ir.Process) []ir.Field[string] {
	var out []ir.Field[string]
	for i := range p.Steps {
		for _, a := range p.Steps[i].Actions {
			if a.Kind != ir.Catalogue || a.Keys().Catalogue.Value != ir.RunPublishedIssue {
				continue
			}
			for _, f := range []ir.Field[string]{a.Keys().Process, a.Keys().SpecProcess} {
				if f.Set && !f.Bad && f.Value != "" {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// absPath is file, taken relative to dir (Env.Dir), made absolute, so that
// one file has one name however it was reached.
func absPath(dir, file string) string {
	if abs, err := workdir.Abs(dir, file); err == nil {
		return abs
	}
	return file
}
