package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// promptsDoc is the page generated from the prompt templates.
var promptsDoc = filepath.Join("..", "..", "docs", "prompts.md")

// TestPromptsDoc fails when docs/prompts.md drifts from the templates;
// UPDATE_GOLDEN=1 rewrites it.
func TestPromptsDoc(t *testing.T) {
	got, err := promptsMarkdown()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(promptsDoc, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(promptsDoc)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 go test ./step/prompts writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the templates (UPDATE_GOLDEN=1 go test ./step/prompts rewrites it)\n--- got\n%s", promptsDoc, got)
	}
}

func TestSessionPrompt(t *testing.T) {
	base := SessionData{
		Process:      "hunt",
		Step:         "judge",
		WorktreeKind: "throwaway",
		WorktreePath: "/wt/judge",
		ResultFile:   "/run/results/judge.md",
	}
	with := func(f func(d *SessionData)) SessionData {
		d := base
		f(&d)
		return d
	}
	for _, tc := range []struct {
		name    string
		data    SessionData
		has     []string
		hasNot  []string
		wantErr string
	}{
		{
			name: "inline prompt in a throwaway worktree",
			data: with(func(d *SessionData) { d.Prompt = "\nJudge the reports.\n\n" }),
			has: []string{
				"step `judge` of the cairn process `hunt`",
				"Your working directory is `/wt/judge`, a throwaway git worktree",
				"are discarded, saved only as a patch in the run's records",
				"## Your task\n\nJudge the reports.\n\n## Your final message",
				"saves it as `/run/results/judge.md`",
				"final message is this step's result",
			},
			hasNot: []string{"skill", "## The issue", "<directive>", "## Results of the earlier steps", "the user's own checkout of"},
		},
		{
			name: "skill in the user's checkout",
			data: with(func(d *SessionData) {
				d.Skill, d.SkillPath = "bug-hunt", "/repo/.agents/skills/bug-hunt/SKILL.md"
				d.WorktreeKind, d.WorktreePath = "checkout", "/repo"
			}),
			has: []string{
				"Read the skill file `/repo/.agents/skills/bug-hunt/SKILL.md` (skill `bug-hunt`) and follow it",
				"`/repo`, the user's own checkout of the repository",
				"never discard",
			},
			hasNot: []string{"throwaway", "patch"},
		},
		{
			name: "skill and prompt on an issue branch",
			data: with(func(d *SessionData) {
				d.SkillPath, d.Prompt = "/wt/.cairn/skills/fix/SKILL.md", "Only the parser."
				d.WorktreeKind = "issue-branch"
			}),
			has: []string{
				"Read the skill file `/wt/.cairn/skills/fix/SKILL.md` and follow it: it is your task.\n\nOnly the parser.\n",
				"on the issue's branch",
			},
		},
		{
			name: "issue, directive and earlier results",
			data: with(func(d *SessionData) {
				d.Prompt = "Judge."
				d.IssueURL, d.IssueFile = "https://github.com/o/r/issues/7", "/wt/judge/.cairn-issue.md"
				d.Directive = "  Focus on parse/.\n"
				d.Earlier = []EarlierResult{{"hunt-claude", "/run/results/hunt-claude.md"}, {"hunt-codex", "/run/results/hunt-codex.md"}}
			}),
			has: []string{
				"This run works on the issue https://github.com/o/r/issues/7. Read `/wt/judge/.cairn-issue.md` first",
				"Read the ones your task needs:\n\n- `hunt-claude`: `/run/results/hunt-claude.md`\n- `hunt-codex`: `/run/results/hunt-codex.md`\n\n## Your task",
				"<directive>\nFocus on parse/.\n</directive>\n\n## Your final message",
			},
		},
		{
			name: "issue file without a URL",
			data: with(func(d *SessionData) { d.Prompt, d.IssueFile = "Go.", "/wt/.cairn-issue.md" }),
			has:  []string{"This run works on an issue. Read `/wt/.cairn-issue.md` first"},
		},
		{
			name:    "neither skill nor prompt",
			data:    with(func(d *SessionData) { d.Prompt = " \n" }),
			wantErr: `session step "judge" has neither a skill nor a prompt`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SessionPrompt(tc.data)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("SessionPrompt() error = %v; want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.has {
				if !strings.Contains(got, s) {
					t.Errorf("prompt lacks %q:\n%s", s, got)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(got, s) {
					t.Errorf("prompt has %q:\n%s", s, got)
				}
			}
			if strings.Contains(got, "\n\n\n") || !strings.HasSuffix(got, ".\n") || strings.Contains(got, " \n") {
				t.Errorf("prompt has a stray blank line or space:\n%s", got)
			}
		})
	}
}
