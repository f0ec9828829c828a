//go:build linux

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/ptytest"
	"github.com/cairn-dev/cairn/internal/testwait"
	"github.com/cairn-dev/cairn/record"
)

// graceLine is a compiled script's grace period between SIGTERM and
// SIGKILL; graceLong is an hour, what lengthenGrace gives a script: only a
// second signal can then end one whose steps take SIGTERM without ending
// before the test stops waiting.
var (
	graceLine = []byte("\ngrace=5\n")
	graceLong = []byte("\ngrace=3600\n")
)

// lockedBuffer is the terminal's output, written by the goroutine that
// reads the master and read by the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// signalWork is a repository with compiled scripts, its $CAIRN_HOME and
// $HOME outside it.
type signalWork struct {
	work, repo, home string
	env              []string
}

// newSignalWork compiles each process (NAME.toml → content) to
// work/NAME.sh.
func newSignalWork(t *testing.T, processes map[string]string) *signalWork {
	t.Helper()
	w := &signalWork{work: t.TempDir()}
	w.repo = filepath.Join(w.work, "repo")
	w.home = filepath.Join(w.work, "home")
	files := map[string]string{}
	for name, src := range processes {
		files[name+".toml"] = src
	}
	writeFiles(t, w.repo, files)
	gitRepo(t, w.repo)
	for k, v := range testEnv(t, w.work) {
		if k == "CAIRN_HOME" {
			v = w.home
		}
		w.env = append(w.env, k+"="+v)
	}
	for name := range processes {
		cmd := exec.Command("cairn", "compile", "-o", filepath.Join(w.work, name+".sh"), name+".toml")
		cmd.Dir, cmd.Env = w.repo, w.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cairn compile %s: %v\n%s", name, err, out)
		}
	}
	return w
}

// lengthenGrace gives the compiled script work/NAME.sh a grace period of
// an hour (graceLong).
func (w *signalWork) lengthenGrace(t *testing.T, name string) {
	t.Helper()
	script := filepath.Join(w.work, name+".sh")
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, graceLine) {
		t.Fatalf("%s.sh sets no grace period (%q)", name, bytes.TrimSpace(graceLine))
	}
	if err := os.WriteFile(script, bytes.Replace(b, graceLine, graceLong, 1), 0o755); err != nil {
		t.Fatal(err)
	}
}

// scriptRun is a compiled script running, in the foreground of a terminal
// of its own or not.
type scriptRun struct {
	cmd    *exec.Cmd
	master *os.File
	out    *lockedBuffer
	done   chan struct{}
	// copied is closed when all the terminal showed is in out.
	copied chan struct{}
	err    error
}

// start starts work/NAME.sh in the repository; with a terminal, as a user's
// shell starts it in the foreground, its stdout and stderr on the terminal.
func (w *signalWork) start(t *testing.T, name string, terminal bool) *scriptRun {
	t.Helper()
	r := &scriptRun{out: &lockedBuffer{}, done: make(chan struct{})}
	r.cmd = exec.Command("bash", filepath.Join(w.work, name+".sh"))
	r.cmd.Dir, r.cmd.Env = w.repo, w.env
	var slave *os.File
	if terminal {
		r.master, slave = ptytest.Open(t)
		r.cmd.Stdin, r.cmd.Stdout, r.cmd.Stderr = slave, slave, slave
		r.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	} else {
		r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	copied := make(chan struct{})
	r.copied = copied
	if terminal {
		slave.Close()
		go func() {
			// The master reads EIO once the terminal's last user is gone.
			_, _ = io.Copy(r.out, r.master)
			close(copied)
		}()
	} else {
		close(copied)
	}
	go func() {
		r.err = r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
			_ = r.cmd.Process.Kill()
			<-r.done
		}
		if r.master != nil {
			r.master.Close()
		}
		<-copied
	})
	return r
}

// ctrlC types Ctrl-C at the script's terminal: its line discipline sends
// SIGINT to the whole foreground process group.
func (r *scriptRun) ctrlC(t *testing.T) {
	t.Helper()
	if _, err := r.master.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
}

// wait waits for the script to end, and returns its exit code.
func (r *scriptRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-r.done:
	case <-testwait.After():
		t.Fatalf("the script did not end within %s of the signal; it printed:\n%s\nstill running:\n%s",
			testwait.Patience, r.out.String(), strings.Join(survivors(t, r.cmd.Env), "\n"))
	}
	// What the script wrote last may still be on its way from the
	// terminal: the copy ends when the terminal's last user is gone.
	select {
	case <-r.copied:
	case <-testwait.After():
	}
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		return ee.ExitCode()
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return 0
}

// waitFiles waits until every one of the files exists.
func waitFiles(t *testing.T, r *scriptRun, files ...string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := testwait.After()
	for _, f := range files {
		for {
			if _, err := os.Stat(f); err == nil {
				break
			}
			select {
			case <-r.done:
				t.Fatalf("the script ended before %s appeared:\n%s", f, r.out.String())
			case <-deadline:
				t.Fatalf("%s did not appear within %s:\n%s", f, testwait.Patience, r.out.String())
			case <-tick.C:
			}
		}
	}
}

// survivors lists the processes (pid and command line) whose environment
// holds env's HOME: what the script and its steps started, wherever they
// went (a session of their own included), that is still there.
func survivors(t *testing.T, env []string) []string {
	t.Helper()
	var home string
	for _, kv := range env {
		if strings.HasPrefix(kv, "HOME=") {
			home = kv
		}
	}
	if home == "" {
		t.Fatal("no HOME in the script's environment")
	}
	environs, _ := filepath.Glob("/proc/[0-9]*/environ")
	var left []string
	for _, f := range environs {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(append([]byte{0}, b...), []byte("\x00"+home+"\x00")) {
			continue
		}
		dir := filepath.Dir(f)
		if stat, err := os.ReadFile(filepath.Join(dir, "stat")); err == nil {
			// A zombie is already gone; only its parent has not looked.
			if _, after, ok := strings.Cut(string(stat), ") "); ok && strings.HasPrefix(after, "Z") {
				continue
			}
		}
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		left = append(left, filepath.Base(dir)+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return left
}

// noSurvivors fails the test when something the script started is still
// running after it ended (SIGKILL takes effect at once, but the kernel
// needs a moment to take a killed process down, more on a loaded machine).
func noSurvivors(t *testing.T, env []string) {
	t.Helper()
	var left []string
	if !testwait.Until(func() bool {
		left = survivors(t, env)
		return len(left) == 0
	}) {
		t.Fatalf("left running %s after the script ended:\n%s", testwait.Patience, strings.Join(left, "\n"))
	}
}

// runLog is the log of the only run of process in the home.
func (w *signalWork) runLog(t *testing.T, process string) string {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(w.home, "runs", process+"_*"))
	if len(runs) != 1 {
		t.Fatalf("want one run of %s, have %v", process, runs)
	}
	b, err := os.ReadFile(filepath.Join(runs[0], "log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// signalProcesses are the processes of the signal tests: a parallel group
// of two throwaway steps then a later one; a single step; and a group whose
// steps take SIGTERM without ending (they only note it), so that only
// SIGKILL ends them. None ends by itself before the test stops it.
var signalProcesses = map[string]string{
	"group": `version = 1

[worktrees.a]
kind = "throwaway"

[worktrees.b]
kind = "throwaway"

[[steps]]
name = "a"
worktree = "a"
parallel = "g"
command = "echo work-a > a.txt; touch \"$HOME/started-a\"; sleep 621"

[[steps]]
name = "b"
worktree = "b"
parallel = "g"
command = "echo work-b > b.txt; touch \"$HOME/started-b\"; sleep 621"

[[steps]]
name = "later"
command = "echo later"
`,
	"one": `version = 1

[[steps]]
name = "one"
command = "touch \"$HOME/started-one\"; sleep 622"
`,
	"stubborn": `version = 1

[worktrees.a]
kind = "throwaway"

[[steps]]
name = "a"
worktree = "a"
parallel = "g"
command = "echo work-a > a.txt; trap 'touch \"$HOME/term-a\"' TERM; touch \"$HOME/started-a\"; while :; do sleep 0.1; done"

[[steps]]
name = "b"
parallel = "g"
command = "trap 'touch \"$HOME/term-b\"' TERM; touch \"$HOME/started-b\"; while :; do sleep 0.1; done"
`,
	"quick": `version = 1

[[steps]]
name = "quick"
command = "echo quick"
`,
}

// passFree fails the test unless the Pass is free again: a quick script on
// the same repository runs rather than being skipped.
func (w *signalWork) passFree(t *testing.T) {
	t.Helper()
	r := w.start(t, "quick", false)
	if code := r.wait(t); code != 0 || !strings.Contains(r.out.String(), "\nquick\n") {
		t.Fatalf("after the interrupted run, a second one exited %d (want 0, not skipped):\n%s", code, r.out.String())
	}
}

// TestCompileCtrlC types Ctrl-C at the terminal of a compiled script, which
// sends SIGINT to its whole foreground process group (the script and its
// steps' jobs alike, unlike `kill -INT PID`): in a parallel group and in a
// single step, the script ends with exit 130, the running steps logged
// interrupted and the rest cancelled, nothing it started left running, and
// the Pass free for the next run. Typed twice, the second Ctrl-C skips the
// grace period (an hour, graceLong) of steps that take SIGTERM without
// ending.
func TestCompileCtrlC(t *testing.T) {
	for _, tc := range []struct {
		name, process string
		// started and termed are files in $HOME the steps touch when they
		// have started and when they got SIGTERM.
		started, termed []string
		// twice types a second Ctrl-C once every step got SIGTERM; the
		// script must then end, its grace period not out.
		twice bool
		log   []string
	}{
		{
			name: "group", process: "group", started: []string{"started-a", "started-b"},
			log: []string{
				`^step=a kind=command worktree=a .* outcome=interrupted$`,
				`^step=b kind=command worktree=b .* outcome=interrupted$`,
				`^step=later .* duration=0s outcome=cancelled$`,
			},
		},
		{
			name: "one", process: "one", started: []string{"started-one"},
			log: []string{`^step=one kind=command worktree=default .* outcome=interrupted$`},
		},
		{
			name: "twice", process: "stubborn", started: []string{"started-a", "started-b"},
			termed: []string{"term-a", "term-b"}, twice: true,
			log: []string{
				`^step=a kind=command worktree=a .* outcome=interrupted$`,
				`^step=b kind=command worktree=default .* outcome=interrupted$`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newSignalWork(t, map[string]string{tc.process: signalProcesses[tc.process], "quick": signalProcesses["quick"]})
			if tc.twice {
				w.lengthenGrace(t, tc.process)
			}
			r := w.start(t, tc.process, true)
			waitFiles(t, r, homeFiles(w, tc.started)...)
			r.ctrlC(t)
			signalled := time.Now()
			if tc.twice {
				waitFiles(t, r, homeFiles(w, tc.termed)...)
				r.ctrlC(t)
				signalled = time.Now()
			}
			code := r.wait(t)
			t.Logf("ended %s after the last Ctrl-C; the terminal showed:\n%s", time.Since(signalled).Round(time.Millisecond), r.out.String())
			if code != 130 {
				t.Errorf("exit %d; want 130", code)
			}
			if !strings.Contains(r.out.String(), "cairn: interrupted") {
				t.Errorf("the terminal does not show \"cairn: interrupted\"")
			}
			checkInterruptedRun(t, w, tc.process, tc.log)
			noSurvivors(t, w.env)
			w.passFree(t)
		})
	}
}

// TestCompileDoubleSignal sends SIGTERM twice to a compiled script whose
// steps take SIGTERM without ending: the second signal skips the grace
// period (an hour, graceLong) and SIGKILLs them, and the run still ends interrupted, exit 130,
// its throwaway worktree's changes saved and the worktree removed.
func TestCompileDoubleSignal(t *testing.T) {
	t.Parallel()
	w := newSignalWork(t, map[string]string{"stubborn": signalProcesses["stubborn"], "quick": signalProcesses["quick"]})
	w.lengthenGrace(t, "stubborn")
	r := w.start(t, "stubborn", false)
	waitFiles(t, r, homeFiles(w, []string{"started-a", "started-b"})...)
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFiles(t, r, homeFiles(w, []string{"term-a", "term-b"})...)
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := r.wait(t)
	if code != 130 {
		t.Errorf("exit %d; want 130\n%s", code, r.out.String())
	}
	checkInterruptedRun(t, w, "stubborn", []string{
		`^step=a kind=command worktree=a .* outcome=interrupted$`,
		`^step=b kind=command worktree=default .* outcome=interrupted$`,
	})
	noSurvivors(t, w.env)
	w.passFree(t)
}

// homeFiles are names in the work's $HOME as paths.
func homeFiles(w *signalWork, names []string) []string {
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join(w.work, n))
	}
	return paths
}

// checkInterruptedRun checks what an interrupted run of process left: a log
// whose lines match log (one each, in any order), a record that ended
// interrupted with each step's outcome its log line's, the interruption in
// the activity log, every throwaway worktree gone and, for those whose step
// wrote a.txt, the change saved as a patch.
func checkInterruptedRun(t *testing.T, w *signalWork, process string, log []string) {
	t.Helper()
	text := w.runLog(t, process)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != len(log) {
		t.Errorf("the log has %d lines; want %d:\n%s", len(lines), len(log), text)
	}
	for _, want := range log {
		if !regexp.MustCompile(`(?m)` + want).MatchString(text) {
			t.Errorf("no log line matches %s:\n%s", want, text)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(w.home, "runs", process+"_*"))
	rec, err := record.Load(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != record.StatusInterrupted || rec.End == nil {
		t.Errorf("the run record ends %s at %v; want interrupted", rec.Status, rec.End)
	}
	logged := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^step=(\S+) .* outcome=(\S+)`).FindAllStringSubmatch(text, -1) {
		logged[m[1]] = m[2]
	}
	for _, s := range rec.Steps {
		if string(s.Outcome) != logged[s.Name] {
			t.Errorf("step %s: the record says %s, the log %q", s.Name, s.Outcome, logged[s.Name])
		}
	}
	activity, err := os.ReadFile(filepath.Join(w.home, "activity.log"))
	if err != nil || !regexp.MustCompile(`event=end run=`+process+`_\S+ .* status=interrupted`).Match(activity) {
		t.Errorf("the activity log does not end the run interrupted (%v):\n%s", err, activity)
	}
	left, _ := filepath.Glob(filepath.Join(w.home, "worktrees", "*", "*"))
	if len(left) > 0 {
		t.Errorf("throwaway worktrees left: %v", left)
	}
	cmd := exec.Command("git", "worktree", "list")
	cmd.Dir, cmd.Env = w.repo, w.env
	if out, err := cmd.Output(); err != nil || strings.Count(string(out), "\n") != 1 {
		t.Errorf("git worktree list (%v):\n%s", err, out)
	}
	if strings.Contains(signalProcesses[process], "a.txt") {
		patches, _ := filepath.Glob(filepath.Join(w.home, "runs", process+"_*", "worktrees", "a.patch"))
		if len(patches) != 1 {
			t.Fatalf("no patch of worktree a saved")
		}
		if b, _ := os.ReadFile(patches[0]); !strings.Contains(string(b), "+work-a\n") {
			t.Errorf("the patch of worktree a does not hold its change:\n%s", b)
		}
	}
}

// children are the pids of pid's child processes whose command line holds
// word.
func children(t *testing.T, pid int, word string) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var kids []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold anything but a ")".
		_, after, ok := strings.Cut(string(b), ") ")
		fields := strings.Fields(after)
		if !ok || len(fields) < 2 || fields[1] != strconv.Itoa(pid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(f), "cmdline"))
		if kid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil && bytes.Contains(cmdline, []byte(word)) {
			kids = append(kids, kid)
		}
	}
	return kids
}

// stableChildren are the children of pid whose command line holds word
// and that are still there a moment later.
func stableChildren(t *testing.T, pid int, word string) []int {
	t.Helper()
	for range 50 {
		first := children(t, pid, word)
		time.Sleep(100 * time.Millisecond)
		var kept []int
		for _, kid := range children(t, pid, word) {
			if slices.Contains(first, kid) {
				kept = append(kept, kid)
			}
		}
		if len(kept) == len(first) {
			return kept
		}
	}
	return children(t, pid, word)
}

// TestCompileJobKilled kills the jobs of a compiled script's running steps
// outright while it waits out the grace period after SIGINT (as the OOM
// killer might): bash then has no job left to report, and the script must
// not wait for them forever (it spun a CPU holding the Pass): it ends once
// its grace period is out, exit 130, the steps logged interrupted.
func TestCompileJobKilled(t *testing.T) {
	t.Parallel()
	w := newSignalWork(t, map[string]string{"stubborn": signalProcesses["stubborn"], "quick": signalProcesses["quick"]})
	r := w.start(t, "stubborn", false)
	waitFiles(t, r, homeFiles(w, []string{"started-a", "started-b"})...)
	// The step jobs are the script's children that stay: a command
	// substitution forks one for a moment, with the same command line.
	jobs := stableChildren(t, r.cmd.Process.Pid, "stubborn.sh")
	if len(jobs) != 2 {
		t.Fatalf("the script has %d step jobs (%v); want 2", len(jobs), jobs)
	}
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitFiles(t, r, homeFiles(w, []string{"term-a", "term-b"})...)
	for _, pid := range jobs {
		// A job that already ended needs no killing.
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			t.Fatal(err)
		}
	}
	if code := r.wait(t); code != 130 {
		t.Errorf("exit %d; want 130\n%s", code, r.out.String())
	}
	checkInterruptedRun(t, w, "stubborn", []string{
		`^step=a kind=command worktree=a .* outcome=interrupted$`,
		`^step=b kind=command worktree=default .* outcome=interrupted$`,
	})
	noSurvivors(t, w.env)
	w.passFree(t)
}
