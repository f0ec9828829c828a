package templates

import (
	"strings"
	"testing"
)

func TestBuiltinSkills(t *testing.T) {
	names := SkillNames()
	if strings.Join(names, ",") != "bug-hunt,repair" {
		t.Fatalf("SkillNames() = %q", names)
	}
	for _, name := range names {
		b, ok := Skill(name)
		if !ok {
			t.Fatalf("Skill(%q) missing", name)
		}
		s := string(b)
		if !strings.HasPrefix(s, "---\nname: "+name+"\ndescription: ") || !strings.Contains(s[4:], "\n---\n") {
			t.Errorf("Skill(%q) has no front matter with its name and a description", name)
		}
	}
	for _, name := range []string{"../skills/repair", "nope", ""} {
		if _, ok := Skill(name); ok {
			t.Errorf("Skill(%q) found", name)
		}
	}
}
