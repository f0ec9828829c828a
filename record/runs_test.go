package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeRun writes a finished run folder by hand, as an old run left it.
func writeRun(t *testing.T, home, name, repo string, start time.Time) string {
	t.Helper()
	dir := filepath.Join(RunsDir(home), name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	rec := testRecord()
	rec.Repo, rec.Start, rec.Status = repo, start, StatusSucceeded
	process, _, _ := strings.Cut(name, "_")
	rec.Process = process
	f := &Folder{Dir: dir}
	f.rec = rec.Clone()
	f.events, _ = os.Create(filepath.Join(dir, EventsFile))
	defer f.events.Close()
	if err := f.snapshot(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestListAndFindRuns(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	day := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	writeRun(t, home, "hunt_2026-01-02T030405Z", "/r/.git", day)
	writeRun(t, home, "hunt_2026-01-02T030405Z-2", "/r/.git", day)
	writeRun(t, home, "lint_2026-01-03T000000Z", "/r/.git", day.Add(21*time.Hour))
	writeRun(t, home, "fix_2026-01-04T000000Z", "/other/.git", day.Add(45*time.Hour))
	if err := os.MkdirAll(filepath.Join(RunsDir(home), "junk"), 0o700); err != nil {
		t.Fatal(err)
	}

	runs, err := ListRuns(home)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range runs {
		names = append(names, r.Name)
		if (r.Record == nil) != (r.Name == "junk") || (r.Err != nil) != (r.Name == "junk") {
			t.Errorf("%s: record %v, error %v", r.Name, r.Record != nil, r.Err)
		}
	}
	want := "fix_2026-01-04T000000Z lint_2026-01-03T000000Z hunt_2026-01-02T030405Z-2 hunt_2026-01-02T030405Z junk"
	if strings.Join(names, " ") != want {
		t.Fatalf("order:\n got %s\nwant %s", strings.Join(names, " "), want)
	}

	for _, c := range []struct {
		repo, arg, want, err string
	}{
		{"/r/.git", "", "lint_2026-01-03T000000Z", ""},
		{"/other/.git", "", "fix_2026-01-04T000000Z", ""},
		{"", "", "fix_2026-01-04T000000Z", ""},
		{"/none/.git", "", "", "no runs of this repository"},
		{"/r/.git", "li", "lint_2026-01-03T000000Z", ""},
		{"/r/.git", "fix", "fix_2026-01-04T000000Z", ""},
		{"/r/.git", "hunt_2026-01-02T030405Z", "hunt_2026-01-02T030405Z", ""},
		{"/r/.git", "hunt_2026-01-02T030405Z-", "hunt_2026-01-02T030405Z-2", ""},
		{"/r/.git", "hunt", "", `"hunt" names 2 runs: hunt_2026-01-02T030405Z-2, hunt_2026-01-02T030405Z; give more of the name`},
		{"/r/.git", "nope", "", `no run "nope"`},
	} {
		dir, err := FindRun(home, "", c.repo, c.arg)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("FindRun(%q, %q) = %q, %v; want error %q", c.repo, c.arg, dir, err, c.err)
			}
		case err != nil || filepath.Base(dir) != c.want || !filepath.IsAbs(dir):
			t.Errorf("FindRun(%q, %q) = %q, %v; want %s", c.repo, c.arg, dir, err, c.want)
		}
	}
	if _, err := FindRun(t.TempDir(), "", "", ""); err == nil || !strings.Contains(err.Error(), "no runs in") {
		t.Errorf("empty home: %v", err)
	}
	dir, err := FindRun(home, "", "", filepath.Join(RunsDir(home), "lint_2026-01-03T000000Z"))
	if err != nil || filepath.Base(dir) != "lint_2026-01-03T000000Z" {
		t.Errorf("by path: %q %v", dir, err)
	}
}

// TestStatusRuns holds that status lists the runs of one repository,
// newest first, up to its limit.
func TestStatusRuns(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	day := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 4 {
		writeRun(t, home, "hunt_2026-01-02T03040"+string(rune('0'+i))+"Z", "/r/.git", day.Add(time.Duration(i)*time.Second))
	}
	writeRun(t, home, "fix_2026-01-04T000000Z", "/other/.git", day.Add(45*time.Hour))
	l, err := StatusRuns(home, StatusOptions{Repo: "/r/.git", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Folders) != 2 || l.Repo != "/r/.git" || l.Folders[0].Name != "hunt_2026-01-02T030403Z" || len(l.Folders[0].Record.Steps) != 3 ||
		l.Folders[1].Name != "hunt_2026-01-02T030402Z" {
		t.Fatalf("got %+v", l.Folders)
	}
}

// TestListRunsSkipsStarting holds that a folder whose cairn has not written
// its record yet is not listed as unreadable.
func TestListRunsSkipsStarting(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	f, err := NewFolder(RunsDir(home), "hunt", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runs, err := ListRuns(home)
	if err != nil || len(runs) != 0 {
		t.Fatalf("got %+v %v", runs, err)
	}
	if err := f.Begin(testRecord()); err != nil {
		t.Fatal(err)
	}
	runs, err = ListRuns(home)
	if err != nil || len(runs) != 1 || runs[0].Record == nil || runs[0].Record.Status != StatusRunning {
		t.Fatalf("got %+v %v", runs, err)
	}
}

// A runs folder that is another's under a second name (a link to it, as a
// repository may commit) lists each run once.
func TestListRunsOnceThroughALink(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	day := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	writeRun(t, home, "hunt_2026-01-02T030405Z", "/r/.git", day)
	writeRun(t, home, "hunt_2026-01-03T030405Z", "/r/.git", day.Add(24*time.Hour))
	link := filepath.Join(t.TempDir(), "runs")
	if err := os.Symlink(RunsDir(home), link); err != nil {
		t.Fatal(err)
	}
	runs, err := ListRuns(home, link)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Errorf("listed %d runs, want 2: %+v", len(runs), runs)
	}
}

// TestFailureOf holds that a failed run's failure is its first failed step
// that is not optional, else the run's own cause.
func TestFailureOf(t *testing.T) {
	t.Parallel()
	step := func(name string, o Outcome, optional bool, cause string) StepRecord {
		return StepRecord{Name: name, Outcome: o, Optional: optional, Cause: cause}
	}
	for _, c := range []struct {
		name string
		rec  Record
		want string
	}{
		{"optional first", Record{Steps: []StepRecord{
			step("lint", Failed, true, "exit status 2"), step("test", Failed, false, "exit status 3"), step("later", Cancelled, false, ""),
		}}, "test: exit status 3"},
		{"optional only", Record{Steps: []StepRecord{step("lint", Failed, true, "exit status 2"), step("after", Succeeded, false, "")}}, ""},
		{"refused", Record{Cause: "dirty checkout", Steps: []StepRecord{step("a", Cancelled, false, "")}}, ": dirty checkout"},
		{"no cause", Record{Steps: []StepRecord{step("a", Failed, false, "")}}, "a: "},
	} {
		got := ""
		if f := FailureOf(&c.rec); f != nil {
			got = f.Step + ": " + f.Cause
		}
		if got != c.want {
			t.Errorf("%s: failure %q; want %q", c.name, got, c.want)
		}
	}
}
