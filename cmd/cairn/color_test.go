package main

import (
	"bytes"
	"io"
	"os"
	"testing"
)

func TestColorOn(t *testing.T) {
	// /dev/null is a character device, as a terminal is, but no terminal:
	// output sent there is a program's (a benchmark's), not a person's.
	dev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer dev.Close()
	pipeR, pipeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pipeR.Close()
	defer pipeW.Close()
	for _, tc := range []struct {
		name    string
		w       io.Writer
		noColor string
		term    string
		want    bool
	}{
		{"a character device that is no terminal", dev, "", "xterm", false},
		{"a pipe", pipeW, "", "xterm", false},
		{"not a file", &bytes.Buffer{}, "", "xterm", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := []string{"NO_COLOR=" + tc.noColor, "TERM=" + tc.term}
			if got := colorOn(env, tc.w); got != tc.want {
				t.Errorf("colorOn = %v; want %v", got, tc.want)
			}
		})
	}
}
