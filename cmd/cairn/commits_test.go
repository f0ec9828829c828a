package main

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/cairn-dev/cairn/record"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["consistent-commits"] = consistentCommits
}

// consistentCommits is the script command "consistent-commits [REV]": it
// checks out, in thought, every commit reachable from REV (default HEAD)
// that holds a commit-mode run folder, and fails unless each one's run.json
// agrees with its tree (docs/design.md §7.6: rewinding to any commit gives a consistent
// state): the record parses; every step's git_ref is that commit or one of
// its ancestors (a commit of the branch, for a step there); every step with a result names a file the commit holds;
// no step that has not started has a result; and the last commit of a run
// records it ended.
func consistentCommits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: consistent-commits [REV]")
	}
	rev := "HEAD"
	if len(args) == 1 {
		rev = args[0]
	}
	git := func(args ...string) (string, error) {
		err := ts.Exec("git", args...)
		return ts.ReadFile("stdout"), err
	}
	list, err := git("rev-list", "--reverse", rev)
	ts.Check(err)
	// lastOf is the last commit holding each run's record, by run folder.
	lastOf := map[string]string{}
	type held struct{ commit, file string }
	var records []held
	for c := range strings.FieldsSeq(list) {
		files, err := git("ls-tree", "-r", "--name-only", c, "--", ".cairn/runs")
		ts.Check(err)
		for f := range strings.FieldsSeq(files) {
			if path.Base(f) == record.RecordFile {
				records = append(records, held{c, f})
				lastOf[path.Dir(f)] = c
			}
		}
	}
	if len(records) == 0 {
		ts.Fatalf("no commit of %s holds a run record", rev)
	}
	for _, h := range records {
		body, err := git("show", h.commit+":"+h.file)
		ts.Check(err)
		var rec record.Record
		if err := json.Unmarshal([]byte(body), &rec); err != nil {
			ts.Fatalf("commit %.7s: %s: %v", h.commit, h.file, err)
		}
		folder := path.Dir(h.file)
		last := lastOf[folder] == h.commit
		if last && rec.Status == record.StatusRunning {
			ts.Fatalf("commit %.7s: the run's last commit says it is still running", h.commit)
		}
		kinds := map[string]string{}
		for _, w := range rec.Worktrees {
			kinds[w.Name] = w.Kind
		}
		for _, s := range rec.Steps {
			if s.GitRef != "" && kinds[s.Worktree] == "issue-branch" {
				// Its work is on the branch.
				if _, err := git("cat-file", "-e", s.GitRef+"^{commit}"); err != nil {
					ts.Fatalf("commit %.7s: step %q's git_ref %.7s is no commit", h.commit, s.Name, s.GitRef)
				}
			} else if s.GitRef != "" {
				if _, err := git("merge-base", "--is-ancestor", s.GitRef, h.commit); err != nil {
					ts.Fatalf("commit %.7s: step %q's git_ref %.7s is not in its history", h.commit, s.Name, s.GitRef)
				}
			}
			if s.Result == "" {
				continue
			}
			if s.Outcome == record.Pending {
				ts.Fatalf("commit %.7s: step %q is pending with a result", h.commit, s.Name)
			}
			if _, err := git("cat-file", "-e", h.commit+":"+folder+"/"+s.Result); err != nil && s.Ended() {
				ts.Fatalf("commit %.7s: step %q ended with result %s, which the commit does not hold", h.commit, s.Name, s.Result)
			}
		}
	}
	ts.Logf("%d commits hold consistent run records", len(records))
}
