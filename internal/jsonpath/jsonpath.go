// Package jsonpath reads one value out of a JSON document by a path in
// jq's simplest form: ".total_cost_usd", ".usage.input_tokens",
// ".stats.models[0].tokens" — dotted keys and [N] indexes, nothing more.
package jsonpath

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Path is a parsed path: the keys and indexes to follow from the document's
// top, in order.
type Path struct {
	text  string
	steps []step
}

// step is one key (index < 0) or one array index.
type step struct {
	key   string
	index int
}

// String is the path as written.
func (p Path) String() string { return p.text }

// Parse reads a path: "." alone is the whole document; otherwise a
// sequence of ".KEY" (a key of letters, digits, "_" and "-") and "[N]" (an
// array index from 0), starting with ".".
func Parse(s string) (Path, error) {
	p := Path{text: s}
	if !strings.HasPrefix(s, ".") {
		return p, errors.New(`a path starts with ".", such as ".usage.input_tokens"`)
	}
	if s == "." {
		return p, nil
	}
	for i := 0; i < len(s); {
		switch s[i] {
		case '.':
			j := i + 1
			for j < len(s) && keyByte(s[j]) {
				j++
			}
			if j == i+1 {
				return p, fmt.Errorf("no key after the %q at %d; keys are letters, digits, _ and -", ".", i+1)
			}
			p.steps = append(p.steps, step{key: s[i+1 : j], index: -1})
			i = j
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return p, fmt.Errorf("the %q at %d is not closed", "[", i+1)
			}
			n, err := strconv.Atoi(s[i+1 : i+end])
			if err != nil || n < 0 || s[i+1] == '+' {
				return p, fmt.Errorf("index %q at %d is not a number from 0", s[i+1:i+end], i+2)
			}
			p.steps = append(p.steps, step{index: n})
			i += end + 1
		default:
			return p, fmt.Errorf("unexpected %q at %d; a path is .KEY and [N] only", s[i:i+1], i+1)
		}
	}
	return p, nil
}

// keyByte reports whether c may be part of a key.
func keyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// Find follows p in doc, a document as encoding/json decodes it into an
// any, and returns the value there; false when a key or index is missing,
// or a step meets a value that is not an object or an array.
func (p Path) Find(doc any) (any, bool) {
	v := doc
	for _, st := range p.steps {
		if st.index < 0 {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[st.key]; !ok {
				return nil, false
			}
			continue
		}
		a, ok := v.([]any)
		if !ok || st.index >= len(a) {
			return nil, false
		}
		v = a[st.index]
	}
	return v, true
}

// Steps is p as jq's getpath takes it: each key a string, each index a
// number.
func (p Path) Steps() []any {
	out := make([]any, 0, len(p.steps))
	for _, st := range p.steps {
		if st.index < 0 {
			out = append(out, st.key)
		} else {
			out = append(out, st.index)
		}
	}
	return out
}
