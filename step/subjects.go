package step

import "fmt"

// The subjects of the commits a commit-mode run makes (docs/design.md
// §7.6), and its refusal of a repository with no git identity: the
// runtime's and a compiled script's, one wording for both.

// NoIdentity is why a commit-mode run refuses the repository at repo: git
// has no identity to commit as there, as why (git's error) says.
func NoIdentity(repo, why string) string {
	return fmt.Sprintf("commit mode commits each step, and git has no identity to commit as in %s (%s); set one with `git config user.name \"Your Name\"` and `git config user.email you@example.com` (add --global for every repository)", repo, why)
}

// StartSubject is the subject of the commit that starts a run of process,
// before its first step that does something other than skip.
func StartSubject(process string) string { return "Start process: " + process }

// SaveWorkSubject is the subject of the commit of what step left
// uncommitted.
func SaveWorkSubject(step string) string { return "[cairn] Save work of step: " + step }

// CompleteStepSubject is the subject of the commit after step ended with
// outcome (record.Outcome): EndSuffix words one other than succeeded.
func CompleteStepSubject(step, outcome string) string {
	return "[cairn] Complete step: " + step + EndSuffix(outcome)
}

// CompleteProcessSubject is the subject of the commit that ends a run of
// process with status (record.Status): EndSuffix words one other than
// succeeded.
func CompleteProcessSubject(process, status string) string {
	return "Complete process: " + process + EndSuffix(status)
}

// EndSuffix is what a completing commit's subject ends with for a step's
// outcome or a run's status: nothing when it succeeded, else " (OUTCOME)".
func EndSuffix(outcome string) string {
	if outcome == "" || outcome == "succeeded" {
		return ""
	}
	return " (" + outcome + ")"
}
