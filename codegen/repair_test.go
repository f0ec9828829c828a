package codegen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/step/prompts"
)

// TestRepairPrompt composes repair prompts from the parts the script holds,
// as bash/repair.sh.tmpl does, and holds them to prompts.RepairPrompt's:
// for failing checks of every kind (with or without a workflow, a
// description, a link; with no log, a log gh could not give, a log, a cut
// log with backticks), one after another, and for conflicted paths; with
// and without the issue's file.
func TestRepairPrompt(t *testing.T) {
	t.Parallel()
	r := &scriptRepair{Cap: 3}
	base := prompts.RepairData{Process: "fix-issue", Rounds: 3, Skill: "cairn-repair", Limit: prompts.CheckLogLimit}
	if err := r.prompts(base); err != nil {
		t.Fatal(err)
	}
	vals := map[string]string{
		varStep: "deliver", varPullRequest: "https://github.com/acme/widgets/pull/8", varBranch: "cairn/7-crash",
		varBase: "main", varRound: "2", varWorktree: "/w/fix", varSkill: "/w/fix/.cairn/skills/cairn-repair/SKILL.md",
		varIssueURL: "https://github.com/acme/widgets/issues/7",
	}
	expand := func(w BashWord) string {
		var b strings.Builder
		for _, p := range w {
			if p.Var == "" {
				b.WriteString(p.Text)
				continue
			}
			v, ok := vals[p.Var]
			if !ok {
				t.Fatalf("the prompt's parts read $%s, which the script does not set there", p.Var)
			}
			b.WriteString(v)
		}
		return b.String()
	}
	var checks []prompts.FailingCheck
	for row := range 8 {
		for col := range 4 {
			c := prompts.FailingCheck{Name: fmt.Sprintf("test %d.%d", row, col)}
			if row&4 != 0 {
				c.Workflow = "CI"
			}
			if row&2 != 0 {
				c.Description = "Some checks were not successful"
			}
			if row&1 != 0 {
				c.Link = "https://github.com/acme/widgets/actions/runs/1/job/2"
			}
			switch col {
			case 1:
				c.LogError = "gh run view: HTTP 404"
			case 2, 3:
				c.Log, c.Cut = "--- FAIL: TestMain\n    main_test.go:3: want ```fixed```\n", col == 3
			}
			checks = append(checks, c)
		}
	}
	paths := []string{"main.go", "docs/a b.md"}
	for _, issueFile := range []string{"", "/w/fix/.cairn-issue.md"} {
		d := base
		d.Step, d.PullRequest, d.Branch, d.Base, d.Round = vals[varStep], vals[varPullRequest], vals[varBranch], vals[varBase], 2
		d.WorktreePath, d.SkillPath, d.IssueURL, d.IssueFile = vals[varWorktree], vals[varSkill], vals[varIssueURL], issueFile
		vals[varIssueFile] = issueFile
		for _, mode := range []string{"checks", "conflicts"} {
			parts, dd := r.Checks, d
			var list string
			if mode == "checks" {
				dd.Checks = checks
				for _, c := range checks {
					vals[varCheckName], vals[varCheckFlow], vals[varCheckDesc], vals[varCheckLink] = c.Name, c.Workflow, c.Description, c.Link
					vals[varCheckLog], vals[varCheckLogErr] = strings.TrimRight(c.Log, "\n"), c.LogError
					vals[varCheckFence] = "```"
					if c.Log != "" {
						vals[varCheckFence] = "````"
					}
					row, col := 0, 0
					if c.Workflow != "" {
						row += 4
					}
					if c.Description != "" {
						row += 2
					}
					if c.Link != "" {
						row++
					}
					switch {
					case c.Log != "" && c.Cut:
						col = 3
					case c.Log != "":
						col = 2
					case c.LogError != "":
						col = 1
					}
					list += expand(r.Check.Head) + expand(r.Check.Rows[row]) + expand(r.Check.Cols[col]) + expand(r.Check.Tail)
				}
			} else {
				parts, dd.Conflicts = r.Conflicts, paths
				for _, p := range paths {
					vals[varConflictPath] = p
					list += expand(r.Conflict)
				}
			}
			got := expand(parts.Intro)
			if issueFile != "" {
				got += expand(r.IssueFile)
			}
			got += expand(parts.Head) + list + expand(parts.Tail)
			want, err := prompts.RepairPrompt(dd)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s, issue file %q: composed\n%s\nwant\n%s", mode, issueFile, got, want)
			}
		}
	}
}
