package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// RuleInvalidName is the ID of the rule about the shape of names.
const RuleInvalidName = "invalid-name"

// ruleInvalidName refuses process, step, worktree and group names that do not
// match [a-z0-9][a-z0-9-]* or are longer than ir.MaxNameLength, and a TOML
// or HCL step with no name.
var ruleInvalidName = &Rule{
	ID:       RuleInvalidName,
	Doc:      "a name that does not match [a-z0-9][a-z0-9-]*, or is longer than 100 characters",
	Severity: ir.Error,
	Lint:     true,
	Run: func(pass *Pass) {
		p := pass.Process
		switch {
		case tooLong(p.Name):
			pass.Report(ir.FileStart(p.File), "process name %s (the file's name) is %d characters long; names are at most %d, rename the file", shortName(p.Name), len(p.Name), ir.MaxNameLength)
		case !ir.ValidName(p.Name):
			pass.Report(ir.FileStart(p.File), "process name %q (the file's name) does not match [a-z0-9][a-z0-9-]*; rename the file%s", p.Name, ir.Meant(validName(p.Name)))
		}
		for _, w := range p.Worktrees {
			r := w.NameRange
			if !r.IsValid() {
				r = w.Header
			}
			switch {
			case tooLong(w.Name):
				pass.Report(r, "worktree name %s is %d characters long; names are at most %d", shortName(w.Name), len(w.Name), ir.MaxNameLength)
			case !ir.ValidName(w.Name):
				valid := validName(w.Name)
				pass.ReportFixes(r, renameWorktree(p, w, valid), "invalid worktree name %q; names match [a-z0-9][a-z0-9-]*%s", w.Name, ir.Meant(valid))
			}
		}
		key := "name"
		if p.Format == ir.Card {
			key = "id"
		}
		for i := range p.Steps {
			s := &p.Steps[i]
			switch n := s.Name; {
			case !n.Set:
				pass.Report(s.Header, "step has no %q; every step needs one, such as \"build\"", key)
			case n.Bad:
			case tooLong(n.Value):
				pass.Report(valueRange(n), "step name %s is %d characters long; names are at most %d", shortName(n.Value), len(n.Value), ir.MaxNameLength)
			case !ir.ValidName(n.Value):
				valid := validName(n.Value)
				var fixes []ir.Fix
				if !slices.ContainsFunc(p.Steps, func(o ir.Step) bool { return o.Name.Value == valid }) {
					fixes = pass.change(n, valid)
				}
				pass.ReportFixes(valueRange(n), fixes, "invalid step name %q; names match [a-z0-9][a-z0-9-]*%s", n.Value, ir.Meant(valid))
			}
			switch g := s.Keys().Parallel; {
			case !g.Set || g.Bad:
			case tooLong(g.Value):
				pass.Report(valueRange(g), "parallel group name %s is %d characters long; names are at most %d", shortName(g.Value), len(g.Value), ir.MaxNameLength)
			case !ir.ValidName(g.Value):
				valid := validName(g.Value)
				pass.ReportFixes(valueRange(g), renameGroup(p, g.Value, valid), "invalid parallel group name %q; names match [a-z0-9][a-z0-9-]*%s", g.Value, ir.Meant(valid))
			}
		}
	},
}

// tooLong reports whether name is longer than a name may be.
func tooLong(name string) bool { return len(name) > ir.MaxNameLength }

// shortName quotes a long name's first 40 characters, for a message.
func shortName(name string) string {
	if r := []rune(name); len(r) > 40 {
		return fmt.Sprintf("%q…", string(r[:40]))
	}
	return fmt.Sprintf("%q", name)
}

// validName is a valid spelling of an invalid name: lower case, with a
// dash for each run of other characters; "" when there is none.
func validName(name string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(name) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
		} else {
			dash = true
		}
	}
	s := b.String()
	if s == "" || s == name || !ir.ValidName(s) {
		return ""
	}
	return s
}

// renameWorktree is the fix that renames worktree w to name where it is
// declared and wherever the process names it (default_worktree, each
// step's worktree); nil when any of them cannot be changed in place.
func renameWorktree(p *ir.Process, w ir.Worktree, name string) []ir.Fix {
	e, ok := ir.ChangeEdit(p.Source, w.NameRange, w.Name, name)
	if !ok || declared(p, name) != nil {
		return nil
	}
	edits := []ir.Edit{e}
	refs := []ir.Field[string]{p.DefaultWorktree}
	for i := range p.Steps {
		refs = append(refs, p.Steps[i].Keys().Worktree)
	}
	for _, f := range refs {
		if !f.Set || f.Bad || f.Value != w.Name {
			continue
		}
		e, ok := ir.ChangeEdit(p.Source, valueRange(f), f.Value, name)
		if !ok {
			return nil
		}
		edits = append(edits, e)
	}
	return []ir.Fix{{Message: fmt.Sprintf("rename worktree %q to %q", w.Name, name), Edits: edits}}
}

// renameGroup is the fix that renames the parallel group group to name in
// every step of it, so that it stays one group; nil when any of them
// cannot be changed in place, or a group of that name exists (the two would
// become one).
func renameGroup(p *ir.Process, group, name string) []ir.Fix {
	var edits []ir.Edit
	for i := range p.Steps {
		f := p.Steps[i].Keys().Parallel
		if f.Set && f.Value == name {
			return nil
		}
		if !f.Set || f.Bad || f.Value != group {
			continue
		}
		e, ok := ir.ChangeEdit(p.Source, valueRange(f), f.Value, name)
		if !ok {
			return nil
		}
		edits = append(edits, e)
	}
	if len(edits) == 0 {
		return nil
	}
	return []ir.Fix{{Message: fmt.Sprintf("rename parallel group %q to %q", group, name), Edits: edits}}
}
