//go:build unix

package proc

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/internal/atomicfile"
)

// EnvStepToken is the variable that marks every process a step starts, and
// all they start in turn: the tokens of the Procs it runs under, the
// outermost first, separated by spaces (a cairn run by a step adds its own).
// A process that left its step's process group (setsid) still carries it,
// so that it is ended with its step.
const EnvStepToken = "CAIRN_STEP_TOKEN"

// BootID names this boot of this machine: a Group recorded under another
// is of another machine, or was ended by a reboot. It is "" where it is
// unknown.
func BootID() string { return bootID() }

// killWait bounds how long cairn waits for killed processes to be gone.
const killWait = 2 * time.Second

// pollEvery is how often cairn looks again whether processes it signalled
// are gone.
const pollEvery = 10 * time.Millisecond

// newToken is a fresh step token: 128 random bits, in hex.
func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// withToken is env with token added to the step tokens it carries.
func withToken(env []string, token string) []string {
	value := token
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, EnvStepToken+"="); ok && v != "" {
			value = v + " " + token
		}
	}
	return MergeEnv(env, []string{EnvStepToken + "=" + value}, nil)
}

// hasToken reports whether tokens, a value of EnvStepToken, holds token.
func hasToken(tokens, token string) bool {
	return token != "" && slices.Contains(strings.Fields(tokens), token)
}

// procInfo is one process of the machine: its id, its process group, its
// start time (clock ticks after boot), whether it is a zombie, and the
// value of EnvStepToken it started with ("" unless asked for).
type procInfo struct {
	pid, pgid int
	start     uint64
	zombie    bool
	tokens    string
}

// Group is one process group a step has running, as a Groups file keeps
// it: enough for a later cairn to end what is left of it when the run
// crashed, and to know it is the same group. Token is the step token every
// process of the group inherits (EnvStepToken), which also finds those that
// left the group (setsid); PGID and Start (the leader's start time, clock
// ticks after boot) are zero until the group has started; Boot is the boot
// id of the machine it runs on (BootID). Cgroup is the cgroup v2 folder the
// group runs in, which holds every process it starts, those that dropped
// the token too; "" when it runs in none (MethodToken).
type Group struct {
	Token  string `json:"token"`
	PGID   int    `json:"pgid"`
	Start  uint64 `json:"start"`
	Boot   string `json:"boot"`
	Cgroup string `json:"cgroup,omitempty"`
}

// How a run's groups are found to be ended (Groups.Method).
const (
	// MethodCgroup: each group runs in a cgroup of its own, which holds
	// every process it starts, wherever it goes and whatever its
	// environment.
	MethodCgroup = "cgroup"
	// MethodToken: a group's processes are found by their process group
	// and their step token (EnvStepToken) alone; one that left the group
	// and dropped the token escapes.
	MethodToken = "token"
)

// cgroupPrefix starts the name of the cgroup of a group, cgroupPrefix and
// its token.
const cgroupPrefix = "cairn-"

// Groups are the process groups a run's steps have running, kept in a file
// as they start and end, so that a later cairn finds what a crashed run
// left running (EndGroups). A nil *Groups keeps nothing, and its groups run
// in no cgroup.
type Groups struct {
	path string
	// cgroups is the cgroup v2 folder in which each group gets a cgroup
	// of its own, "" where the machine offers none (MethodToken).
	cgroups string

	mu   sync.Mutex
	live []*Group
	err  error
}

// NewGroups is the process groups kept in the file at path, none yet. It
// looks once whether the machine offers a cgroup v2 in which each group may
// run in a cgroup of its own: cairn's own cgroup, when this user may make
// cgroups in it and move processes out of it (Linux 5.7 or later).
func NewGroups(path string) *Groups {
	return &Groups{path: path, cgroups: findCgroups()}
}

// Method is how the groups' processes are found to be ended: MethodCgroup
// when each group runs in a cgroup of its own, else MethodToken. A group
// whose cgroup could not be made runs in none (its Cgroup is "").
func (g *Groups) Method() string {
	if g == nil || g.cgroups == "" {
		return MethodToken
	}
	return MethodCgroup
}

// add records a group about to start, whose processes carry token, before
// it starts: a cairn killed at once after still finds its processes. The
// group's cgroup, where the groups have them, is recorded before it is
// made.
func (g *Groups) add(token string) *Group {
	if g == nil {
		return nil
	}
	e := &Group{Token: token, Boot: bootID()}
	if g.cgroups != "" {
		e.Cgroup = filepath.Join(g.cgroups, cgroupPrefix+token)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.live = append(g.live, e)
	g.write()
	return e
}

// cgroup is the cgroup e's group is to run in, "" for none.
func (g *Groups) cgroup(e *Group) string {
	if g == nil {
		return ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return e.Cgroup
}

// started records that e's group started, led by the process pid, in
// the cgroup cgroup ("" for none).
func (g *Groups) started(e *Group, pid int, cgroup string) {
	if g == nil {
		return
	}
	start, _ := procStart(pid)
	g.mu.Lock()
	defer g.mu.Unlock()
	e.PGID, e.Start, e.Cgroup = pid, start, cgroup
	g.write()
}

// remove forgets e's group, which has ended.
func (g *Groups) remove(e *Group) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.live = slices.DeleteFunc(g.live, func(x *Group) bool { return x == e })
	g.write()
}

// Err is the first error keeping the groups' file, nil when there was none.
func (g *Groups) Err() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// write rewrites the file with the groups live now, or removes it when
// there is none. The caller holds g.mu.
func (g *Groups) write() {
	var err error
	if len(g.live) == 0 {
		if err = os.Remove(g.path); errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	} else {
		list := make([]Group, len(g.live))
		for i, e := range g.live {
			list[i] = *e
		}
		var b []byte
		if b, err = json.Marshal(list); err == nil {
			err = atomicfile.Write(g.path, append(b, '\n'))
		}
	}
	if err != nil && g.err == nil {
		g.err = fmt.Errorf("record the run's processes: %w", err)
	}
}

// maxGroupsFile bounds the bytes read of a groups file.
const maxGroupsFile = 1 << 20

// EndGroups ends what is left on this machine of the groups the Groups file
// at path holds, and removes the file: each group that is still the same
// group (its leader has the recorded start time, or one of its processes
// carries the group's token), every process carrying a recorded token, and
// every process in a recorded cgroup, with SIGTERM, then SIGKILL after
// DefaultGrace; the recorded cgroups are removed. It returns how many
// processes it ended. The caller makes sure that the run that wrote the
// file is not running.
func EndGroups(path string) (int, error) {
	fail := func(err error) (int, error) {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	// Only a regular file of cairn's own is read: never through a
	// symlink, never a FIFO or a device a repository put there.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fail(errors.New("not a regular file"))
	}
	b, err := io.ReadAll(io.LimitReader(f, maxGroupsFile+1))
	if err != nil {
		return fail(err)
	}
	if len(b) > maxGroupsFile {
		return fail(fmt.Errorf("larger than %d bytes", maxGroupsFile))
	}
	var recorded []Group
	if err := json.Unmarshal(b, &recorded); err != nil {
		return fail(err)
	}
	n := endRecorded(recorded, DefaultGrace)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return n, err
	}
	return n, nil
}

// endRecorded ends what is left of the recorded groups on this machine
// (see EndGroups): SIGTERM, then SIGKILL to what is still there after
// grace, and removes their cgroups. It returns how many processes it found.
func endRecorded(recorded []Group, grace time.Duration) int {
	boot := bootID()
	var tokens, cgroups []string
	var leaders []Group
	for _, e := range recorded {
		if e.Token == "" || e.Boot != boot {
			// Another machine's, or a reboot's since: nothing of it
			// runs here.
			continue
		}
		tokens = append(tokens, e.Token)
		if e.PGID > 0 {
			leaders = append(leaders, e)
		}
		if e.Cgroup != "" && recordedCgroup(e.Cgroup, e.Token) {
			cgroups = append(cgroups, e.Cgroup)
		}
	}
	if len(tokens) == 0 {
		return 0
	}
	defer func() {
		// What the kill left of the cgroups (they held nothing, or
		// SIGTERM ended all they held) goes.
		for _, cg := range cgroups {
			_ = removeCgroup(cg)
		}
	}()
	carries := func(p procInfo) bool {
		return slices.ContainsFunc(tokens, func(t string) bool { return hasToken(p.tokens, t) })
	}
	// A group is still the recorded one while its leader has the recorded
	// start time, or while one of its processes carries its token: a
	// group id is not given again while a process of the group lives.
	ps := processes(true)
	groups := map[int]bool{}
	for _, e := range leaders {
		for _, p := range ps {
			if (p.pid == e.PGID && p.start == e.Start) || (p.pgid == e.PGID && hasToken(p.tokens, e.Token)) {
				groups[e.PGID] = true
				break
			}
		}
	}
	// left lists the processes of the groups, those carrying a token and
	// those in a cgroup.
	left := func(ps []procInfo) []int {
		var out []int
		for _, p := range ps {
			if groups[p.pgid] || carries(p) {
				out = append(out, p.pid)
			}
		}
		for _, cg := range cgroups {
			out = append(out, cgroupProcs(cg)...)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	found := left(ps)
	if len(found) == 0 {
		return 0
	}
	signal := func(pids []int, sig syscall.Signal) {
		for pgid := range groups {
			_ = syscall.Kill(-pgid, sig)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, sig)
		}
	}
	gone := func(d time.Duration) []int {
		deadline := time.Now().Add(d)
		for {
			l := left(processes(true))
			if len(l) == 0 || time.Now().After(deadline) {
				return l
			}
			time.Sleep(pollEvery)
		}
	}
	signal(found, syscall.SIGTERM)
	if l := gone(grace); len(l) > 0 {
		for _, cg := range cgroups {
			_ = killCgroup(cg)
		}
		signal(l, syscall.SIGKILL)
		gone(killWait)
	}
	return len(found)
}

// signalCarriers sends sig to every process that carries token, and
// reports whether there was one.
func signalCarriers(token string, sig syscall.Signal) bool {
	pids := carrying(token)
	for _, pid := range pids {
		_ = syscall.Kill(pid, sig)
	}
	return len(pids) > 0
}

// killLeft kills what a step's process left when it ended: all its cgroup
// holds (then removed), when it ran in one (cgroup is not ""), its process
// group, and every process carrying its token (those that left the group),
// until none is left or killWait has passed. The caller has not yet reaped
// the group's leader, so that the group id is still the group's.
func killLeft(pgid int, token, cgroup string) {
	if cgroup != "" {
		_ = killCgroup(cgroup)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	deadline := time.Now().Add(killWait)
	for signalCarriers(token, syscall.SIGKILL) && time.Now().Before(deadline) {
		// A process killed a moment ago still carries the token until
		// it is gone; one it started before dying is found next time.
		time.Sleep(pollEvery)
	}
}
