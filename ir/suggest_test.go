package ir

import "testing"

func TestSuggest(t *testing.T) {
	stepKeys := []string{"name", "description", "skill", "prompt", "command", "catalogue", "harness", "model", "effort", "max_turns", "worktree", "parallel", "optional", "timeout", "env", "process", "spec_process", "precheck", "validate"}
	for _, tc := range []struct {
		name       string
		candidates []string
		want       string
	}{
		{"commnd", stepKeys, "command"},
		{"comand", stepKeys, "command"},
		{"hanress", stepKeys, "harness"},
		{"max-turns", stepKeys, "max_turns"},
		{"maxturns", stepKeys, "max_turns"},
		{"modle", stepKeys, "model"},
		{"Name", stepKeys, "name"},
		{"NAME", stepKeys, "name"},
		{"descripton", stepKeys, "description"},
		{"worktrees", stepKeys, "worktree"},
		{"validation", stepKeys, "validate"},
		{"pre_check", stepKeys, "precheck"},
		{"specprocess", stepKeys, "spec_process"},
		{"timout", stepKeys, "timeout"},
		{"verison", []string{"version", "description"}, "version"},
		{"claud", []string{"claude", "codex", "gemini", "opencode"}, "claude"},
		{"gemni", []string{"claude", "codex", "gemini", "opencode"}, "gemini"},
		{"open-code", []string{"claude", "codex", "gemini", "opencode"}, "opencode"},
		{"throwawy", []string{"throwaway", "issue-branch", "checkout"}, "throwaway"},
		{"ünknown", []string{"unknown"}, "unknown"},
		// Too far to be a typo.
		{"script", stepKeys, ""},
		{"shell", stepKeys, ""},
		{"x", []string{"y", "env"}, ""},
		{"ab", []string{"cd"}, ""},
		{"foo", stepKeys, ""},
		{"", stepKeys, ""},
		{"name", nil, ""},
		// Ties go to the first candidate.
		{"cat", []string{"bat", "hat"}, "bat"},
		{"cat", []string{"hat", "bat"}, "hat"},
		// A closer candidate wins over an earlier one.
		{"effrt", []string{"offer", "effort"}, "effort"},
	} {
		if got := Suggest(tc.name, tc.candidates); got != tc.want {
			t.Errorf("Suggest(%q) = %q; want %q", tc.name, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "abc", 0},
		{"abc", "acb", 1},
		{"ca", "abc", 3},
		{"kitten", "sitting", 3},
		{"", "abc", 3},
		{"héllo", "hello", 1},
	} {
		if got := distance([]rune(tc.a), []rune(tc.b), 100); got != tc.want {
			t.Errorf("distance(%q, %q) = %d; want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
