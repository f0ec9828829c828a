package skills

import (
	"strings"
	"testing"
)

func TestBuiltin(t *testing.T) {
	names := Names()
	if strings.Join(names, ",") != "bug-hunt,repair" {
		t.Fatalf("Names() = %q", names)
	}
	for _, name := range names {
		b, ok := Get(name)
		if !ok {
			t.Fatalf("Get(%q) missing", name)
		}
		s := string(b)
		if !strings.HasPrefix(s, "---\nname: "+name+"\ndescription: ") || !strings.Contains(s[4:], "\n---\n") {
			t.Errorf("Get(%q) has no front matter with its name and a description", name)
		}
	}
	for _, name := range []string{"../skills/repair", "./repair", "nope", ""} {
		if _, ok := Get(name); ok {
			t.Errorf("Get(%q) found", name)
		}
	}
}
