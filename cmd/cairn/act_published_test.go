package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakegh"
)

// TestActPublishedDifferential runs golden/compile/published.toml's
// workflow under act, with the fakes and the fake gh, and holds it to
// `cairn run` of the process: the spec session publishes a spec issue, the
// step's jobs check it and call the workflow of its spec_process on it,
// which opens two tickets and lists them in it, then the workflow of its
// process on each ticket (a matrix of calls), each delivering a pull
// request; the step's job takes the child runs' folders. The two runs end
// alike (log, results, what they print), their child runs too, and they
// open the same pull requests. A published issue that is no spec runs
// the process on it alone; an issue created before the step that published
// it, a result that names none, and a spec listing a closed ticket fail
// the step with the same cause.
//
// A job failing inside a called workflow ends act's whole run (no job
// after the call runs, where GitHub runs them), so only child runs that
// succeed are held to cairn run's here; TestCompilePublishedDifferential
// holds the script's failures to it.
func TestActPublishedDifferential(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	file := filepath.Join(compileGoldenDir, "published.toml")
	issue10 := `cat >"$FAKE_GH_STATE/issues/10.json" <<JSON
{"number": 10, "title": "Export notes as PDF", "body": "Let users export their notes.", "author": "alice",
 "labels": [], "createdAt": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "comments": []}
JSON
`
	old := `cat >"$FAKE_GH_STATE/issues/10.json" <<JSON
{"number": 10, "title": "Export notes as PDF", "body": "Let users export their notes.", "author": "alice",
 "labels": ["spec"], "createdAt": "2026-01-01T00:00:00Z", "comments": []}
JSON
`
	closed := `now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cat >"$FAKE_GH_STATE/issues/11.json" <<JSON
{"number": 11, "title": "Ticket 11", "body": "Part of #10.", "author": "alice", "createdAt": "$now", "comments": []}
JSON
cat >"$FAKE_GH_STATE/issues/12.json" <<JSON
{"number": 12, "title": "Ticket 12", "body": "Part of #10.", "author": "alice", "state": "CLOSED", "createdAt": "$now", "comments": []}
JSON
cat >"$FAKE_GH_STATE/issues/10.json" <<JSON
{"number": 10, "title": "Export notes as PDF", "body": "- [ ] #11\n- [ ] #12", "author": "alice", "labels": ["Spec"], "createdAt": "$now", "comments": []}
JSON
`
	for _, tc := range []struct {
		name                string
		files               map[string]string
		code, children, prs int
	}{
		{"spec", nil, 0, 3, 2},
		{"no spec", map[string]string{"answers/claude.spec.do": issue10}, 0, 1, 1},
		// The step fails before any child run, or after the spec's alone.
		{"old issue", map[string]string{"answers/claude.spec.do": old}, 1, 0, 0},
		{"no url", map[string]string{"answers/claude.spec": "Published it."}, 1, 0, 0},
		{"closed ticket", map[string]string{"answers/claude.split.do": closed}, 1, 1, 0},
		// The sessions publish with gh: on Actions their job's gh records
		// what they ask, and a job after theirs does it.
		{"gh", publishedWithGH, 0, 3, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := dispatchEvent(t, "")
			actArgs := []string{"-e", path, "-s", "GITHUB_TOKEN=" + actGitHubToken, "-s", "CAIRN_PUSH_TOKEN=" + actPushToken, "--remote-name", "github"}
			code, a, b := actDifferentialIn(t, act, standIns, file, nil, tc.files, []string{"--jobs", "1"}, actArgs)
			if code != tc.code {
				t.Errorf("cairn run: exit %d; want %d", code, tc.code)
			}
			want := childRuns(t, filepath.Join(a.onlyRun(t), "children"))
			got := childRuns(t, filepath.Join(b.work, "artifacts", "cairn-run", "children"))
			if len(want) != tc.children || !slices.Equal(want, got) {
				t.Errorf("child runs: cairn run left\n%s\nthe workflow\n%s\nwant %d, the same", strings.Join(want, "\n"), strings.Join(got, "\n"), tc.children)
			}
			if pa, pb := a.pullRequests(t), b.pullRequests(t); !slices.Equal(pa, pb) || len(pb) != tc.prs {
				t.Errorf("pull requests: cairn run leaves %q, the workflow %q; want %d, the same", pa, pb, tc.prs)
			}
			if tc.name == "gh" {
				comparePublished(t, a, b)
			}
		})
	}
}

// comparePublished holds the issues the sessions of twin b's workflow
// published to those of twin a's cairn run: the spec, #8, and its tickets,
// #9 and #10, with the same titles, bodies (which name each other by their
// real numbers) and labels, and the split session's comment on the spec;
// cairn run's are by the account gh is logged in as, the workflow's by GitHub's bot, whose token only the publish jobs,
// which run no agent, held.
func comparePublished(t *testing.T, a, b *compileWork) {
	t.Helper()
	for n := 8; n <= 10; n++ {
		ia, err := fakegh.ReadIssue(filepath.Join(a.work, "gh"), n)
		if err != nil {
			t.Fatalf("cairn run: issue #%d: %v", n, err)
		}
		ib, err := fakegh.ReadIssue(filepath.Join(b.work, "gh"), n)
		if err != nil {
			t.Fatalf("the workflow: issue #%d: %v", n, err)
		}
		if ia.Title != ib.Title || ia.Body != ib.Body || !slices.Equal(ia.Labels, ib.Labels) {
			t.Errorf("issue #%d: cairn run published %q %q %q, the workflow %q %q %q", n, ia.Title, ia.Body, ia.Labels, ib.Title, ib.Body, ib.Labels)
		}
		if ia.Author != "alice" || ib.Author != fakegh.Bot {
			t.Errorf("issue #%d: opened by %q with cairn run, %q by the workflow; want alice and %s", n, ia.Author, ib.Author, fakegh.Bot)
		}
	}
	if spec, err := fakegh.ReadIssue(filepath.Join(b.work, "gh"), 8); err == nil && !strings.Contains(spec.Body, "- [ ] #9 Render\n- [ ] https://github.com/acme/widgets/issues/10 Download") {
		t.Errorf("the workflow's spec lists its tickets as %q", spec.Body)
	}
	// The split session's comment on the spec, with the title it read
	// with gh (in the workflow, with its job's token, which can read
	// alone) and the tickets' real numbers.
	for _, tw := range []struct {
		w      *compileWork
		author string
	}{{a, "alice"}, {b, fakegh.Bot}} {
		spec, err := fakegh.ReadIssue(filepath.Join(tw.w.work, "gh"), 8)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range spec.Comments {
			if c.Author == tw.author {
				got = append(got, c.Body)
			}
		}
		if want := []string{`Split "Export notes as PDF" into #9 and #10.`}; !slices.Equal(got, want) {
			t.Errorf("the spec's comments by %s: %q; want %q", tw.author, got, want)
		}
	}
}

// runStamp is the time a run's folder is named after, which differs
// between twins.
var runStamp = regexp.MustCompile(`_\d{4}-\d\d-\d\dT\d{6}Z(-\d+)?`)

// childRuns are the child runs in folder dir, each as its process, its
// issue, its status, and its log lines (sorted, without their durations),
// sorted by issue.
func childRuns(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Error(err)
		return nil
	}
	var runs []string
	for _, e := range entries {
		var r actRecord
		r.readRun(t, filepath.Join(dir, e.Name()))
		rec, err := os.ReadFile(filepath.Join(dir, e.Name(), "run.json"))
		if err != nil {
			t.Error(err)
			continue
		}
		var head struct {
			Process, Issue, Status string
		}
		if err := json.Unmarshal(rec, &head); err != nil {
			t.Error(err)
		}
		runs = append(runs, head.Issue+" "+head.Process+" "+head.Status+"\n"+runStamp.ReplaceAllString(strings.Join(r.log, "\n"), "_$$STAMP"))
	}
	slices.Sort(runs)
	return runs
}
