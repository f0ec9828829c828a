package ir

import "testing"

func TestTierOf(t *testing.T) {
	for _, tc := range []struct {
		model, tier string
		ok          bool
	}{
		{"efficient", "efficient", true},
		{"balanced", "balanced", true},
		{"strong", "strong", true},
		{"strongest", "strongest", true},
		{"haiku", "efficient", true},
		{"sonnet", "balanced", true},
		{"opus", "strong", true},
		{"fable", "strongest", true},
		{"gpt-5-codex", "", false},
		{"claude-opus-4-1", "", false},
		{"", "", false},
	} {
		if tier, ok := TierOf(tc.model); tier != tc.tier || ok != tc.ok {
			t.Errorf("TierOf(%q) = %q, %v; want %q, %v", tc.model, tier, ok, tc.tier, tc.ok)
		}
	}
}

func TestAccessLevel(t *testing.T) {
	for _, tc := range []struct {
		access string
		level  int
	}{
		{AccessRead, 0},
		{AccessWrite, 1},
		{AccessFull, 2},
		{"", -1},
		{"Read", -1},
		{"rwx", -1},
	} {
		if got := AccessLevel(tc.access); got != tc.level {
			t.Errorf("AccessLevel(%q) = %d; want %d", tc.access, got, tc.level)
		}
	}
	if AccessLevel(JudgeAccess) >= AccessLevel(DefaultAccess) {
		t.Errorf("a judge's access %q is not below a session's %q", JudgeAccess, DefaultAccess)
	}
}
