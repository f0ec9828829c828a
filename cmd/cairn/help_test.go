package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestHelpEveryCommand checks the help of cairn and of each command: exit
// 0, nothing on stderr, every line within helpWidth, no placeholder's
// quotes left over, and every flag that takes a value showing a
// placeholder or its default.
func TestHelpEveryCommand(t *testing.T) {
	t.Parallel()
	var c cli
	p, err := parser(&c, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	words := [][]string{{"--help"}}
	for _, cmd := range p.Model.Leaves(true) {
		words = append(words, []string{cmd.Name, "--help"})
	}
	valueFlag := regexp.MustCompile(`^  (-\w, |    )--[a-z-]+=`)
	for _, args := range words {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, os.Environ(), &stdout, &stderr); code != exitOK || stderr.Len() > 0 {
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
