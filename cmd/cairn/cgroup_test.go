//go:build unix

package main

import (
	"bytes"
	"encoding/json"
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
)

// escapeWait is how long a test waits for a process that dropped its step
// token to be gone: it is killed as its step ends, and gone a moment after.
const escapeWait = testwait.Patience

// escapeSteps is a process whose step starts three sleepers and ends:
// one in its process group that dropped its step token (env -u), one that
// left the group as well (setsid), and one of a double fork into a session
// of its own with an empty environment. Each writes its pid to
// $HOME/pid.NAME once it runs the sleep, and the step ends then, its
// cgroup v2 written to $HOME/cgroup.
const escapeSteps = `version = 1

[[steps]]
name = "escape"
command = '''
# await PID ARGV: wait until the process PID runs ARGV.
await() {
  pid=$1; shift
  for _ in $(seq 1000); do
    [ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" = "$* " ] && return 0
    sleep 0.01
  done
  echo "$pid does not run $*" >&2
  exit 1
}
env -u CAIRN_STEP_TOKEN sleep 1000 </dev/null >/dev/null 2>&1 &
echo $! >"$HOME/pid.group"
await $! sleep 1000
env -u CAIRN_STEP_TOKEN setsid sleep 1001 </dev/null >/dev/null 2>&1 &
echo $! >"$HOME/pid.session"
await $! sleep 1001
(setsid sh -c 'env -i sleep 1002 </dev/null >/dev/null 2>&1 & echo $! >"$1.new"; mv "$1.new" "$1"' sh "$HOME/pid.forked" &)
until [ -s "$HOME/pid.forked" ]; do sleep 0.01; done
await "$(cat "$HOME/pid.forked")" sleep 1002
sed -n 's/^0:://p' /proc/self/cgroup >"$HOME/cgroup"
echo escaped
'''
`

// TestRunEndsWhatDroppedItsToken holds that what a step starts ends with
// the step even when it dropped CAIRN_STEP_TOKEN and left the step's
// process group, where the machine offers cairn a cgroup v2 for each step.
func TestRunEndsWhatDroppedItsToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"escape.toml": escapeSteps, ".gitignore": "/home/\n/pid.*\n/cgroup\n"})
	gitRepo(t, dir)
	escapeSleepers.killAtEnd(t, dir)
	stdout, stderr, code := cairnIn(t, dir, "run", "escape.toml")
	if code != 0 || !bytes.Contains(stdout, []byte("escaped")) {
		t.Fatalf("cairn run exited %d\n%s%s", code, stdout, stderr)
	}
	needCgroup(t, dir, "event=start")
	escapeSleepers.await(t, dir)
	cgroupGone(t, dir)
}

// TestCompiledEndsWhatDroppedItsToken holds the same of a compiled
// script's step.
func TestCompiledEndsWhatDroppedItsToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"escape.toml": escapeSteps, ".gitignore": "/home/\n/pid.*\n/cgroup\n/escape.sh\n"})
	gitRepo(t, dir)
	escapeSleepers.killAtEnd(t, dir)
	if _, stderr, code := cairnIn(t, dir, "compile", "-o", "escape.sh", "escape.toml"); code != 0 {
		t.Fatalf("cairn compile exited %d\n%s", code, stderr)
	}
	cmd := exec.Command("bash", "escape.sh")
	cmd.Dir, cmd.Env = dir, environ(t, dir)
	if out, err := cmd.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("escaped")) {
		t.Fatalf("bash escape.sh: %v\n%s", err, out)
	}
	needCgroup(t, dir, "event=start")
	escapeSleepers.await(t, dir)
	cgroupGone(t, dir)
}

// TestEndCgroupOfCrashedRun holds that cairn stop, gc and resume end what
// a crashed run's step left in its cgroup, a process that dropped its token
// and left its group included, and remove the cgroup.
func TestEndCgroupOfCrashedRun(t *testing.T) {
	t.Parallel()
	for i, tc := range []struct {
		args []string
		// stderr is what the command says, "" for nothing looked at.
		stderr string
	}{
		{[]string{"stop", "crash_"}, `(?m)^cairn: ended 1 process crashed run crash_\S+ left running$`},
		{[]string{"gc"}, ""},
		{[]string{"resume", "crash_"}, `(?m)^cairn: ended 1 process crashed run crash_\S+ left running$`},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			t.Parallel()
			arg := strconv.Itoa(1003 + i)
			dir := crashWithSleeper(t, arg)
			cgroup := recordedCgroup(t, dir)
			_, stderr, code := cairnIn(t, dir, tc.args...)
			if code != 0 || tc.stderr != "" && !regexp.MustCompile(tc.stderr).Match(stderr) {
				t.Errorf("cairn %s exited %d\n%s", strings.Join(tc.args, " "), code, stderr)
			}
			sleepers{"session": {"sleep", arg}}.await(t, dir)
			if _, err := os.Stat(cgroup); cgroup != "" && !os.IsNotExist(err) {
				t.Errorf("the step's cgroup %s is still there (%v)", cgroup, err)
			}
		})
	}
}

// crashWithSleeper runs, in a new repository, a process whose step starts
// `sleep ARG` out of its process group and without its step token, then
// waits; it kills cairn (SIGKILL) once the sleep runs, and returns the
// repository. Run again (resume), the step ends at once. It skips the test
// where cairn found no cgroup for the step.
func crashWithSleeper(t *testing.T, arg string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"crash.toml": `version = 1

[[steps]]
name = "crash"
command = '''
if [ -e "$HOME/started" ]; then echo again; exit 0; fi
env -u CAIRN_STEP_TOKEN setsid sleep ` + arg + ` </dev/null >/dev/null 2>&1 &
echo $! >"$HOME/pid.session"
until [ "$(tr '\0' ' ' <"/proc/$!/cmdline")" = "sleep ` + arg + ` " ]; do sleep 0.01; done
touch "$HOME/started"
wait
'''
`,
		".gitignore": "/home/\n/pid.*\n/started\n",
	})
	gitRepo(t, dir)
	sleepers{"session": {"sleep", arg}}.killAtEnd(t, dir)
	run := exec.Command("cairn", "run", "crash.toml")
	run.Dir, run.Env = dir, environ(t, dir)
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(escapeWait)
	for {
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = run.Process.Kill()
			_ = run.Wait()
			t.Fatalf("the step did not start within %s", escapeWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = run.Process.Kill()
	_ = run.Wait()
	needCgroup(t, dir, "event=start")
	return dir
}

// recordedCgroup is the cgroup the groups file of the crashed run in dir
// records for its one group; "" (an error) when it records none.
func recordedCgroup(t *testing.T, dir string) string {
	t.Helper()
	groups, _ := filepath.Glob(filepath.Join(dir, "home", "runs", "crash_*", ".groups.json"))
	if len(groups) != 1 {
		t.Fatalf("the crashed run left %d groups files; want 1", len(groups))
	}
	b, err := os.ReadFile(groups[0])
	if err != nil {
		t.Fatal(err)
	}
	var recorded []struct {
		Cgroup string `json:"cgroup"`
	}
	if err := json.Unmarshal(b, &recorded); err != nil || len(recorded) != 1 || recorded[0].Cgroup == "" {
		t.Errorf("the groups file records no cgroup (%v):\n%s", err, b)
		return ""
	}
	return recorded[0].Cgroup
}

// needCgroup skips the test when the activity line of the run in dir that
// starts with event says that cairn found no cgroup v2 it may use for each
// step (containment=token): there, a process that drops its step token and
// leaves its process group escapes, as the README says.
func needCgroup(t *testing.T, dir, event string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "home", "activity.log"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.Contains(line, " "+event+" ") && strings.HasSuffix(line, " containment=token") {
			t.Skip("this machine offers no cgroup v2 delegated to this user (cairn's own cgroup must take new cgroups and its cgroup.procs be writable): a step's processes are found by their step token alone")
		}
	}
}

// sleepers maps the NAME of each $HOME/pid.NAME a step writes to the
// command line its process runs.
type sleepers map[string][]string

// escapeSleepers are those of escapeSteps.
var escapeSleepers = sleepers{"group": {"sleep", "1000"}, "session": {"sleep", "1001"}, "forked": {"sleep", "1002"}}

// running lists, by name, those of the sleepers of the step in dir that
// still run, with their pids.
func (s sleepers) running(dir string) map[string]int {
	out := map[string]int{}
	for name, argv := range s {
		b, err := os.ReadFile(filepath.Join(dir, "pid."+name))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			continue
		}
		// A zombie's command line reads empty: it is gone.
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err == nil && string(cmdline) == strings.Join(argv, "\x00")+"\x00" {
			out[name] = pid
		}
	}
	return out
}

// killAtEnd kills, once the test has ended, those of the sleepers of the
// step in dir that still run.
func (s sleepers) killAtEnd(t *testing.T, dir string) {
	t.Cleanup(func() {
		for _, pid := range s.running(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// await waits until none of the sleepers of the step in dir runs, failing
// after escapeWait.
func (s sleepers) await(t *testing.T, dir string) {
	t.Helper()
	for name := range s {
		if _, err := os.Stat(filepath.Join(dir, "pid."+name)); err != nil {
			t.Fatalf("the step did not start its sleeper %q: %v", name, err)
		}
	}
	deadline := time.Now().Add(escapeWait)
	for {
		left := s.running(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s on, these sleepers still run (name: pid): %v", escapeWait, left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cgroupGone checks that the step whose cgroup v2 $HOME/cgroup names (as
// /proc/self/cgroup does) ran in a cgroup cairn made for it, which is gone.
func cgroupGone(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cgroup"))
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimSpace(string(b))
	if !strings.HasPrefix(filepath.Base(path), "cairn-") {
		t.Fatalf("the step ran in cgroup %q, not one of cairn's", path)
	}
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(mountinfo), "\n") {
		head, tail, _ := strings.Cut(line, " - ")
		if f := strings.Fields(head); strings.HasPrefix(tail, "cgroup2 ") && len(f) >= 5 && f[3] == "/" {
			if _, err := os.Stat(filepath.Join(f[4], path)); !os.IsNotExist(err) {
				t.Errorf("the step's cgroup %s is still there (%v)", filepath.Join(f[4], path), err)
			}
			return
		}
	}
	t.Log("no cgroup2 file system is mounted at its root here: whether the cgroup is gone is not looked at")
}
