package check

import (
	"errors"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/skills"
)

// The IDs of the rules about a session step's skill.
const (
	RuleSkillNotFound = "skill-not-found"
	RuleSkillEscapes  = "skill-escapes"
)

// ruleSkillNotFound refuses a skill FindSkill finds nowhere; the message
// lists every place it looked, in order.
var ruleSkillNotFound = &Rule{
	ID:       RuleSkillNotFound,
	Doc:      "a skill found nowhere (the message lists where it looked)",
	Severity: ir.Error,
	Run: func(pass *Pass) {
		forEachSkill(pass.Process, func(f ir.Field[string]) {
			if _, err := FindSkill(pass.ctx, pass.Env, f.Value); errors.Is(err, skills.ErrSkillNotFound) {
				pass.ReportFixes(valueRange(f), pass.change(f, skills.Suggestion(err)), "%v", err)
			}
		})
	},
}

// ruleSkillEscapes refuses a committed skill whose SKILL.md, or a folder on
// its way, is a symlink that leads outside the repository.
var ruleSkillEscapes = &Rule{
	ID:       RuleSkillEscapes,
	Doc:      "a skill that resolves outside its repository",
	Severity: ir.Error,
	Run: func(pass *Pass) {
		forEachSkill(pass.Process, func(f ir.Field[string]) {
			if _, err := FindSkill(pass.ctx, pass.Env, f.Value); errors.Is(err, skills.ErrSkillEscapes) {
				pass.Report(valueRange(f), "%v", err)
			}
		})
	},
}

// forEachSkill calls fn with the skill of every session action of p that
// names one, in source order.
func forEachSkill(p *ir.Process, fn func(ir.Field[string])) {
	for i := range p.Steps {
		for _, a := range p.Steps[i].Actions {
			if a.Kind == ir.Session && a.Keys().Skill.Set && !a.Keys().Skill.Bad {
				fn(a.Keys().Skill)
			}
		}
	}
}
