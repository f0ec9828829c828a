package codegen

import (
	"testing"

	"github.com/goccy/go-yaml"
)

// TestYAMLQuote reads every quoted string back as itself, and holds it to
// printable ASCII: no YAML reader sees a line break or a character it
// refuses in it.
func TestYAMLQuote(t *testing.T) {
	for _, s := range []string{"", "plain", `say "hi" \ there`, "a\nb\tc\r", "é中\U0001F600", "\u2028\u2029\u0085\ufeff\x7f\x01", "${{ x }}", "#: - ? &*!|>'%@`"} {
		q := YAMLQuote(s)
		for _, r := range q {
			if r < 0x20 || r >= 0x7f {
				t.Errorf("YAMLQuote(%q) = %s holds %U", s, q, r)
			}
		}
		var v struct{ K string }
		if err := yaml.Unmarshal([]byte("k: "+q+"\n"), &v); err != nil {
			t.Errorf("YAMLQuote(%q) = %s: %v", s, q, err)
			continue
		}
		if v.K != s {
			t.Errorf("YAMLQuote(%q) = %s reads back as %q", s, q, v.K)
		}
	}
}

// TestYAMLBlock reads a literal block back as its text, tabs, blank lines
// and trailing spaces kept, and refuses what a block cannot carry.
func TestYAMLBlock(t *testing.T) {
	for _, text := range []string{
		"#!/usr/bin/env bash\necho 'a  b'\n\n\tindented by a tab\n  two spaces\ntrailing   \nlast\n",
		"x='# not a comment'\n---\n...\nkey: value\n",
	} {
		b, err := yamlBlock(4, text)
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Run string }
		if err := yaml.Unmarshal([]byte("run: |\n"+b+"\n"), &v); err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		if v.Run != text {
			t.Errorf("the block of %q reads back as %q", text, v.Run)
		}
	}
	for _, bad := range []string{" leading space", "\nblank first", "nel \u0085", "ls \u2028", "bom \ufeff", "bell \a", "bad \xff"} {
		if _, err := yamlBlock(4, bad); err == nil {
			t.Errorf("yamlBlock took %q", bad)
		}
	}
}
