package ir

import (
	"regexp"
	"testing"
)

// TestPatterns holds the patterns the schemas carry to the functions the
// rules check with.
func TestPatterns(t *testing.T) {
	duration := regexp.MustCompile(DurationPattern)
	for _, s := range []string{"90s", "45m", "1h30m", "30d", "12w", "1w2d3h4m5s", "", "5", "m", "1m1h", "1x", "5 minutes", "1234567890s", "1h1h"} {
		_, err := ParseDuration(s)
		if got := s != "" && duration.MatchString(s); got != (err == nil) {
			t.Errorf("duration %q: pattern %v, ParseDuration %v", s, got, err)
		}
	}
	name := regexp.MustCompile(NamePattern)
	for _, s := range []string{"a", "hunt-claude", "0x", "-a", "A", "a_b", ""} {
		if got := name.MatchString(s); got != ValidName(s) {
			t.Errorf("name %q: pattern %v, ValidName %v", s, got, ValidName(s))
		}
	}
}

func TestKeyTables(t *testing.T) {
	keys := []Key{{Name: "a"}, {Name: "t", Type: KeyTable, Keys: []Key{{Name: "b"}}}}
	if got := KeyNames(keys); len(got) != 2 || got[1] != "t" {
		t.Errorf("KeyNames: %q", got)
	}
	if got := SubKeys(keys, "t"); len(got) != 1 || got[0].Name != "b" {
		t.Errorf("SubKeys: %+v", got)
	}
	if SubKeys(keys, "x") != nil {
		t.Error("SubKeys of no key")
	}
	if !KeyTableMap.HasKeys() || KeyStringMap.HasKeys() {
		t.Error("HasKeys")
	}
}
