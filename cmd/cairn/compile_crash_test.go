//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
	"github.com/cairn-dev/cairn/record"
)

// orphanProcess is a process of one step, "long", or with wide set two,
// "long" and "wide", a parallel group. Each step starts `sleep ARG` in its
// process group, writes its pid to $HOME/pid.STEP and makes
// $HOME/started.STEP once the sleep runs, then waits for it. Each time a
// step starts it adds a line to $HOME/runs.STEP; run again (resumed), it
// writes $HOME/beside.STEP when the first run's sleep still runs, and ends
// at once.
func orphanProcess(arg string, wide bool) string {
	step := func(name string) string {
		return `
[[steps]]
name = "` + name + `"
command = '''
echo started >>"$HOME/runs.` + name + `"
if [ -e "$HOME/started.` + name + `" ]; then
  pid=$(cat "$HOME/pid.` + name + `")
  if [ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" = "sleep ` + arg + ` " ]; then echo "$pid" >"$HOME/beside.` + name + `"; fi
  exit 0
fi
sleep ` + arg + ` &
echo $! >"$HOME/pid.` + name + `"
until [ "$(tr '\0' ' ' <"/proc/$!/cmdline")" = "sleep ` + arg + ` " ]; do sleep 0.01; done
touch "$HOME/started.` + name + `"
wait
'''
`
	}
	if !wide {
		return "version = 1\n" + step("long")
	}
	return "version = 1\n\n[worktrees.w]\nkind = \"throwaway\"\n" +
		step("long") + "parallel = \"g\"\n" + step("wide") + "parallel = \"g\"\nworktree = \"w\"\n"
}

// TestCompiledScriptKilled kills a compiled script outright (SIGKILL) while
// its steps run, which leaves them and the crashed run behind, as a killed
// cairn run does: the script records its steps' process groups in the run
// folder's .groups.json as cairn run does, so that cairn status, stop, gc
// and resume end what it left (issue 27). A resume runs the step again
// only once the first one has ended, and the job of the killed script that
// ran a step records nothing after it.
func TestCompiledScriptKilled(t *testing.T) {
	t.Parallel()
	// How many processes a crashed run left depends on where its step jobs
	// were when the script was killed (a job's own subshell may have ended
	// already): the sleepers' being gone is checked below.
	const ended = `(?m)^cairn: ended \d+ processes crashed run orphan_\S+ left running$`
	for i, tc := range []struct {
		name string
		args []string
		// wide runs a parallel group of two steps.
		wide bool
		// stdout and stderr are what the command prints, "" for not
		// looked at.
		stdout, stderr string
	}{
		{"status", []string{"status"}, false, `(?m)^  orphan_\S+ +orphan +crashed `, ended},
		{"stop", []string{"stop", "orphan_"}, false, "", ended},
		{"stop-parallel", []string{"stop", "orphan_"}, true, "", ended},
		{"gc", []string{"gc"}, false, `(?m)^gc: deleted 0 runs, kept 1$`, ""},
		{"resume", []string{"resume", "orphan_"}, false, "", ended},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			arg := strconv.Itoa(1235 + i)
			w := newSignalWork(t, map[string]string{"orphan": orphanProcess(arg, tc.wide)})
			steps := sleepers{"long": {"sleep", arg}}
			markers := []string{filepath.Join(w.work, "started.long")}
			if tc.wide {
				steps["wide"] = []string{"sleep", arg}
				markers = append(markers, filepath.Join(w.work, "started.wide"))
			}
			steps.killAtEnd(t, w.work)
			w.killScript(t, "orphan", markers...)
			if len(steps.running(w.work)) != len(steps) {
				t.Fatal("the steps' sleeps did not outlive the killed script")
			}
			cmd := exec.Command("cairn", tc.args...)
			cmd.Dir, cmd.Env = w.repo, w.env
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Errorf("cairn %s: %v\n%s%s", strings.Join(tc.args, " "), err, stdout.String(), stderr.String())
			}
			for _, want := range []struct{ re, text string }{{tc.stdout, stdout.String()}, {tc.stderr, stderr.String()}} {
				if want.re != "" && !regexp.MustCompile(want.re).MatchString(want.text) {
					t.Errorf("cairn %s printed nothing that matches %s:\n%s%s", strings.Join(tc.args, " "), want.re, stdout.String(), stderr.String())
				}
			}
			if b, err := os.ReadFile(filepath.Join(w.work, "beside.long")); err == nil {
				t.Errorf("the resumed step ran beside the first one (pid %s)", strings.TrimSpace(string(b)))
			}
			steps.await(t, w.work)
			// The killed script's step jobs, which waited for the steps,
			// end with them and write nothing more.
			awaitNoSurvivors(t, w.env)
			runs, _ := filepath.Glob(filepath.Join(w.home, "runs", "orphan_*"))
			if len(runs) != 1 {
				t.Fatalf("want one run of orphan, have %v", runs)
			}
			if _, err := os.Stat(filepath.Join(runs[0], ".groups.json")); !os.IsNotExist(err) {
				t.Errorf("the run's .groups.json is still there (%v)", err)
			}
			log, _ := os.ReadFile(filepath.Join(runs[0], "log"))
			starts, _ := os.ReadFile(filepath.Join(w.work, "runs.long"))
			if tc.name != "resume" {
				if len(log) != 0 || string(starts) != "started\n" {
					t.Errorf("step long started %d times, and the run's log says:\n%s", strings.Count(string(starts), "\n"), log)
				}
				return
			}
			if string(starts) != "started\nstarted\n" {
				t.Errorf("the step started %d times; want 2 (the killed script's, then the resume's)", strings.Count(string(starts), "\n"))
			}
			if !regexp.MustCompile(`\Astep=long .* outcome=succeeded\n\z`).Match(log) {
				t.Errorf("the run's log is not the resumed step's one line:\n%s", log)
			}
			if rec, err := record.Load(runs[0]); err != nil || rec.Status != record.StatusSucceeded {
				t.Errorf("the resumed run's record: %v, %v; want succeeded", rec, err)
			}
		})
	}
}

// killScript starts work/NAME.sh in the repository, in a process group of
// its own as a user's shell starts it, waits until each of the files
// markers exists (the steps started), and kills the script outright: SIGKILL to its own
// pid, not to its group. Its output goes to work/NAME.out, its scratch
// folder, which it leaves, under the test's. What it left in its group is
// killed once the test has ended.
func (w *signalWork) killScript(t *testing.T, name string, markers ...string) {
	t.Helper()
	out, err := os.Create(filepath.Join(w.work, name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("bash", filepath.Join(w.work, name+".sh"))
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = w.repo, append(w.env[:len(w.env):len(w.env)], "TMPDIR="+t.TempDir()), out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	deadline := time.Now().Add(testwait.Patience)
	for _, marker := range markers {
		for {
			if _, err := os.Stat(marker); err == nil {
				break
			}
			select {
			case err := <-done:
				b, _ := os.ReadFile(out.Name())
				t.Fatalf("the script ended (%v) before %s appeared:\n%s", err, marker, b)
			default:
				time.Sleep(10 * time.Millisecond)
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not appear within %s", marker, testwait.Patience)
			}
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done
}

// awaitNoSurvivors waits until nothing the script and its steps started is
// left (survivors), failing after testwait.Patience.
func awaitNoSurvivors(t *testing.T, env []string) {
	t.Helper()
	deadline := time.Now().Add(testwait.Patience)
	for {
		left := survivors(t, env)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s on, still running:\n%s", testwait.Patience, strings.Join(left, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
