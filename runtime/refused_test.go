package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// TestRefusedRuns holds that a run refused before its first step, whose
// folder is gone, is named in the activity log with its reason, and read
// back as refused, not skipped.
func TestRefusedRuns(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	o := Options{Home: home, Plan: &ir.Plan{Process: "fix"}, Repo: &git.Repo{CommonDir: "/r/.git"}}
	if err := refusedActivity(o, filepath.Join(home, "runs", "fix_1"), errors.New(`issue #42 is claimed by run "fix_0"`)); err != nil {
		t.Fatal(err)
	}
	refused, err := record.RefusedRuns(home, "/r/.git", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(refused) != 1 || refused[0].Process != "fix" || refused[0].Reason != `issue #42 is claimed by run "fix_0"` {
		t.Fatalf("got %+v", refused)
	}
	if skipped, err := record.SkippedRuns(home, "/r/.git", 5); err != nil || len(skipped) != 0 {
		t.Fatalf("a refused run read as skipped: %+v %v", skipped, err)
	}
	b, err := os.ReadFile(filepath.Join(home, record.ActivityFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := ` event=refused run=fix_1 process=fix repo=/r/.git reason="issue #42 is claimed by run \"fix_0\""` + "\n"; !strings.HasSuffix(string(b), want) {
		t.Errorf("got %q; want a line ending %q", b, want)
	}
}
