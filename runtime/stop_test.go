package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/record"
)

// TestStopRefuses holds that stop signals nothing of a run that ended,
// nor of one whose cairn runs on another host (a pid no process has,
// lest a wrong answer stop the test).
func TestStopRefuses(t *testing.T) {
	t.Parallel()
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		rec  record.Record
		want string
	}{
		{record.Record{Process: "fix", Status: record.StatusFailed, PID: deadPID(t), Host: host}, "is not running: it ended failed"},
		{record.Record{Process: "fix", Status: record.StatusRunning, PID: deadPID(t), Host: host + ".elsewhere"}, "runs on " + host + ".elsewhere; stop it there"},
	} {
		folder, err := record.NewFolder(record.RunsDir(t.TempDir()), "fix", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := folder.Begin(&c.rec); err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		pid, err := Stop(folder.Dir, &stderr)
		folder.Close()
		want := "run \"" + filepath.Base(folder.Dir) + "\" " + c.want
		if pid != 0 || err == nil || err.Error() != want {
			t.Errorf("Stop of a %s run on %s = %d, %v; want the error %q", c.rec.Status, c.rec.Host, pid, err, want)
		}
	}
}
