package runtime

import (
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/record"
)

// refusedActivity writes the activity line of a run of o refused with err
// before its first step, which left no record to say why: its run folder
// dir ("" when none was made) is gone or was never made.
func refusedActivity(o Options, dir string, err error) error {
	fields := []string{"event=refused"}
	if dir != "" {
		fields = append(fields, "run="+filepath.Base(dir))
	}
	fields = append(fields, "process="+o.Plan.Process, "repo="+o.Repo.CommonDir, "reason="+err.Error())
	return record.Activity(o.Home, fields...)
}

// recorded reports whether the run folder dir holds a run record.
func recorded(dir string) bool {
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, record.RecordFile))
	return err == nil
}
