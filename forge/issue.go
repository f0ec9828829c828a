package forge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/ir"
)

// Issue is the issue a run works on, read through gh (docs/design.md §7.8): its content,
// and which accounts the run trusts.
type Issue struct {
	Number    int
	Title     string
	Body      string
	URL       string
	Author    string
	State     string
	Labels    []string
	CreatedAt time.Time
	// Comments are all the issue's comments, oldest first; Kept says
	// which of them a session sees.
	Comments []IssueComment
	// Repo is origin's repository, the issue's.
	Repo Repo
	// Trusted are the accounts whose comments are kept and whose edits
	// are accepted: the config's trusted list and gh's account.
	Trusted []string

	forge Forge
}

// IssueComment is a comment of an issue.
type IssueComment struct {
	// ID is the comment's GraphQL node id, which its edits are known by.
	ID        string
	Author    string
	Body      string
	CreatedAt time.Time
	URL       string
}

// OpenIssue reads the issue arg names (a number, "#N" or an issue URL) of
// repo through the gh on env's PATH (docs/design.md §7.8). An issue URL of another
// repository than origin's is refused. The trusted accounts are trusted and
// the account gh is authenticated as.
func OpenIssue(ctx context.Context, repo *git.Repo, arg string, trusted []string, env []string) (*Issue, error) {
	ref, err := ir.ParseIssue(arg)
	if err != nil {
		return nil, err
	}
	origin, err := OriginRepo(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("issue %s: %w", ref, err)
	}
	if ref.URL != "" {
		u, err := ParseRemoteURL(ref.URL[:strings.LastIndex(ref.URL, "/issues/")])
		if err != nil {
			return nil, fmt.Errorf("issue %q: %w", ref.URL, err)
		}
		if !u.Same(origin) {
			return nil, fmt.Errorf("issue %q is in %q, but origin is %q; cairn works on issues of origin's repository",
				ref.URL, u.Host+"/"+u.String(), origin.Host+"/"+origin.String())
		}
	}
	gh := &GH{Dir: repo.Root, Env: env, Repo: origin}
	login, err := gh.Login(ctx)
	if err != nil {
		return nil, fmt.Errorf("issue %s: find gh's account: %w", ref, err)
	}
	raw, err := gh.ReadIssue(ctx, ref.Number)
	if err != nil {
		return nil, fmt.Errorf("issue %s: %w", ref, err)
	}
	is := &Issue{
		Number:    raw.Number,
		Title:     raw.Title,
		Body:      raw.Body,
		URL:       raw.URL,
		Author:    raw.Author.Login,
		State:     raw.State,
		CreatedAt: raw.CreatedAt,
		Repo:      origin,
		forge:     gh,
	}
	for _, l := range raw.Labels {
		is.Labels = append(is.Labels, l.Name)
	}
	for _, c := range raw.Comments {
		is.Comments = append(is.Comments, IssueComment{ID: c.ID, Author: c.Author.Login, Body: c.Body, CreatedAt: c.CreatedAt, URL: c.URL})
	}
	for _, t := range append(slices.Clone(trusted), login) {
		if t = strings.TrimPrefix(strings.TrimSpace(t), "@"); t != "" && !containsFold(is.Trusted, t) {
			is.Trusted = append(is.Trusted, t)
		}
	}
	return is, nil
}

// String names the issue in messages: #N.
func (i *Issue) String() string { return fmt.Sprintf("#%d", i.Number) }

// IsTrusted reports whether the account login is trusted. GitHub's logins
// are case-insensitive; "" (a deleted account) is never trusted.
func (i *Issue) IsTrusted(login string) bool {
	return login != "" && containsFold(i.Trusted, login)
}

// Kept are the comments a session sees: those of trusted accounts.
func (i *Issue) Kept() []IssueComment {
	var kept []IssueComment
	for _, c := range i.Comments {
		if i.IsTrusted(c.Author) {
			kept = append(kept, c)
		}
	}
	return kept
}

// WriteFile writes the issue as dir/.cairn-issue.md for the sessions in
// the worktree at dir: title, url, body, and only trusted accounts'
// comments, each with its author and date. The caller excludes it from git
// first (ir.CairnFiles names it); a symlink in its place is replaced, never
// written through.
func (i *Issue) WriteFile(dir string) (string, error) {
	path := filepath.Join(dir, ir.IssueFile)
	f, err := os.CreateTemp(dir, ".cairn-issue-")
	if err != nil {
		return "", fmt.Errorf("write issue %s: %w", i, err)
	}
	text, err := i.Markdown()
	if err == nil {
		_, err = f.WriteString(text)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("write issue %s: %w", i, err)
	}
	return path, nil
}

// ghView is the issue as `gh issue view --json` gives it, with the
// accounts it trusts: what jq/issue.jq reads.
type ghView struct {
	Number    int         `json:"number"`
	Title     string      `json:"title"`
	Body      string      `json:"body"`
	URL       string      `json:"url"`
	Author    GHAccount   `json:"author"`
	State     string      `json:"state"`
	Labels    []GHLabel   `json:"labels"`
	CreatedAt string      `json:"createdAt"`
	Comments  []GHComment `json:"comments"`
	Trusted   []string    `json:"trusted"`
	// BodyEdits and CommentEdits are the edits of the body and of each
	// comment, by its id, for issue_edit_check.
	BodyEdits    []jqEdit            `json:"body_edits"`
	CommentEdits map[string][]jqEdit `json:"comment_edits"`
}

// jqEdit is a ContentEdit as jq/issue.jq reads it.
type jqEdit struct {
	Editor string `json:"editor"`
	At     string `json:"at"`
}

// view is i as jq/issue.jq reads it.
func (i *Issue) view() ghView {
	v := ghView{Number: i.Number, Title: i.Title, Body: i.Body, URL: i.URL, Author: GHAccount{i.Author}, State: i.State,
		CreatedAt: i.CreatedAt.UTC().Format(time.RFC3339Nano), Trusted: i.Trusted, Labels: []GHLabel{}, Comments: []GHComment{},
		BodyEdits: []jqEdit{}, CommentEdits: map[string][]jqEdit{}}
	for _, l := range i.Labels {
		v.Labels = append(v.Labels, GHLabel{l})
	}
	for _, c := range i.Comments {
		v.Comments = append(v.Comments, GHComment{ID: c.ID, Author: GHAccount{c.Author}, Body: c.Body, CreatedAt: c.CreatedAt, URL: c.URL})
	}
	return v
}

// jqEdits are edits as jq/issue.jq reads them.
func jqEdits(edits []ContentEdit) []jqEdit {
	out := []jqEdit{}
	for _, e := range edits {
		out = append(out, jqEdit{Editor: e.Editor, At: e.At.UTC().Format(time.RFC3339Nano)})
	}
	return out
}

// Markdown is the issue file's text (issue_markdown of jq/issue.jq):
// title, url, body, and only trusted accounts' comments, each with its
// author and date.
func (i *Issue) Markdown() (string, error) {
	return issueJQRun("issue_markdown", i.view())
}

// singleLine folds s onto one line.
func singleLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// CheckEdits reads the issue's edit history again and fails when the body
// or a kept comment was last edited by an untrusted account (docs/design.md §7.8), naming
// who and what. It is called before every session on the issue.
func (i *Issue) CheckEdits(ctx context.Context) error {
	h, err := i.forge.IssueEdits(ctx, i.Number)
	if err != nil {
		return fmt.Errorf("check issue %s for untrusted edits: %w", i, err)
	}
	v := i.view()
	v.BodyEdits = jqEdits(h.Body)
	for id, edits := range h.Comments {
		v.CommentEdits[id] = jqEdits(edits)
	}
	msg, err := issueJQRun("issue_edit_check", v)
	if err != nil {
		return fmt.Errorf("check issue %s for untrusted edits: %w", i, err)
	}
	if msg != "" {
		return errors.New(msg)
	}
	return nil
}

// slugMax bounds the length of a branch's slug, as issue_slug does.
const slugMax = 40

// Slug is the title as a branch's slug (issue_slug of jq/issue.jq): its
// lowercase ASCII words joined by hyphens, cut at a word's end within 40
// characters; "issue" when no word is left.
func Slug(title string) string {
	s, err := issueJQRun("issue_slug", title)
	if err != nil {
		return "issue"
	}
	return s
}

// BranchPrefix is the start of the branches of issue number: cairn/N-.
func BranchPrefix(number int) string { return fmt.Sprintf("cairn/%d-", number) }

// Branch is the branch the issue's issue-branch worktree works on in repo
// (docs/design.md §7.4): an existing branch of the issue, local
// (cairn/N-*) or else origin's, so that a renamed issue still continues its
// work, the one named after the current title first; else cairn/N-SLUG.
func (i *Issue) Branch(ctx context.Context, repo *git.Repo) (string, error) {
	want := BranchPrefix(i.Number) + Slug(i.Title)
	out, err := repo.Run(ctx, "for-each-ref", "--format=%(refname)", "refs/heads/"+BranchPrefix(i.Number)+"*", "refs/remotes/origin/"+BranchPrefix(i.Number)+"*")
	if err != nil {
		return "", fmt.Errorf("find the branch of issue %s: %w", i, err)
	}
	var local, remote []string
	for _, ref := range strings.Fields(out) {
		if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			local = append(local, b)
		} else if b, ok := strings.CutPrefix(ref, "refs/remotes/origin/"); ok {
			remote = append(remote, b)
		}
	}
	for _, list := range [][]string{local, remote} {
		if slices.Contains(list, want) {
			return want, nil
		}
		if len(list) > 0 {
			// for-each-ref sorts by name; the first is as good as any
			// other and the same every time.
			return list[0], nil
		}
	}
	return want, nil
}
