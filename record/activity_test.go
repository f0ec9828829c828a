package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLogfmtValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"", "-"},
		{"plain", "plain"},
		{"a/b.toml", "a/b.toml"},
		{"exit status 3", `"exit status 3"`},
		{`say "hi"`, `"say \"hi\""`},
		{"a=b", `"a=b"`},
		{"two\nlines", `"two\nlines"`},
		{`back\slash`, `"back\\slash"`},
		{"tab\there", `"tab\there"`},
		{"Not logged in · Please run /login", `"Not logged in · Please run /login"`},
		{"né", "né"},
	} {
		got := logfmtValue(c.in)
		if got != c.want {
			t.Errorf("logfmtValue(%q) = %s, want %s", c.in, got, c.want)
		}
		if back := parseLogfmt("k=" + got)["k"]; back != c.in {
			t.Errorf("parseLogfmt(k=%s) = %q, want %q", got, back, c.in)
		}
	}
}

func TestParseLogfmt(t *testing.T) {
	t.Parallel()
	got := parseLogfmt(`step=a kind=command cause="exit status 3" harness=- outcome=failed`)
	want := map[string]string{"step": "a", "kind": "command", "cause": "exit status 3", "harness": "", "outcome": "failed"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
}

func TestActivity(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, fields := range [][]string{
		{"event=start", "run=hunt_1", "process=hunt", "repo=/r/.git"},
		{"event=skipped", "process=hunt", "repo=/r/.git", "reason=another pass is running (run hunt_1)"},
		{"event=skipped", "process=lint", "repo=/other/.git", "reason=another pass is running (run lint_1)"},
		{"event=end", "run=hunt_1", "status=succeeded"},
	} {
		if err := Activity(home, fields...); err != nil {
			t.Fatal(err)
		}
	}
	if err := Activity(home, "event"); err == nil {
		t.Fatal("a field without = was taken")
	}
	b, err := os.ReadFile(filepath.Join(home, ActivityFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %d lines:\n%s", len(lines), b)
	}
	stamp, rest, _ := strings.Cut(lines[1], " ")
	if _, err := time.Parse(time.RFC3339, stamp); err != nil {
		t.Errorf("line starts with %q: %v", stamp, err)
	}
	if want := `event=skipped process=hunt repo=/r/.git reason="another pass is running (run hunt_1)"`; rest != want {
		t.Errorf("got  %s\nwant %s", rest, want)
	}

	skipped, err := SkippedRuns(home, "/r/.git", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 1 || skipped[0].Process != "hunt" || skipped[0].Reason != "another pass is running (run hunt_1)" {
		t.Fatalf("got %+v", skipped)
	}
	all, err := SkippedRuns(home, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Process != "lint" {
		t.Fatalf("the last one of all: got %+v", all)
	}
	if none, err := SkippedRuns(t.TempDir(), "", 5); err != nil || len(none) != 0 {
		t.Fatalf("no log: %v %v", none, err)
	}
}
