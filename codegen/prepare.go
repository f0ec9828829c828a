package codegen

import (
	"fmt"
	"slices"
	"time"

	"github.com/cairn-dev/cairn/internal/glob"
	"github.com/cairn-dev/cairn/ir"
)

// scriptCopy is one glob of a worktree's copy as the script holds it: the
// worktree's index, the glob as written, where it came from, and, for a
// glob of the process file, the regular expression bash matches paths
// with (glob.Regexp); a .worktreeinclude pattern is git's to match.
type scriptCopy struct {
	Worktree int
	Glob     string
	Source   string
	Regexp   string
}

// prepares reports whether a worktree of s is readied before its first
// step: files copied into it, or a setup run in it (feature prepare).
func (s *script) prepares() bool {
	return slices.ContainsFunc(s.Worktrees, func(w ir.PlanWorktree) bool { return len(w.Copy) > 0 || w.Setup != "" })
}

// Copies are the globs of every worktree's copy, by worktree in order.
func (s *script) Copies() ([]scriptCopy, error) {
	var out []scriptCopy
	for i, w := range s.Worktrees {
		for _, c := range w.Copy {
			sc := scriptCopy{Worktree: i, Glob: c.Glob, Source: c.Source}
			if c.Source == ir.CopyFromFile {
				re, err := glob.Regexp(c.Glob)
				if err != nil {
					return nil, fmt.Errorf("worktree %q: copy %q: %v", w.Name, c.Glob, err)
				}
				sc.Regexp = re
			}
			out = append(out, sc)
		}
	}
	return out, nil
}

// SetupSeconds are the worktrees' setup timeouts in whole seconds, rounded
// up; 0 for a worktree without setup.
func (s *script) SetupSeconds() []int64 {
	out := make([]int64, len(s.Worktrees))
	for i, w := range s.Worktrees {
		if w.Setup == "" {
			continue
		}
		d, err := ir.ParseDuration(w.SetupTimeout)
		if err != nil {
			d, _ = ir.ParseDuration(ir.DefaultSetupTimeout)
		}
		out[i] = max(int64((d+time.Second-1)/time.Second), 1)
	}
	return out
}

// worktrees are the plan's worktrees as the target carries them: without
// their copy where the target copies nothing (targetInfo.copies).
func (c *compiler) worktrees() []ir.PlanWorktree {
	if c.target.copies {
		return c.plan.Worktrees
	}
	ws := slices.Clone(c.plan.Worktrees)
	for i := range ws {
		ws[i].Copy = nil
	}
	return ws
}

// uncopied warns of each worktree whose copy a target that copies nothing
// leaves out: a runner's checkout has no untracked files to copy. It points
// at the worktree's copy, or at the file's start when the repository's
// .worktreeinclude alone gives it one.
func (c *compiler) uncopied() []ir.Diagnostic {
	if c.target.copies {
		return nil
	}
	var diags []ir.Diagnostic
	for _, w := range c.plan.Worktrees {
		if len(w.Copy) == 0 {
			continue
		}
		r := c.at.file()
		if iw := c.at.worktrees[w.Name]; iw != nil && iw.Copy.Set {
			r = or(iw.Copy.At(), r)
		}
		diags = append(diags, ir.Diagnostic{
			Rule: ir.RuleNotCompilable, Severity: ir.Warning, Range: r,
			Message: fmt.Sprintf("worktree %q: copy is not compiled to %s: a runner's checkout has no untracked files to copy", w.Name, c.target.name),
		})
	}
	return diags
}
