package ir

// KeyType is the kind of value a key of a file cairn reads holds.
type KeyType string

// The kinds of values a key holds.
const (
	KeyString  KeyType = "string"
	KeyInt     KeyType = "integer"
	KeyNumber  KeyType = "number"
	KeyBool    KeyType = "boolean"
	KeyStrings KeyType = "strings"
	// KeyStringMap is a table of strings under names the user picks: a
	// step's env.
	KeyStringMap KeyType = "string-map"
	// KeyTable is a table of the key's Keys.
	KeyTable KeyType = "table"
	// KeyTables is an array of tables of the key's Keys: [[steps]].
	KeyTables KeyType = "tables"
	// KeyTableMap is a table whose every value is a table of the key's
	// Keys, under names the user picks: [worktrees.NAME].
	KeyTableMap KeyType = "table-map"
	// KeyJSON is a JSON value written as a table: an inline JSON Schema.
	KeyJSON KeyType = "json"
)

// The open sets of names a key's value, or the names of a map, come from:
// what a language server completes and a schema can only suggest.
const (
	NamesWorktree = "worktree" // the worktrees the file declares
	NamesSkill    = "skill"    // the skills lookup finds
	NamesHarness  = "harness"  // the built-in harnesses and the config's
	NamesModel    = "model"    // a tier, or a harness's model name
	NamesProcess  = "process"  // the processes lookup finds
	NamesStep     = "step"     // the steps of the process (a test file's: of the process it runs)
)

// Bound is the least value a number may take; Exclusive when the value
// itself is refused.
type Bound struct {
	Value     float64
	Exclusive bool
}

// Key is one key of a file cairn reads: its name, the value it holds and
// what it is for. Each front-end keeps its keys in one table of Keys, which
// decides the keys it refuses as unknown and from which the JSON Schemas
// and the language server's hovers and completions are made, so none of
// them can drift from what the front-end reads.
type Key struct {
	Name string
	// Doc says what the key is for, in one or two sentences.
	Doc  string
	Type KeyType
	// Or is a second type the key may hold: a test file's stubs is a
	// file's name or the stub tables.
	Or KeyType
	// Values are the values a string (or each item of strings, or each
	// value of a string map) may take; with Names set, the values offered
	// before the names of that set.
	Values []string
	// Names is the open set (NamesWorktree, …) the value comes from, or,
	// for a map, its names do.
	Names string
	// Pattern is the regular expression (RE2 and ECMA-262 alike) a string
	// value must match; NamePattern the one a map's names must.
	Pattern     string
	NamePattern string
	// MaxLength caps a string value's length, and a map's names'.
	MaxLength int
	Min       *Bound
	Required  bool
	// Keys are a table's keys (KeyTable, KeyTables, KeyTableMap), or the
	// only keys a string map may have.
	Keys []Key
}

// AtLeast is the bound of a number that may be n or more.
func AtLeast(n float64) *Bound { return &Bound{Value: n} }

// Above is the bound of a number that must be more than n.
func Above(n float64) *Bound { return &Bound{Value: n, Exclusive: true} }

// KeyNames returns the names of keys, in order: what unknown-key
// suggestions choose from.
func KeyNames(keys []Key) []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return names
}

// LookupKey returns the key called name among keys.
func LookupKey(keys []Key, name string) (Key, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// SubKeys returns the keys of the table key called name among keys, nil
// when there is none.
func SubKeys(keys []Key, name string) []Key {
	k, _ := LookupKey(keys, name)
	return k.Keys
}

// HasKeys reports whether a key of type t holds tables of keys.
func (t KeyType) HasKeys() bool {
	return t == KeyTable || t == KeyTables || t == KeyTableMap
}

// NamePattern is the pattern of ValidName, as a regular expression.
const NamePattern = "^[a-z0-9][a-z0-9-]*$"

// DurationPattern is ParseDuration's grammar as a regular expression (a
// duration is also never empty).
const DurationPattern = "^([0-9]{1,9}w)?([0-9]{1,9}d)?([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?$"

// EnvNamePattern is the pattern of an environment variable's name a shell
// can export.
const EnvNamePattern = "^[A-Za-z_][A-Za-z0-9_]*$"

// The enums of process files, in the order messages list them.
var (
	WorktreeKinds = []string{Throwaway, IssueBranch, Checkout}
	Severities    = []string{SeverityWarn, SeverityAbort, SeverityReview}
	Catalogues    = []string{Delivery, SelfMerge, RunPublishedIssue}
)
