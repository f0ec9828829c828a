package codegen

import (
	"regexp"
	"slices"
	"testing"
)

// TestTargets walks the registry of compile targets: names unique and
// kebab-case, the default among them, an unknown name found by none.
func TestTargets(t *testing.T) {
	names := TargetNames()
	kebab := regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	for i, n := range names {
		if !kebab.MatchString(n) {
			t.Errorf("target %q is not kebab-case", n)
		}
		if slices.Contains(names[:i], n) {
			t.Errorf("target %q is registered twice", n)
		}
		tg, ok := LookupTarget(n)
		if !ok || tg.Name() != n {
			t.Errorf("LookupTarget(%q) = %v, %v", n, tg, ok)
		}
	}
	if _, ok := LookupTarget("bash"); !ok {
		t.Error("the default target \"bash\" is not registered")
	}
	if tg, ok := LookupTarget("gha"); ok {
		t.Errorf("LookupTarget(%q) found %q", "gha", tg.Name())
	}
}
