package proc

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn/internal/testwait"
)

func TestCgroupDir(t *testing.T) {
	t.Parallel()
	const unified = "25 19 0:22 / /sys/fs/cgroup/unified rw,nosuid shared:6 - cgroup2 cgroup2 rw\n"
	const v1 = "24 19 0:21 / /sys/fs/cgroup/memory rw shared:5 - cgroup cgroup rw,memory\n"
	for _, tc := range []struct {
		name, cgroup, mountinfo, want string
	}{
		{"unified", "0::/user.slice/app.scope\n", "30 1 0:26 / /sys/fs/cgroup rw shared:4 - cgroup2 cgroup2 rw\n", "/sys/fs/cgroup/user.slice/app.scope"},
		{"hybrid", "4:memory:/x\n0::/\n", v1 + unified, "/sys/fs/cgroup/unified"},
		{"bind mount of a subtree", "0::/docker/abc/step\n", "30 1 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "/sys/fs/cgroup/step"},
		{"the subtree's root", "0::/docker/abc\n", "30 1 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "/sys/fs/cgroup"},
		{"outside the mount", "0::/docker/abcd\n", "30 1 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", ""},
		{"escaped mount point", "0::/a\n", `30 1 0:26 / /mnt/cg\040v2 rw - cgroup2 none rw` + "\n", "/mnt/cg v2/a"},
		{"v1 only", "4:memory:/x\n", v1, ""},
		{"no cgroup2 mount", "0::/a\n", v1, ""},
		{"no line", "", unified, ""},
	} {
		if got := cgroupDir([]byte(tc.cgroup), []byte(tc.mountinfo)); got != tc.want {
			t.Errorf("%s: cgroupDir = %q; want %q", tc.name, got, tc.want)
		}
	}
}

func TestReleaseAtLeast(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		release string
		want    bool
	}{
		{"5.7.0", true}, {"5.6.19-generic", false}, {"6.1.0-13-amd64", true}, {"4.19.0", false},
		{"5.10", true}, {"5", false}, {"", false}, {"x.y", false},
	} {
		if got := releaseAtLeast(tc.release, 5, 7); got != tc.want {
			t.Errorf("releaseAtLeast(%q, 5, 7) = %v; want %v", tc.release, got, tc.want)
		}
	}
}

func TestUnescapeMount(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{`/a\040b`: "/a b", `/a\011\012\134`: "/a\t\n\\", `/a\0`: `/a\0`, `/a\9xx`: `/a\9xx`, "/plain": "/plain"} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q; want %q", in, got, want)
		}
	}
}

// needCgroups skips a test that needs a cgroup v2 this user may make
// cgroups in and move processes out of, where the machine offers none; it
// returns that cgroup's folder.
func needCgroups(t *testing.T) string {
	t.Helper()
	dir := findCgroups()
	if dir == "" {
		t.Skip("this machine offers no cgroup v2 delegated to this user (a cgroup made in cairn's own, whose cgroup.procs is writable, on Linux 5.7 or later)")
	}
	return dir
}

// TestProcCgroupEndsWhatDroppedToken holds that a process that dropped its
// step token and left its process group ends with the process that started
// it, where each runs in a cgroup of its own, which goes too.
func TestProcCgroupEndsWhatDroppedToken(t *testing.T) {
	t.Parallel()
	needCgroups(t)
	dir := t.TempDir()
	g := NewGroups(filepath.Join(dir, groupsFile))
	if g.Method() != MethodCgroup {
		t.Fatalf("Method = %q where findCgroups finds a cgroup; want %q", g.Method(), MethodCgroup)
	}
	t.Cleanup(func() { killAll(running("sleep", "3201")) })
	var out bytes.Buffer
	p := &Proc{
		Argv: []string{"bash", "-c", `env -u CAIRN_STEP_TOKEN setsid sleep 3201 </dev/null >/dev/null 2>&1 &
until [ "$(tr '\0' ' ' <"/proc/$!/cmdline")" = "sleep 3201 " ]; do sleep 0.01; done
sed -n 's/^0:://p' /proc/self/cgroup`},
		Stdout: &out,
		Groups: g,
		Env:    os.Environ(),
	}
	res, err := p.Run(context.Background())
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("got %+v, %v", res, err)
	}
	cgroup := filepath.Base(strings.TrimSpace(out.String()))
	if !strings.HasPrefix(cgroup, cgroupPrefix) || len(cgroup) != len(cgroupPrefix)+32 {
		t.Fatalf("the process ran in cgroup %q; want one of its own", out.String())
	}
	waitGone(t, "sleep", "3201")
	if _, err := os.Stat(filepath.Join(g.cgroups, cgroup)); !os.IsNotExist(err) {
		t.Errorf("the cgroup %s outlived the process: %v", cgroup, err)
	}
}

// inCgroup starts `bash -c script` in a session of its own, with no step
// token, in a new cgroup of the cgroups parent, which it returns: $1 is
// that cgroup, $2… args. It returns once a `sleep ARG` runs for each of
// args; they are killed at the test's end.
func inCgroup(t *testing.T, parent, script string, args ...string) string {
	t.Helper()
	dir := filepath.Join(parent, cgroupPrefix+newToken())
	f, err := newCgroup(dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{"-c", script, "bash", dir}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	intoCgroup(cmd.SysProcAttr, f)
	err = cmd.Start()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(reaped)
	}()
	t.Cleanup(func() {
		for _, a := range args {
			killAll(running("sleep", a))
		}
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		<-reaped
		_ = removeCgroup(dir)
	})
	for _, a := range args {
		if !testwait.Until(func() bool { return len(running("sleep", a)) > 0 }) {
			t.Fatalf("sleep %s did not start within %s", a, testwait.Patience)
		}
	}
	return dir
}

// nestedScript starts three sleeps, $2 to $4, the last in a cgroup under
// the script's own ($1), and waits.
const nestedScript = `setsid sleep "$2" & sleep "$3" & mkdir "$1/nested" && sh -c 'echo $$ >"$1/nested/cgroup.procs" && exec sleep "$2"' sh "$1" "$4" & wait`

// TestEndCgroup holds that ending a cgroup ends every process in it and
// in the cgroups under it, and removes them all, by cgroup.kill and by
// freezing and killing each.
func TestEndCgroup(t *testing.T) {
	t.Parallel()
	parent := needCgroups(t)
	for i, viaKill := range []bool{true, false} {
		t.Run("viaKill="+strconv.FormatBool(viaKill), func(t *testing.T) {
			t.Parallel()
			a := 3211 + 3*i
			args := []string{strconv.Itoa(a), strconv.Itoa(a + 1), strconv.Itoa(a + 2)}
			dir := inCgroup(t, parent, nestedScript, args...)
			if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); viaKill && err != nil {
				t.Skip("this kernel has no cgroup.kill (Linux 5.14)")
			}
			if err := endCgroup(dir, viaKill); err != nil {
				t.Fatal(err)
			}
			for _, arg := range args {
				if pids := running("sleep", arg); len(pids) > 0 {
					t.Errorf("sleep %s (pid %v) outlived its cgroup's end", arg, pids)
				}
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the cgroup is left: %v", err)
			}
		})
	}
}

// TestEndGroupsCgroup holds that EndGroups ends what a crashed run's group
// left in its recorded cgroup, processes without the token and out of the
// group included, and removes the cgroup; a recorded cgroup that is not
// the group's is left alone.
func TestEndGroupsCgroup(t *testing.T) {
	t.Parallel()
	parent := needCgroups(t)
	t.Run("crashed", func(t *testing.T) {
		t.Parallel()
		cg := inCgroup(t, parent, `setsid sleep 3221 & sleep 3222 & wait`, "3221", "3222")
		dir := t.TempDir()
		writeGroups(t, dir, Group{Token: strings.TrimPrefix(filepath.Base(cg), cgroupPrefix), Boot: bootID(), Cgroup: cg})
		n, err := EndGroups(filepath.Join(dir, groupsFile))
		if err != nil {
			t.Fatal(err)
		}
		if n < 3 {
			t.Errorf("EndGroups ended %d processes; want bash and both sleeps", n)
		}
		waitGone(t, "sleep", "3221")
		waitGone(t, "sleep", "3222")
		if _, err := os.Stat(cg); !os.IsNotExist(err) {
			t.Errorf("the cgroup is left: %v", err)
		}
	})
	t.Run("another token", func(t *testing.T) {
		t.Parallel()
		cg := inCgroup(t, parent, `sleep 3223 & wait`, "3223")
		dir := t.TempDir()
		writeGroups(t, dir, Group{Token: newToken(), Boot: bootID(), Cgroup: cg})
		if n, err := EndGroups(filepath.Join(dir, groupsFile)); err != nil || n != 0 {
			t.Fatalf("EndGroups = %d, %v; want nothing ended", n, err)
		}
		if len(running("sleep", "3223")) == 0 {
			t.Error("sleep 3223 was ended by a group whose token names another cgroup")
		}
	})
}

// TestRecordedCgroup holds that only a cgroup v2 folder named after its
// group's token is taken for the group's.
func TestRecordedCgroup(t *testing.T) {
	t.Parallel()
	token := newToken()
	notCgroup := filepath.Join(t.TempDir(), cgroupPrefix+token)
	if err := os.Mkdir(notCgroup, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir, token string
	}{
		{notCgroup, token},
		{cgroupPrefix + token, token},
		{"/sys/fs/cgroup/../fs/cgroup/" + cgroupPrefix + token, token},
		{"/sys/fs/cgroup", ""},
		{"/sys/fs/cgroup", token},
	} {
		if recordedCgroup(tc.dir, tc.token) {
			t.Errorf("recordedCgroup(%q, %q) = true", tc.dir, tc.token)
		}
	}
	if parent := findCgroups(); parent != "" {
		cg := filepath.Join(parent, cgroupPrefix+token)
		f, err := newCgroup(cg)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		defer removeCgroup(cg)
		if !recordedCgroup(cg, token) {
			t.Errorf("recordedCgroup(%q, %q) = false", cg, token)
		}
	}
}

// killAll sends SIGKILL to pids.
func killAll(pids []int) {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
