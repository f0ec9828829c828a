// Package fakegh is a fake of GitHub's gh CLI for cairn's tests: it answers
// the calls cairn makes from a state folder, records every call, and
// refuses the subcommands and flags the real gh does not take.
//
// The state folder, $FAKE_GH_STATE, holds one file per thing, so that a test
// (a Go test or a testscript's txtar) can seed it and read it back:
//
//	login           the account gh is authenticated as; missing: not logged in
//	repo            HOST/OWNER/REPO, the repository the fake serves; missing:
//	                any repository a call names (github.com when none)
//	permissions.json each account's permission on it (admin, maintain,
//	                write, triage, read, none); missing: admin for the
//	                account logged in, read for any other
//	issues/N.json   issue N (Issue): title, body, author, state, labels,
//	                creation time, the edits of its body, its comments with
//	                theirs
//	labels.json     the repository's labels, by name; missing: those its
//	                issues carry
//	origin          the bare repository whose branches the pull requests'
//	                heads and bases are read from; missing: the remote
//	                origin of the folder gh runs in
//	pulls/N.json    pull request N (PullRequest): head, base, title, body,
//	                state, draft or not, and how it was merged
//	checks.json     the checks every pull request gets ([]CheckSpec): each
//	                fails on its first N distinct head commits, then passes,
//	                with a log for `gh run view --log-failed`
//	checkruns.json  the checks' runs so far ([]CheckRun), one per check and
//	                head commit
//
// An issue an installation token (ghs_) opens has author Bot, and its edit
// of a body editor BotEditor, as on GitHub; its pull requests and comments
// are still the logged-in account's.
//
// Calls that read or write pull requests, or write issues, hold a lock on
// the state folder (.lock), so that parallel calls see each other's writes
// whole. Pull requests and issues share their numbers, as on GitHub.
//
// Every call is recorded as $FAKE_LOG/gh.N/ (N counts from 1) with argv (one
// argument a line), stdin, cwd and env (the CAIRN_* and GH_* variables), as
// the fake agent CLIs in cmd/cairn/testdata/fakes record theirs.
package fakegh

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The files and folders of the state folder.
const (
	LoginFile       = "login"
	RepoFile        = "repo"
	IssuesDir       = "issues"
	PermissionsFile = "permissions.json"
	// ActionsPRsFile, when present, is the repository's setting "Allow
	// GitHub Actions to create and approve pull requests", which a new
	// repository has off: without it a workflow's own token (ghs_) may
	// not open a pull request.
	ActionsPRsFile = "actions-create-prs"
)

// Issue is an issue of the fake's state, issues/N.json.
type Issue struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Author string `json:"author"`
	// State is OPEN (when empty) or CLOSED.
	State     string    `json:"state,omitempty"`
	Labels    []string  `json:"labels,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	// Edits are the edits of the body, in any order; the latest one's
	// editor is the body's last editor.
	Edits    []Edit    `json:"edits,omitempty"`
	Comments []Comment `json:"comments,omitempty"`
}

// Comment is a comment of an issue. ID is its GraphQL node id; when empty,
// the fake makes one up from the issue's number and the comment's place.
type Comment struct {
	ID        string    `json:"id,omitempty"`
	Author    string    `json:"author"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"createdAt"`
	Edits     []Edit    `json:"edits,omitempty"`
}

// Edit is one edit of a body or a comment. Editor "" is an account since
// deleted (GitHub's ghost).
type Edit struct {
	Editor   string    `json:"editor"`
	EditedAt time.Time `json:"editedAt"`
}

// commentID is c's node id, made up when the state names none.
func (is *Issue) commentID(i int) string {
	if id := is.Comments[i].ID; id != "" {
		return id
	}
	return fmt.Sprintf("IC_fake%dx%d", is.Number, i+1)
}

// SetLogin makes gh authenticated as login in the state folder dir.
func SetLogin(dir, login string) error {
	return writeFile(filepath.Join(dir, LoginFile), []byte(login+"\n"))
}

// AllowActionsPRs turns on the repository's setting that lets a
// workflow's own token open pull requests (ActionsPRsFile).
func AllowActionsPRs(dir string) error {
	return writeFile(filepath.Join(dir, ActionsPRsFile), nil)
}

// SetRepo makes the fake serve the repository HOST/OWNER/REPO only.
func SetRepo(dir, repo string) error {
	return writeFile(filepath.Join(dir, RepoFile), []byte(repo+"\n"))
}

// WriteIssue writes is into the state folder dir.
func WriteIssue(dir string, is Issue) error {
	if is.Number <= 0 {
		return fmt.Errorf("issue number %d: want a positive one", is.Number)
	}
	b, err := json.MarshalIndent(is, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, IssuesDir, strconv.Itoa(is.Number)+".json"), append(b, '\n'))
}

// ReadIssue reads issue number from the state folder dir; fs.ErrNotExist
// when there is none.
func ReadIssue(dir string, number int) (*Issue, error) {
	b, err := os.ReadFile(filepath.Join(dir, IssuesDir, strconv.Itoa(number)+".json"))
	if err != nil {
		return nil, err
	}
	var is Issue
	if err := json.Unmarshal(b, &is); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(IssuesDir, strconv.Itoa(number)+".json"), err)
	}
	if is.Number == 0 {
		is.Number = number
	}
	if is.State == "" {
		is.State = "OPEN"
	}
	return &is, nil
}

// readLine reads the one-line file name of the state folder dir: "" when
// it is missing.
func readLine(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// writeFile writes b to path whole, making its folder.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
