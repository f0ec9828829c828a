package proc

import "strings"

// MergeEnv returns base, the names in drop removed, with each NAME=VALUE
// of set applied in order (replacing the variable where base has it, else
// appended): each name once, a later value replacing an earlier one in
// place, entries without a name left out.
func MergeEnv(base, set, drop []string) []string {
	out := make([]string, 0, len(base)+len(set))
	at := make(map[string]int, len(base)+len(set))
	dropped := make(map[string]bool, len(drop))
	for _, d := range drop {
		dropped[d] = true
	}
	put := func(kv string, drop bool) {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || drop && dropped[name] {
			return
		}
		if i, ok := at[name]; ok {
			out[i] = kv
			return
		}
		at[name] = len(out)
		out = append(out, kv)
	}
	for _, kv := range base {
		put(kv, true)
	}
	for _, kv := range set {
		put(kv, false)
	}
	return out
}

// Getenv is the value of the last NAME=VALUE in env named name, as the
// process started with env reads it; empty when env has none.
func Getenv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}
