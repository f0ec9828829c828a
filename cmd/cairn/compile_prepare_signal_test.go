//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

// TestCompileCtrlCSetup types Ctrl-C while a compiled script's worktree
// setup runs: the setup is stopped as a step is, with all it started, its
// step is cancelled, and the run ends interrupted, exit 130, its worktree
// removed and the Pass free.
func TestCompileCtrlCSetup(t *testing.T) {
	t.Parallel()
	w := newSignalWork(t, map[string]string{
		"setup": `version = 1

[worktrees.w]
kind = "throwaway"
setup = "touch \"$HOME/started-setup\"; sleep 623"

[[steps]]
name = "s"
worktree = "w"
command = "echo ran"
`,
		"quick": signalProcesses["quick"],
	})
	r := w.start(t, "setup", true)
	waitFiles(t, r, homeFiles(w, []string{"started-setup"})...)
	r.ctrlC(t)
	signalled := time.Now()
	code := r.wait(t)
	t.Logf("ended %s after Ctrl-C; the terminal showed:\n%s", time.Since(signalled).Round(time.Millisecond), r.out.String())
	if code != 130 {
		t.Errorf("exit %d; want 130", code)
	}
	for _, want := range []string{"setup worktree w: failed: stopped", "cairn: interrupted"} {
		if !strings.Contains(r.out.String(), want) {
			t.Errorf("the terminal does not show %q", want)
		}
	}
	if strings.Contains(r.out.String(), "ran") {
		t.Error("the step ran after the interrupted setup")
	}
	checkInterruptedRun(t, w, "setup", []string{`^step=s kind=command worktree=w .* outcome=cancelled$`})
	noSurvivors(t, w.env)
	w.passFree(t)
}
