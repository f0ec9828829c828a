// Package skills holds cairn's skills: the built-in ones, which codegen and
// the runtime write into a worktree, and finding the skill a session step
// names in the repository, $CAIRN_HOME or among the built-in ones (docs/design.md §5).
package skills

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

// builtin holds the skills built into cairn, one folder per skill, each with
// its SKILL.md. A step names one as "cairn-NAME".
//
//go:embed */SKILL.md
var builtin embed.FS

// Get returns the SKILL.md of the built-in skill name, and false when
// cairn has no skill of that name.
func Get(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, `/\.`) {
		return nil, false
	}
	b, err := builtin.ReadFile(name + "/SKILL.md")
	if err != nil {
		return nil, false
	}
	return b, true
}

// Names returns the names of the built-in skills, sorted.
func Names() []string {
	entries, err := fs.ReadDir(builtin, ".")
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
