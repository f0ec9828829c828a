package catalogue

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/forge"
	"github.com/cairn-dev/cairn/record"
)

func TestTickets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       []string
	}{
		{"none", "A spec with no tasks.", nil},
		{"numbers", "## Tickets\n- [ ] #11\n- [ ] #12 Parser: handle empty input\n", []string{"#11", "#12"}},
		{"checked items are done", "- [x] #11\n- [X] #13\n- [ ] #12", []string{"#12"}},
		{"other bullets and nesting", "* [ ] #1\n+ [ ] #2\n  - [ ] #3\r\n", []string{"#1", "#2", "#3"}},
		{"urls", "- [ ] https://github.com/acme/widgets/issues/12.\n- [ ] https://github.com/evil/fork/issues/5",
			[]string{"https://github.com/acme/widgets/issues/12", "https://github.com/evil/fork/issues/5"}},
		{"items naming no issue", "- [ ] write the docs\n- [ ] 12\n- [ ] #x\n- [ ] https://github.com/acme/widgets/pull/3\n- #14\n[ ] #15", nil},
		{"each once", "- [ ] #11\n- [ ] #11, again", []string{"#11"}},
		{"fenced code", "```md\n- [ ] #20\n```\n~~~\n- [ ] #21\n```\n- [ ] #22\n~~~\n- [ ] #23", []string{"#23"}},
		{"first word only", "- [ ] see #30 and #31", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Tickets(tt.body); !slices.Equal(got, tt.want) {
				t.Errorf("Tickets(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

func TestPublishedURL(t *testing.T) {
	t.Parallel()
	const url = "https://github.com/acme/widgets/issues/10"
	tests := []struct {
		result, want, err string
	}{
		{url, url, ""},
		{"Published the spec.\n\n" + url + "\n\n", url, ""},
		{"Done.\nPublished: <" + url + ">.", url, ""},
		{"Done.\n`" + url + "`\r\n", url, ""},
		{url + "\nand that is all", "", `the last line of its result, "and that is all", is not an issue URL`},
		{"Published #10", "", `"Published #10", is not an issue URL`},
		{"https://github.com/acme/widgets/pull/10", "", "is not an issue URL"},
		{"  \n\n", "", "its result is empty"},
	}
	for _, tt := range tests {
		got, err := PublishedURL(tt.result)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("PublishedURL(%q): error %v, want one containing %q", tt.result, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("PublishedURL(%q): %v", tt.result, err)
		case got != tt.want:
			t.Errorf("PublishedURL(%q) = %q, want %q", tt.result, got, tt.want)
		}
	}
}

func TestCheckPublished(t *testing.T) {
	t.Parallel()
	began := time.Date(2026, 3, 1, 12, 0, 0, 500_000_000, time.UTC)
	issue := func(author, state string, created time.Time) *forge.Issue {
		return &forge.Issue{Number: 10, Author: author, State: state, CreatedAt: created, Trusted: []string{"alice", "Bob"}}
	}
	tests := []struct {
		name string
		is   *forge.Issue
		err  string
	}{
		{"published by the step", issue("alice", "OPEN", began.Add(time.Minute)), ""},
		{"in the second the step began", issue("bob", "OPEN", began.Truncate(time.Second)), ""},
		{"closed", issue("alice", "CLOSED", began.Add(time.Minute)), "it is closed, not open"},
		{"untrusted", issue("mallory", "OPEN", began.Add(time.Minute)), `opened by "mallory", who is not trusted`},
		{"deleted account", issue("", "OPEN", began.Add(time.Minute)), "opened by a deleted account"},
		{"older", issue("alice", "OPEN", began.Add(-time.Hour)), "it was created at 2026-03-01T11:00:00Z, before the step that published it began (2026-03-01T12:00:00Z)"},
	}
	for _, tt := range tests {
		err := CheckPublished(tt.is, began)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.err)
		}
	}
}

func TestNoteWriter(t *testing.T) {
	t.Parallel()
	var lines []string
	w := &noteWriter{progress: func(line string) { lines = append(lines, line) }, label: "[ticket #11]"}
	w.Write([]byte("12:00:01 start build (command, worktree a)\ncairn: warn"))
	w.Write([]byte("ing: x\n12:00:02 done build 1s\npartial"))
	w.flush()
	want := []string{
		"[ticket #11] start build (command, worktree a)",
		"[ticket #11] cairn: warning: x",
		"[ticket #11] done build 1s",
		"[ticket #11] partial",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("got %q\nwant %q", lines, want)
	}
}

func TestInconclusiveChildren(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	child := func(process string, status record.Status) string {
		f, err := record.NewFolder(filepath.Join(dir, ChildrenDir), process, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Begin(&record.Record{Process: process, Issue: "https://github.com/acme/widgets/issues/11", Status: status}); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(ChildrenDir, f.Name())
	}
	judged := child("ticket", record.StatusInconclusive)
	steps := []record.StepRecord{
		{Name: "publish"},
		{Name: "follow", Children: []string{child("spec", record.StatusSucceeded), judged, filepath.Join(ChildrenDir, "gone")}},
	}
	got := InconclusiveChildren("grill", dir, steps)
	want := []string{"cairn: inconclusive: process grill — step follow's child run " + filepath.Base(judged) +
		" (process ticket on issue https://github.com/acme/widgets/issues/11) ended inconclusive; the work is done and nothing judged it"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	steps[1].Children = steps[1].Children[:1]
	if got := InconclusiveChildren("grill", dir, steps); len(got) != 0 {
		t.Errorf("a succeeded child: got %q, want nothing", got)
	}
}
