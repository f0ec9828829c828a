package main

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestHelpEveryCommand checks the help of cairn and of each command: exit
// 0, nothing on stderr, every line within helpWidth, no placeholder's
// quotes left over, and every flag that takes a value showing a
// placeholder or its default.
func TestHelpEveryCommand(t *testing.T) {
	t.Parallel()
	words := [][]string{{"--help"}}
	for _, c := range commands() {
		words = append(words, []string{c.command().Name, "--help"})
	}
	valueFlag := regexp.MustCompile(`^  (-\w, |    )--[a-z-]+=`)
	for _, args := range words {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != exitOK || stderr.Len() > 0 {
			t.Fatalf("cairn %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr.String())
		}
		for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
			if len(line) > helpWidth {
				t.Errorf("cairn %s: a line of %d characters, wider than %d: %q", strings.Join(args, " "), len(line), helpWidth, line)
			}
			if strings.Contains(line, "`") {
				t.Errorf("cairn %s: a placeholder's quotes left in %q", strings.Join(args, " "), line)
			}
			if valueFlag.MatchString(line) && strings.Contains(line, "=0 ") {
				t.Errorf("cairn %s: a flag shows its zero value for a placeholder: %q", strings.Join(args, " "), line)
			}
		}
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text  string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"one two three", 20, []string{"one two three"}},
		{"one two three", 7, []string{"one two", "three"}},
		{"one  two\nthree", 8, []string{"one two", "three"}},
		{"a-very-long-word b", 4, []string{"a-very-long-word", "b"}},
	} {
		if got := wrap(tc.text, tc.width); !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.text, tc.width, got, tc.want)
		}
	}
}

func TestInvalidValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		msg                 string
		name, value, reason string
		ok                  bool
	}{
		{`invalid value "xml" for flag -format: want text or json`, "format", "xml", "want text or json", true},
		{`invalid value "a: \"b\"" for flag -C: no`, "C", `a: "b"`, "no", true},
		{`flag needs an argument: --format`, "", "", "", false},
		{`invalid value xml for flag -format: no`, "", "", "", false},
	} {
		name, value, reason, ok := invalidValue(tc.msg)
		if name != tc.name || value != tc.value || reason != tc.reason || ok != tc.ok {
			t.Errorf("invalidValue(%q) = %q, %q, %q, %v; want %q, %q, %q, %v", tc.msg, name, value, reason, ok, tc.name, tc.value, tc.reason, tc.ok)
		}
	}
}

func TestAttachedValues(t *testing.T) {
	t.Parallel()
	root := (&invocation{}).root()
	for _, tc := range []struct{ args, want []string }{
		{[]string{"compile", "a.toml", "-oout.sh"}, []string{"compile", "a.toml", "-o", "out.sh"}},
		{[]string{"-Crepo", "check"}, []string{"-C", "repo", "check"}},
		{[]string{"-o=out.sh", "-C", "-orepo"}, []string{"-o=out.sh", "-C", "-orepo"}},
		{[]string{"run", "x", "--directive", "-ofoo", "-ofoo"}, []string{"run", "x", "--directive", "-ofoo", "-o", "foo"}},
		{[]string{"-hC", "--", "-oout.sh"}, []string{"-hC", "--", "-oout.sh"}},
		{[]string{"-o"}, []string{"-o"}},
	} {
		if got := attachedValues(root, tc.args); !slices.Equal(got, tc.want) {
			t.Errorf("attachedValues(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
