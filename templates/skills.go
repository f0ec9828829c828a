package templates

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

// skills holds the skills built into cairn, one folder per skill, each with
// its SKILL.md. A step names one as "cairn-NAME".
//
//go:embed skills/*/SKILL.md
var skills embed.FS

// Skill returns the SKILL.md of the built-in skill name, and false when
// cairn has no skill of that name.
func Skill(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, `/\.`) {
		return nil, false
	}
	b, err := skills.ReadFile("skills/" + name + "/SKILL.md")
	if err != nil {
		return nil, false
	}
	return b, true
}

// SkillNames returns the names of the built-in skills, sorted.
func SkillNames() []string {
	entries, err := fs.ReadDir(skills, "skills")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}
