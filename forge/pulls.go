package forge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Forge is what the runtime asks of a forge about one repository: its
// issues and their edits, and the pull requests of its branches with
// their checks. GH implements it through the gh CLI; a test may fake it.
type Forge interface {
	// Login is the account the forge is used as.
	Login(ctx context.Context) (string, error)
	// ReadIssue reads an issue with all its comments.
	ReadIssue(ctx context.Context, number int) (*GHIssue, error)
	// IssueEdits reads the edit history of an issue's body and comments.
	IssueEdits(ctx context.Context, number int) (*EditHistory, error)
	// OpenPullRequest is branch's open pull request; nil when it has none.
	OpenPullRequest(ctx context.Context, branch string) (*PullRequest, error)
	// ViewPullRequest reads pull request n.
	ViewPullRequest(ctx context.Context, n int) (*PullRequest, error)
	// CreatePullRequest opens a draft pull request of head into base.
	CreatePullRequest(ctx context.Context, head, base, title, body string) (*PullRequest, error)
	// EditPullRequest sets pull request n's title, body and base.
	EditPullRequest(ctx context.Context, n int, title, body, base string) error
	// MarkReady marks the draft pull request n ready for review.
	MarkReady(ctx context.Context, n int) error
	// Merge squashes pull request n into its base, only while its head is
	// head.
	Merge(ctx context.Context, n int, head string) error
	// Checks reads pull request n's checks once; ErrNoChecks when none
	// reported.
	Checks(ctx context.Context, n int) ([]Check, error)
	// FailedJobLog is the log of the failed steps of GitHub Actions job id.
	FailedJobLog(ctx context.Context, job string) ([]byte, error)
}

var _ Forge = (*GH)(nil)

// PullRequest is a pull request as `gh pr list/view --json` gives it.
type PullRequest struct {
	Number      int    `json:"number"`
	URL         string `json:"url"`
	State       string `json:"state"`
	IsDraft     bool   `json:"isDraft"`
	HeadRefOid  string `json:"headRefOid"`
	BaseRefName string `json:"baseRefName"`
}

// pullRequestFields are the fields cairn asks gh for.
const pullRequestFields = "number,url,state,isDraft,headRefOid,baseRefName"

// Check is a check of a pull request as `gh pr checks --json` gives it.
// Bucket sorts its state into pass, fail, pending, skipping or cancel.
type Check struct {
	Name        string `json:"name"`
	State       string `json:"state"`
	Bucket      string `json:"bucket"`
	Link        string `json:"link"`
	Workflow    string `json:"workflow"`
	Description string `json:"description"`
}

// checkFields are the fields cairn asks gh for.
const checkFields = "name,state,bucket,link,workflow,description"

// ErrNoChecks is gh's answer for a pull request no check reported on (yet).
var ErrNoChecks = errors.New("no checks reported")

// OpenPullRequest is branch's open pull request; nil when it has none.
func (g *GH) OpenPullRequest(ctx context.Context, branch string) (*PullRequest, error) {
	out, err := g.run(ctx, "pr", "list", "--repo", g.repoFlag(), "--head", branch, "--state", "open", "--json", pullRequestFields)
	if err != nil {
		return nil, err
	}
	var list []PullRequest
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("gh pr list: read its answer: %w", err)
	}
	if len(list) == 0 {
		return nil, nil
	}
	return &list[0], nil
}

// ViewPullRequest reads pull request n.
func (g *GH) ViewPullRequest(ctx context.Context, n int) (*PullRequest, error) {
	out, err := g.run(ctx, "pr", "view", strconv.Itoa(n), "--repo", g.repoFlag(), "--json", pullRequestFields)
	if err != nil {
		return nil, err
	}
	var pr PullRequest
	if err := json.Unmarshal(out, &pr); err != nil {
		return nil, fmt.Errorf("gh pr view: read its answer: %w", err)
	}
	return &pr, nil
}

// CreatePullRequest opens a draft pull request of head into base, and
// reads its number from the URL gh answers with.
func (g *GH) CreatePullRequest(ctx context.Context, head, base, title, body string) (*PullRequest, error) {
	out, err := g.run(ctx, "pr", "create", "--repo", g.repoFlag(), "--head", head, "--base", base,
		"--title", title, "--body", body, "--draft")
	if err != nil {
		return nil, err
	}
	url := lastLine(string(out))
	n, err := strconv.Atoi(url[strings.LastIndexByte(url, '/')+1:])
	if err != nil || !strings.Contains(url, "/pull/") {
		return nil, fmt.Errorf("gh pr create: no pull request URL in its answer %q", url)
	}
	return &PullRequest{Number: n, URL: url, State: "OPEN", IsDraft: true}, nil
}

// lastLine is the last non-blank line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// EditPullRequest sets pull request n's title, body and base.
func (g *GH) EditPullRequest(ctx context.Context, n int, title, body, base string) error {
	_, err := g.run(ctx, "pr", "edit", strconv.Itoa(n), "--repo", g.repoFlag(),
		"--title", title, "--body", body, "--base", base)
	return err
}

// MarkReady marks the draft pull request n ready for review.
func (g *GH) MarkReady(ctx context.Context, n int) error {
	_, err := g.run(ctx, "pr", "ready", strconv.Itoa(n), "--repo", g.repoFlag())
	return err
}

// Merge squashes pull request n into its base, only while its head is
// head: a push since is never merged unseen.
func (g *GH) Merge(ctx context.Context, n int, head string) error {
	_, err := g.run(ctx, "pr", "merge", strconv.Itoa(n), "--repo", g.repoFlag(), "--squash", "--match-head-commit", head)
	return err
}

// Checks reads pull request n's checks once; ErrNoChecks when none
// reported.
func (g *GH) Checks(ctx context.Context, n int) ([]Check, error) {
	out, err := g.run(ctx, "pr", "checks", strconv.Itoa(n), "--repo", g.repoFlag(), "--json", checkFields)
	if err != nil {
		if strings.Contains(err.Error(), "no checks reported") {
			return nil, ErrNoChecks
		}
		return nil, err
	}
	var checks []Check
	if err := json.Unmarshal(out, &checks); err != nil {
		return nil, fmt.Errorf("gh pr checks: read its answer: %w", err)
	}
	return checks, nil
}

// FailedJobLog is the log of the failed steps of GitHub Actions job id.
func (g *GH) FailedJobLog(ctx context.Context, job string) ([]byte, error) {
	return g.run(ctx, "run", "view", "--job", job, "--log-failed", "--repo", g.repoFlag())
}

// Failing are the checks that failed or were cancelled: those not green.
func Failing(checks []Check) []Check {
	var out []Check
	for _, c := range checks {
		if c.Bucket == "fail" || c.Bucket == "cancel" {
			out = append(out, c)
		}
	}
	return out
}

// Pending reports whether a check has not finished.
func Pending(checks []Check) bool {
	for _, c := range checks {
		if c.Bucket == "pending" {
			return true
		}
	}
	return false
}

// CheckNames lists the checks' names, quoted, for a message.
func CheckNames(checks []Check) string {
	names := make([]string, 0, len(checks))
	for _, c := range checks {
		names = append(names, fmt.Sprintf("%q", c.Name))
	}
	return strings.Join(names, ", ")
}
