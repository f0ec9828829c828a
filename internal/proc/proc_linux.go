package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// setDeathSignal has the kernel SIGKILL the process when the thread that
// started it ends, which is when cairn ends: the thread is locked for the
// process's life (startLeader).
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// awaitExit blocks until the process pid has exited, without reaping it:
// while it is a zombie its process group id cannot be taken by another
// process, so that the group may still be signalled safely. It reports
// whether it could wait so.
func awaitExit(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err == nil
		}
	}
}

// bootID names this boot of this machine: a process recorded under another
// boot id is of another machine, or was ended by a reboot.
var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

// procStat reads a process's /proc/PID/stat: its process group, its start
// time (clock ticks after boot) and whether it is a zombie.
func procStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	// The command name, in parentheses, may hold spaces and parentheses
	// itself: the fields that follow start after the last ")".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 of proc(5), the state; f[2] field 5, the process
	// group; f[19] field 22, the start time.
	if len(f) < 20 {
		return procInfo{}, false
	}
	pgid, err1 := strconv.Atoi(f[2])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return procInfo{}, false
	}
	return procInfo{pid: pid, pgid: pgid, start: start, zombie: f[0] == "Z" || f[0] == "X"}, true
}

// procStart is the start time of the process pid, in clock ticks after
// boot; ok is false when there is no such process.
func procStart(pid int) (uint64, bool) {
	p, ok := procStat(pid)
	return p.start, ok && !p.zombie
}

// processes lists the live processes of the machine: every one /proc shows
// that is not a zombie, with the step tokens its environment carries when
// tokens is set (only this user's processes can be read so; the others have
// none).
func processes(tokens bool) []procInfo {
	var out []procInfo
	for _, pid := range pids() {
		p, ok := procStat(pid)
		if !ok || p.zombie {
			continue
		}
		if tokens {
			p.tokens = environToken(pid)
		}
		out = append(out, p)
	}
	return out
}

// carrying lists the processes whose environment carries token: a zombie's
// carries nothing any more.
func carrying(token string) []int {
	var out []int
	for _, pid := range pids() {
		if hasToken(environToken(pid), token) {
			out = append(out, pid)
		}
	}
	return out
}

// pids lists the processes /proc shows, but this one.
func pids() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	out := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil && pid != self {
			out = append(out, pid)
		}
	}
	return out
}

// environToken is the value of EnvStepToken in the environment the process
// pid started with, "" when it has none or cannot be read.
func environToken(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	prefix := []byte(EnvStepToken + "=")
	for len(b) > 0 {
		var kv []byte
		kv, b, _ = bytes.Cut(b, []byte{0})
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			return string(v)
		}
	}
	return ""
}
