package harness

import (
	"slices"
	"testing"
)

// TestKeyVariablesHoldEveryKey holds KeyVariables to the keys cairn gives
// the built-in CLIs (Keys, for every model it names keys for): a key a
// session is given is one no shell sees.
func TestKeyVariablesHoldEveryKey(t *testing.T) {
	r := NewRegistry(nil)
	models := []string{""}
	for provider := range opencodeKeys {
		models = append(models, provider+"/model")
	}
	for _, name := range r.Names() {
		h, _ := r.Lookup(name)
		for _, m := range models {
			for _, k := range h.Keys(m) {
				if !slices.Contains(KeyVariables, k.Env) {
					t.Errorf("harness %q, model %q: key %s is not in KeyVariables", name, m, k.Env)
				}
			}
		}
	}
	for i, v := range KeyVariables {
		if slices.Contains(KeyVariables[:i], v) {
			t.Errorf("KeyVariables holds %s twice", v)
		}
	}
}
