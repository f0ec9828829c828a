package step

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
	"github.com/cairn-dev/cairn/ir"
)

// commandContext is a step context for a command step named step in a
// fresh worktree folder.
func commandContext(t *testing.T, step, timeout string) *Context {
	t.Helper()
	dir := t.TempDir()
	sc := &Context{
		RunDir:     dir,
		ResultFile: filepath.Join(dir, "result.md"),
		Step:       &ir.PlanStep{Name: step, Timeout: timeout},
		Worktree:   t.TempDir(),
	}
	if timeout != "" {
		d, err := ir.ParseDuration(timeout)
		if err != nil {
			t.Fatal(err)
		}
		sc.Timeout = d
	}
	sc.Env = Env(os.Environ(), sc, dir, nil)
	return sc
}

func TestRunCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         Result
	}{
		{"output", "echo out; echo err >&2; echo again", Result{Result: "out\nerr\nagain\n", OutputIsResult: true}},
		{"exit", "echo before; exit 3", Result{Failed: true, ExitCode: 3, Cause: "exit status 3", Result: "before\n", Lines: 1, Tail: "before", OutputIsResult: true}},
		{"unset variable", "echo $NOPE_NOT_SET", Result{Failed: true, ExitCode: 1, Cause: "exit status 1", Lines: 1, OutputIsResult: true}},
		{"pipefail", "false | true", Result{Failed: true, ExitCode: 1, Cause: "exit status 1", OutputIsResult: true}},
		{"result file wins", `echo noise; printf 'the result' > "$CAIRN_RESULT"`, Result{Result: "the result"}},
		{"result file of a failure", `seq 1 12; printf 'the result' > "$CAIRN_RESULT"; echo "no such file" >&2; exit 2`,
			Result{Failed: true, ExitCode: 2, Cause: "exit status 2", Result: "the result", Lines: 13, Tail: "4\n5\n6\n7\n8\n9\n10\n11\n12\nno such file"}},
		{"empty result file", `echo noise; : > "$CAIRN_RESULT"`, Result{Result: "noise\n", OutputIsResult: true}},
		{"skip code", "exit $CHECK_SKIP", Result{Failed: true, ExitCode: 77, Cause: "exit status 77", OutputIsResult: true}},
		{"in the worktree", `[ "$PWD" = "$CAIRN_WORKTREE" ] && echo here`, Result{Result: "here\n", OutputIsResult: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := commandContext(t, "test", "")
			got := RunCommand(context.Background(), sc, tt.script)
			if tt.name == "unset variable" {
				got.Result, got.Tail = "", "" // bash's wording varies
			}
			if got != tt.want {
				t.Errorf("RunCommand(%q) = %+v; want %+v", tt.script, got, tt.want)
			}
		})
	}
}

func TestRunCommandClearsOldResult(t *testing.T) {
	t.Parallel()
	sc := commandContext(t, "test", "")
	if err := os.WriteFile(sc.ResultFile, []byte("stale"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := RunCommand(context.Background(), sc, "echo fresh"); got.Result != "fresh\n" {
		t.Errorf("result %q; want the command's output, not a stale result file", got.Result)
	}
}

func TestRunCommandTimeout(t *testing.T) {
	t.Parallel()
	sc := commandContext(t, "slow", "1s")
	got := RunCommand(context.Background(), sc, "echo started; exec sleep 30")
	if !got.Failed || got.Cause != "timed out after 1s" || got.Result != "started\n" {
		t.Errorf("RunCommand = %+v; want a failure timed out after 1s, with the output so far", got)
	}
}

func TestRunCommandStopped(t *testing.T) {
	t.Parallel()
	sc := commandContext(t, "slow", "")
	ctx, cancel := context.WithCancel(context.Background())
	marker := filepath.Join(sc.Worktree, "started")
	done := make(chan Result)
	go func() { done <- RunCommand(ctx, sc, "touch started; exec sleep 30") }()
	waitFile(t, marker)
	cancel()
	got := <-done
	if !got.Failed || got.Cause != "stopped" {
		t.Errorf("RunCommand = %+v; want a failure stopped", got)
	}
}

// waitFile waits for path to exist, failing after testwait.Patience.
func waitFile(t *testing.T, path string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := testwait.After()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s did not appear", path)
		}
	}
}

// TestRunSetup: a setup's whole output goes to its writer; a failed one's
// Output is the end of it as a failed command's is shown: its last lines,
// escape sequences gone, even past what the writer was given at once.
func TestRunSetup(t *testing.T) {
	t.Parallel()
	sc := commandContext(t, "test", "")
	sc.Step = nil
	var log bytes.Buffer
	run := RunSetup(context.Background(), sc, `seq 1 5000; printf '\033[31mred\033[0m\n' >&2; exit 3`, &log)
	if run.OK() || run.Cause != "exit status 3" {
		t.Fatalf("cause %q; want exit status 3", run.Cause)
	}
	if !strings.HasPrefix(log.String(), "1\n2\n") || !strings.HasSuffix(log.String(), "5000\n\033[31mred\033[0m\n") {
		t.Errorf("the log does not hold the whole output")
	}
	if want := "4992\n4993\n4994\n4995\n4996\n4997\n4998\n4999\n5000\nred"; string(run.Output) != want {
		t.Errorf("output %q; want %q", run.Output, want)
	}
	if ok := RunSetup(context.Background(), sc, "echo fine", &log); !ok.OK() || len(ok.Output) != 0 {
		t.Errorf("a setup that succeeded: %+v", ok)
	}
}
