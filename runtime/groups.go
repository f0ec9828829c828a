package runtime

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/record"
)

// groupsFile is the file, in a run folder, of the process groups the run's
// steps have running (proc.Groups). A dot file, so that commit mode never
// commits it (ir.CairnFiles).
const groupsFile = ".groups.json"

// newGroups is the process groups of the run whose folder is dir, none yet.
func newGroups(dir string) *proc.Groups {
	return proc.NewGroups(filepath.Join(dir, groupsFile))
}

// EndOrphans ends what the crashed run whose folder is dir left running,
// and what its child runs left: each process group its record holds that is
// still the same group (its leader has the recorded start time, or one of
// its processes carries the group's token), every process carrying a
// recorded token, and every process in a recorded cgroup (which goes too),
// with SIGTERM, then SIGKILL after proc.DefaultGrace. It
// holds the run folder's lock meanwhile, so that it never ends the steps of
// a run that is running (or being resumed): such a run is left alone. It
// returns how many processes it ended.
func EndOrphans(dir string) (int, error) {
	return sweepRun(dir, false, map[string]bool{})
}

// endOrphans is EndOrphans for a caller that holds dir's lock.
func endOrphans(dir string) (int, error) {
	return sweepRun(dir, true, map[string]bool{})
}

// EndCrashed ends what the crashed run name, in dir, left running
// (EndOrphans), and says so on w, as it does of a failure to; it returns
// how many processes it ended. A crashed run's steps may have outlived it:
// they end before anything else is done with the run, and before a resume
// runs them again beside themselves.
func EndCrashed(w io.Writer, name, dir string) int {
	n, err := EndOrphans(dir)
	if err != nil {
		fmt.Fprintf(w, "cairn: warning: %v\n", err)
	}
	if n > 0 {
		fmt.Fprintln(w, OrphansLine(name, n))
	}
	return n
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
	if rec, err := record.Load(dir); err == nil {
		for _, s := range rec.Steps {
			for _, c := range s.Children {
				m, err := sweepRun(record.InRunFolder(dir, c), false, seen)
				n += m
				errs = append(errs, err)
			}
		}
	}
	return n, errors.Join(errs...)
}

// endGroupsLocked ends what is left of the groups in dir's groups file
// (proc.EndGroups) under dir's lock, taken unless locked says the caller
// holds it; a run whose lock another holds is running, and left alone.
func endGroupsLocked(dir string, locked bool) (int, error) {
	if !locked {
		lock, err := proc.Lock(filepath.Join(dir, record.LockFile), false)
		if errors.Is(err, proc.ErrWouldBlock) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("end what run %q left running: %w", filepath.Base(dir), err)
		}
		defer proc.Unlock(lock)
	}
	n, err := proc.EndGroups(filepath.Join(dir, groupsFile))
	if err != nil {
		return n, fmt.Errorf("end what run %q left running: %w", filepath.Base(dir), err)
	}
	return n, nil
}
