package ir

import (
	"fmt"
	"strings"
)

// DidYouMean returns ` (did you mean "x"?)` for the candidate Suggest finds
// closest to name, or "" when none is close: the tail of a refusal.
func DidYouMean(name string, candidates []string) string {
	return Meant(Suggest(name, candidates))
}

// Meant returns ` (did you mean "s"?)`, or "" when s is empty: the tail of
// a refusal whose rule found the suggestion s itself, to offer it as a fix
// too.
func Meant(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", s)
}

// OneOf spells a list of allowed values for a message: "a, b or c".
func OneOf(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// MaxNameLength is the longest a name may be: names become parts of file
// and branch names (a run folder, a worktree, a result file), which file
// systems cap at 255 bytes with the rest of the name.
const MaxNameLength = 100

// ValidName reports whether name matches [a-z0-9][a-z0-9-]*, the pattern of
// the names of processes, steps, worktrees, groups and harnesses (docs/design.md §4), and
// is at most MaxNameLength long.
func ValidName(name string) bool {
	if name == "" || name[0] == '-' || len(name) > MaxNameLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
