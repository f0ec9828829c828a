package runtime

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

	"github.com/cairn-dev/cairn/ir"
)

// EnvStepToken is the variable that marks every process a step starts, and
// all they start in turn: the tokens of the Procs it runs under, the
// outermost first, separated by spaces (a cairn run by a step adds its own).
// A process that left its step's process group (setsid) still carries it,
// so that it is ended with its step.
const EnvStepToken = "CAIRN_STEP_TOKEN"

// groupsFile is the file, in a run folder, of the process groups the run's
// steps have running (ProcGroup). A dot file, so that commit mode never
// commits it (ir.CairnFiles).
const groupsFile = ".groups.json"

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

// withToken is env (the process's own when nil, as exec takes it) with
// token added to the step tokens it carries.
func withToken(env []string, token string) []string {
	if env == nil {
		env = os.Environ()
	}
	value := token
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, EnvStepToken+"="); ok && v != "" {
			value = v + " " + token
		}
	}
	return mergeEnv(env, []ir.PlanEnv{{Name: EnvStepToken, Value: value}}, nil)
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

// Groups are the process groups a run's steps have running, kept in its
// run folder's groupsFile as they start and end, so that a later cairn
// finds what a crashed run left running (EndOrphans). A nil *Groups keeps
// nothing.
type Groups struct {
	path string

	mu   sync.Mutex
	live []*ProcGroup
	err  error
}

// newGroups is the process groups of the run whose folder is dir, none yet.
func newGroups(dir string) *Groups {
	return &Groups{path: filepath.Join(dir, groupsFile)}
}

// add records a group about to start, whose processes carry token, before
// it starts: a cairn killed at once after still finds its processes.
func (g *Groups) add(token string) *ProcGroup {
	if g == nil {
		return nil
	}
	e := &ProcGroup{Token: token, Boot: bootID()}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.live = append(g.live, e)
	g.write()
	return e
}

// started records that e's group started, led by the process pid.
func (g *Groups) started(e *ProcGroup, pid int) {
	if g == nil {
		return
	}
	start, _ := procStart(pid)
	g.mu.Lock()
	defer g.mu.Unlock()
	e.PGID, e.Start = pid, start
	g.write()
}

// remove forgets e's group, which has ended.
func (g *Groups) remove(e *ProcGroup) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.live = slices.DeleteFunc(g.live, func(x *ProcGroup) bool { return x == e })
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
		list := make([]ProcGroup, len(g.live))
		for i, e := range g.live {
			list[i] = *e
		}
		var b []byte
		if b, err = json.Marshal(list); err == nil {
			err = writeAtomic(g.path, append(b, '\n'))
		}
	}
	if err != nil && g.err == nil {
		g.err = fmt.Errorf("record the run's processes: %w", err)
	}
}

// EndOrphans ends what the crashed run whose folder is dir left running,
// and what its child runs left: each process group its record holds that is
// still the same group (its leader has the recorded start time, or one of
// its processes carries the group's token), and every process carrying a
// recorded token, with SIGTERM, then SIGKILL after DefaultGrace. It holds
// the run folder's lock meanwhile, so that it never ends the steps of a run
// that is running (or being resumed): such a run is left alone. It returns
// how many processes it ended.
func EndOrphans(dir string) (int, error) {
	return sweepRun(dir, false, map[string]bool{})
}

// endOrphans is EndOrphans for a caller that holds dir's lock.
func endOrphans(dir string) (int, error) {
	return sweepRun(dir, true, map[string]bool{})
}

// endCrashed ends what r left running when it is a crashed run
// (EndOrphans), for gc; a dry run ends nothing.
func endCrashed(r RunInfo, dryRun bool) error {
	if dryRun || r.Record == nil || r.Record.Status != StatusCrashed {
		return nil
	}
	_, err := EndOrphans(r.Dir)
	return err
}

// OrphansLine is the line that says EndOrphans ended n processes of the
// crashed run named run: "cairn: ended 2 processes crashed run X left
// running".
func OrphansLine(run string, n int) string {
	what := "1 process"
	if n != 1 {
		what = fmt.Sprintf("%d processes", n)
	}
	return fmt.Sprintf("cairn: ended %s crashed run %s left running", what, run)
}

// maxSwept bounds how many run folders one EndOrphans looks at: a record,
// which a repository may hold, can name any folders as its child runs.
const maxSwept = 1000

// sweepRun ends what the run at dir left running, then what its child
// runs left. locked says the caller holds dir's lock; seen holds the
// folders already swept, so that no record leads it round in circles.
func sweepRun(dir string, locked bool, seen map[string]bool) (int, error) {
	dir = filepath.Clean(dir)
	if seen[dir] || len(seen) >= maxSwept {
		return 0, nil
	}
	seen[dir] = true
	n := 0
	var errs []error
	// The lock is taken only where groups are recorded: a run folder
	// checked out of a commit has neither.
	if fi, err := os.Lstat(filepath.Join(dir, groupsFile)); err == nil && fi.Mode().IsRegular() {
		m, err := endGroupsLocked(dir, locked)
		n += m
		errs = append(errs, err)
	}
	if rec, err := Load(dir); err == nil {
		for _, s := range rec.Steps {
			for _, c := range s.Children {
				m, err := sweepRun(inRunFolder(dir, c), false, seen)
				n += m
				errs = append(errs, err)
			}
		}
	}
	return n, errors.Join(errs...)
}

// endGroupsLocked is endGroups under dir's lock, taken unless locked says
// the caller holds it; a run whose lock another holds is running, and left
// alone.
func endGroupsLocked(dir string, locked bool) (int, error) {
	if !locked {
		lock, err := lockPath(filepath.Join(dir, lockFile), false)
		if errors.Is(err, errWouldBlock) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("end what run %q left running: %w", filepath.Base(dir), err)
		}
		defer lock.Close()
	}
	return endGroups(dir)
}

// maxGroupsFile bounds the bytes read of a groups file.
const maxGroupsFile = 1 << 20

// endGroups ends what is left of the groups in dir's groups file, and
// removes the file. The caller holds dir's lock.
func endGroups(dir string) (int, error) {
	path := filepath.Join(dir, groupsFile)
	fail := func(err error) (int, error) {
		return 0, fmt.Errorf("end what run %q left running: read %s: %w", filepath.Base(dir), path, err)
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
	var recorded []ProcGroup
	if err := json.Unmarshal(b, &recorded); err != nil {
		return fail(err)
	}
	n := endRecorded(recorded, DefaultGrace)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return n, fmt.Errorf("end what run %q left running: %w", filepath.Base(dir), err)
	}
	return n, nil
}

// endRecorded ends what is left of the recorded groups on this machine
// (see EndOrphans): SIGTERM, then SIGKILL to what is still there after
// grace. It returns how many processes it found.
func endRecorded(recorded []ProcGroup, grace time.Duration) int {
	boot := bootID()
	var tokens []string
	var leaders []ProcGroup
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
	}
	if len(tokens) == 0 {
		return 0
	}
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
	left := func(ps []procInfo) []procInfo {
		var out []procInfo
		for _, p := range ps {
			if groups[p.pgid] || carries(p) {
				out = append(out, p)
			}
		}
		return out
	}
	found := left(ps)
	if len(found) == 0 {
		return 0
	}
	signal := func(ps []procInfo, sig syscall.Signal) {
		for pgid := range groups {
			_ = syscall.Kill(-pgid, sig)
		}
		for _, p := range ps {
			_ = syscall.Kill(p.pid, sig)
		}
	}
	gone := func(d time.Duration) []procInfo {
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

// killLeft kills what a step's process left when it ended: its process
// group, and every process carrying its token (those that left the group),
// until none is left or killWait has passed. The caller has not yet reaped
// the group's leader, so that the group id is still the group's.
func killLeft(pgid int, token string) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	deadline := time.Now().Add(killWait)
	for signalCarriers(token, syscall.SIGKILL) && time.Now().Before(deadline) {
		// A process killed a moment ago still carries the token until
		// it is gone; one it started before dying is found next time.
		time.Sleep(pollEvery)
	}
}
