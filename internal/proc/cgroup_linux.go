package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// findCgroups is the cgroup v2 folder in which this cairn makes a cgroup
// for each group it starts: its own cgroup, when the kernel can start a
// process in another cgroup (clone3's CLONE_INTO_CGROUP, Linux 5.7), a
// cgroup can be made in it, and this user may move processes out of it
// (its cgroup.procs is writable: the cgroup is delegated to the user, or
// cairn runs as root). It is "" where the machine offers no such cgroup.
func findCgroups() string {
	if !kernelAtLeast(5, 7) {
		return ""
	}
	cgroup, err1 := os.ReadFile("/proc/self/cgroup")
	mountinfo, err2 := os.ReadFile("/proc/self/mountinfo")
	if err1 != nil || err2 != nil {
		return ""
	}
	dir := cgroupDir(cgroup, mountinfo)
	if dir == "" {
		return ""
	}
	// Starting a process in a cgroup moves it there from cairn's own, the
	// two cgroups' common parent: the kernel asks for write access to
	// that one's cgroup.procs.
	if unix.Faccessat(unix.AT_FDCWD, filepath.Join(dir, "cgroup.procs"), unix.W_OK, unix.AT_EACCESS) != nil {
		return ""
	}
	probe := filepath.Join(dir, cgroupPrefix+"probe-"+newToken())
	if unix.Mkdir(probe, 0o755) != nil {
		return ""
	}
	if unix.Rmdir(probe) != nil {
		return ""
	}
	return dir
}

// kernelAtLeast reports whether the running kernel's release is
// major.minor or later.
func kernelAtLeast(major, minor int) bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	return releaseAtLeast(unix.ByteSliceToString(u.Release[:]), major, minor)
}

// releaseAtLeast reports whether release, a kernel release such as
// "6.8.0-45-generic", is major.minor or later.
func releaseAtLeast(release string, major, minor int) bool {
	f := strings.FieldsFunc(release, func(r rune) bool { return r < '0' || r > '9' })
	if len(f) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(f[0])
	mi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// cgroupDir is the folder of the cgroup v2 that cgroup, the text of a
// /proc/PID/cgroup, names ("0::/user.slice/…"), where mountinfo, the text
// of a /proc/PID/mountinfo, says the cgroup2 file system is mounted; "" when
// it names none or no mount shows it.
func cgroupDir(cgroup, mountinfo []byte) string {
	path := ""
	for line := range strings.SplitSeq(string(cgroup), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path = p
			break
		}
	}
	if !strings.HasPrefix(path, "/") {
		return ""
	}
	for line := range strings.SplitSeq(string(mountinfo), "\n") {
		// ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL…] -
		// FSTYPE SOURCE SUPEROPTIONS (proc(5)); a space in a field is
		// written \040.
		head, tail, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		if t := strings.Fields(tail); len(t) == 0 || t[0] != "cgroup2" {
			continue
		}
		f := strings.Fields(head)
		if len(f) < 5 {
			continue
		}
		root, mount := unescapeMount(f[3]), unescapeMount(f[4])
		switch {
		case root == "/":
			return filepath.Join(mount, path)
		case path == root:
			return mount
		case strings.HasPrefix(path, root+"/"):
			return filepath.Join(mount, path[len(root):])
		}
	}
	return ""
}

// unescapeMount undoes mountinfo's escapes of a path: \040 for a space,
// \011, \012 and \134 for a tab, a newline and a backslash.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// newCgroup makes the cgroup dir and opens it, for a process to start in
// (intoCgroup).
func newCgroup(dir string) (*os.File, error) {
	if err := unix.Mkdir(dir, 0o755); err != nil {
		return nil, &fs.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		_ = unix.Rmdir(dir)
		return nil, err
	}
	return f, nil
}

// intoCgroup has the process a starts start in the cgroup open as f: it is
// in it from its first instruction, and so is all it starts.
func intoCgroup(a *syscall.SysProcAttr, f *os.File) {
	a.UseCgroupFD, a.CgroupFD = true, int(f.Fd())
}

// cgroupProcs lists the processes in the cgroup dir and the cgroups under
// it.
func cgroupProcs(dir string) []int {
	var out []int
	walkCgroups(dir, func(d string) {
		b, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			return
		}
		for f := range strings.FieldsSeq(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				out = append(out, pid)
			}
		}
	})
	return out
}

// walkCgroups calls visit for the cgroup dir and each cgroup under it, a
// cgroup after those under it.
func walkCgroups(dir string, visit func(string)) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			walkCgroups(filepath.Join(dir, e.Name()), visit)
		}
	}
	visit(dir)
}

// signalCgroup sends sig to every process in the cgroup dir and the
// cgroups under it, and returns them.
func signalCgroup(dir string, sig syscall.Signal) []int {
	pids := cgroupProcs(dir)
	for _, pid := range pids {
		_ = unix.Kill(pid, sig)
	}
	return pids
}

// killCgroup kills every process in the cgroup dir and the cgroups under
// it, waits until they are gone (killWait at most) and removes the
// cgroups. A cgroup that is gone already is no error.
func killCgroup(dir string) error {
	_, err := os.Stat(filepath.Join(dir, "cgroup.kill"))
	return endCgroup(dir, err == nil)
}

// endCgroup is killCgroup, by cgroup.kill when viaKill is set (Linux
// 5.14); else by freezing the cgroup, so that nothing in it starts more,
// and sending SIGKILL to each process it holds until none is left.
func endCgroup(dir string, viaKill bool) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var err error
	if viaKill {
		err = writeCgroup(dir, "cgroup.kill", "1")
	} else {
		err = freezeKill(dir)
	}
	if err != nil {
		return fmt.Errorf("kill the processes of cgroup %s: %w", dir, err)
	}
	if !awaitEmpty(dir, killWait) {
		return fmt.Errorf("cgroup %s still holds processes %v after SIGKILL", dir, cgroupProcs(dir))
	}
	return removeCgroup(dir)
}

// freezeKill freezes the cgroup dir (and those under it), SIGKILLs each
// process it holds until none is left or killWait has passed, and thaws
// it. A frozen process dies of SIGKILL all the same.
func freezeKill(dir string) error {
	if err := writeCgroup(dir, "cgroup.freeze", "1"); err != nil {
		return err
	}
	deadline := time.Now().Add(killWait)
	for len(signalCgroup(dir, syscall.SIGKILL)) > 0 && time.Now().Before(deadline) {
		// Freezing takes a moment: one that forked meanwhile is found
		// on the next look.
		time.Sleep(pollEvery)
	}
	return writeCgroup(dir, "cgroup.freeze", "0")
}

// writeCgroup writes value to the file name of the cgroup dir.
func writeCgroup(dir, name, value string) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// awaitEmpty waits until the cgroup dir and those under it hold no process
// (its cgroup.events says "populated 0", or it is gone), for d at most, and
// reports whether they do.
func awaitEmpty(dir string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
		if errors.Is(err, fs.ErrNotExist) || err == nil && bytes.Contains(b, []byte("populated 0\n")) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
}

// removeCgroup removes the cgroup dir and those under it (a cairn run by a
// step makes its own there), which hold no process. One that is gone
// already is no error.
func removeCgroup(dir string) error {
	var errs []error
	walkCgroups(dir, func(d string) {
		if err := unix.Rmdir(d); err != nil && err != unix.ENOENT {
			errs = append(errs, &fs.PathError{Op: "remove cgroup", Path: d, Err: err})
		}
	})
	return errors.Join(errs...)
}

// recordedCgroup reports whether dir, a Group's recorded Cgroup, is a
// cgroup cairn made for the group of token: an absolute, clean path named
// cgroupPrefix+token, a folder of the cgroup2 file system. A groups file a
// repository holds can name any path: only such a folder is killed.
func recordedCgroup(dir, token string) bool {
	if token == "" || !filepath.IsAbs(dir) || filepath.Clean(dir) != dir || filepath.Base(dir) != cgroupPrefix+token {
		return false
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC
}
