package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/testrepo"
	"github.com/cairn-dev/cairn/record"
)

// resumable makes a run of fix.toml, in a repository of its own, that
// ended with status under flags and directive "first": it returns the
// run's folder, the repository's root and the process file's bytes.
func resumable(t *testing.T, status record.Status, flags record.RecordFlags) (dir, root string, src []byte) {
	t.Helper()
	root, common := testrepo.New(t)
	file := filepath.Join(root, "fix.toml")
	src = []byte("[process]\nname = \"fix\"\n")
	testrepo.Write(t, file, string(src))
	sum := sha256.Sum256(src)
	folder, err := record.NewFolder(record.RunsDir(t.TempDir()), "fix", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	err = folder.Begin(&record.Record{Process: "fix", File: file, SHA256: hex.EncodeToString(sum[:]), Repo: common,
		Status: status, Flags: flags, Directive: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if err := folder.Close(); err != nil {
		t.Fatal(err)
	}
	return folder.Dir, root, src
}

// TestPrepareResume holds what a resume does with a run, by its record:
// nothing with a succeeded one, and a failed one goes on with the flags it
// was started with, which the resume's may only tighten, once its process
// file is found unchanged in the repository it ran in.
func TestPrepareResume(t *testing.T) {
	t.Parallel()
	g := git.New(os.Environ())
	started := record.RecordFlags{Access: "write", Budget: 5, Jobs: 2}
	ask := func(dir, workDir string, access string, budget float64, directive *string) (*Resumption, error) {
		var stderr strings.Builder
		return PrepareResume(context.Background(), ResumeRequest{Dir: dir, WorkDir: workDir, Git: g,
			Access: access, Budget: budget, Directive: directive, Stderr: &stderr})
	}

	dir, root, src := resumable(t, record.StatusFailed, started)
	res, err := ask(dir, root, "read", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Done || res.Name != filepath.Base(dir) || string(res.Source) != string(src) || res.Directive != "first" {
		t.Errorf("resume of a failed run = %+v", res)
	}
	if f := res.Flags; f.Access != "read" || f.Budget != 2 || f.Jobs != 2 {
		t.Errorf("flags tightened to read and $2 = %+v", f)
	}
	again := "again"
	res, err = ask(dir, filepath.Join(root, "src"), "full", 9, &again)
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Flags; f.Access != "write" || f.Budget != 5 || res.Directive != "again" {
		t.Errorf("flags raised to full and $9, directive %q: %+v", res.Directive, f)
	}

	_, other, _ := resumable(t, record.StatusFailed, started)
	if _, err := ask(dir, other, "", 0, nil); err == nil || !strings.Contains(err.Error(), "ran in the repository at ") {
		t.Errorf("resume from another repository: %v", err)
	}
	testrepo.Write(t, filepath.Join(root, "fix.toml"), "[process]\nname = \"fix2\"\n")
	if _, err := ask(dir, root, "", 0, nil); err == nil || !strings.Contains(err.Error(), "changed since the run started; nothing was resumed") {
		t.Errorf("resume of a changed process file: %v", err)
	}

	done, root, _ := resumable(t, record.StatusSucceeded, started)
	res, err = ask(done, root, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "cairn: run " + filepath.Base(done) + " succeeded; nothing to resume"; !res.Done || len(res.Lines) != 1 || res.Lines[0] != want {
		t.Errorf("resume of a succeeded run = %+v; want it done, saying %q", res, want)
	}
}

func TestTighter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ started, now, want string }{
		{"", "", ""}, {"", "read", "read"}, {"write", "", "write"},
		{"write", "read", "read"}, {"write", "full", "write"},
	} {
		if got := tighterAccess(c.started, c.now); got != c.want {
			t.Errorf("tighterAccess(%q, %q) = %q; want %q", c.started, c.now, got, c.want)
		}
	}
	for _, c := range []struct{ started, now, want float64 }{
		{0, 0, 0}, {0, 3, 3}, {5, 0, 5}, {5, 3, 3}, {5, 9, 5},
	} {
		if got := tighterBudget(c.started, c.now); got != c.want {
			t.Errorf("tighterBudget(%v, %v) = %v; want %v", c.started, c.now, got, c.want)
		}
	}
}
