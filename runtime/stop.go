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

// Stop asks the running run whose folder is dir to stop (docs/design.md
// §7.9): it sends its cairn SIGTERM, as Ctrl-C would, and that cairn
// starts nothing more, stops its steps and records the run interrupted.
// It returns the pid it signalled. Of a crashed run it ends what the run
// left running, saying so on stderr, and returns 0; a crashed run that
// left nothing running, a run that ended and one running on another host
// are refused.
func Stop(dir string, stderr io.Writer) (int, error) {
	name := filepath.Base(dir)
	rec, err := record.Load(dir)
	if err != nil {
		return 0, err
	}
	switch rec.Status {
	case record.StatusRunning:
	case record.StatusCrashed:
		if EndCrashed(stderr, name, dir) > 0 {
			return 0, nil
		}
		return 0, fmt.Errorf("run %q is not running: it crashed (its cairn is gone); \"cairn resume %s\" continues it", name, name)
	default:
		return 0, fmt.Errorf("run %q is not running: it ended %s", name, rec.Status)
	}
	if host, err := os.Hostname(); err == nil && rec.Host != "" && rec.Host != host {
		return 0, fmt.Errorf("run %q runs on %s; stop it there", name, rec.Host)
	}
	if rec.PID <= 0 {
		return 0, fmt.Errorf("run %q records no process to stop", name)
	}
	if err := proc.Terminate(rec.PID); err != nil {
		if errors.Is(err, proc.ErrNoProcess) {
			return 0, fmt.Errorf("run %q is not running: its cairn (pid %d) is gone", name, rec.PID)
		}
		return 0, fmt.Errorf("stop run %q (pid %d): %w", name, rec.PID, err)
	}
	return rec.PID, nil
}
