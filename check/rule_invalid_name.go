package check

import (
	"fmt"
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
			pass.Report(ir.FileStart(p.File), "process name %q (the file's name) does not match [a-z0-9][a-z0-9-]*; rename the file%s", p.Name, nameHint(p.Name))
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
				pass.Report(r, "invalid worktree name %q; names match [a-z0-9][a-z0-9-]*%s", w.Name, nameHint(w.Name))
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
				pass.Report(valueRange(n), "invalid step name %q; names match [a-z0-9][a-z0-9-]*%s", n.Value, nameHint(n.Value))
			}
			switch g := s.Keys().Parallel; {
			case !g.Set || g.Bad:
			case tooLong(g.Value):
				pass.Report(valueRange(g), "parallel group name %s is %d characters long; names are at most %d", shortName(g.Value), len(g.Value), ir.MaxNameLength)
			case !ir.ValidName(g.Value):
				pass.Report(valueRange(g), "invalid parallel group name %q; names match [a-z0-9][a-z0-9-]*%s", g.Value, nameHint(g.Value))
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

// nameHint suggests a valid spelling of an invalid name: lower case, with a
// dash for each run of other characters.
func nameHint(name string) string {
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
	return fmt.Sprintf(" (did you mean %q?)", s)
}
