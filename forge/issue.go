package forge

import (
	"context"
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
	_, err = f.WriteString(i.Markdown())
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

// issueTime is how the issue file writes a date.
const issueTime = "2006-01-02 15:04 UTC"

// Markdown is the issue file's text.
func (i *Issue) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Issue #%d: %s\n\n", i.Number, singleLine(i.Title))
	fmt.Fprintf(&b, "- URL: %s\n", i.URL)
	fmt.Fprintf(&b, "- Opened by: @%s on %s\n", i.Author, i.CreatedAt.UTC().Format(issueTime))
	fmt.Fprintf(&b, "- State: %s\n", strings.ToLower(i.State))
	if len(i.Labels) > 0 {
		fmt.Fprintf(&b, "- Labels: %s\n", strings.Join(i.Labels, ", "))
	}
	b.WriteString("\n## Body\n\n")
	writeBlock(&b, i.Body)
	kept := i.Kept()
	b.WriteString("\n## Comments\n\n")
	b.WriteString("Only comments by trusted accounts are shown.\n")
	if len(kept) == 0 {
		b.WriteString("\nThere are none.\n")
	}
	for _, c := range kept {
		fmt.Fprintf(&b, "\n### @%s on %s\n\n", c.Author, c.CreatedAt.UTC().Format(issueTime))
		writeBlock(&b, c.Body)
	}
	return b.String()
}

// writeBlock writes text with exactly one newline at its end ("(empty)" for
// none), so that the next heading starts on a line of its own.
func writeBlock(b *strings.Builder, text string) {
	text = strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n \t")
	if text == "" {
		text = "(empty)"
	}
	b.WriteString(text + "\n")
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
	var problems []string
	if who := i.untrusted(LastEditors(h.Body)); who != "" {
		problems = append(problems, "its body was last edited by "+who)
	}
	for _, c := range i.Kept() {
		if who := i.untrusted(LastEditors(h.Comments[c.ID])); who != "" {
			problems = append(problems, fmt.Sprintf("the comment of @%s from %s (%s) was last edited by %s",
				c.Author, c.CreatedAt.UTC().Format(issueTime), c.URL, who))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("issue %s was edited by an untrusted account: %s; a trusted account must check the text and edit it last, or add the editor to the config's trusted list",
		i, strings.Join(problems, "; "))
}

// untrusted names the untrusted accounts of editors ("" when all are
// trusted).
func (i *Issue) untrusted(editors []string) string {
	var names []string
	for _, e := range editors {
		switch {
		case e == "":
			names = append(names, "a deleted account")
		case !i.IsTrusted(e):
			names = append(names, fmt.Sprintf("%q", e))
		}
	}
	return strings.Join(names, " and ")
}

// slugMax bounds the length of a branch's slug.
const slugMax = 40

// Slug is the title as a branch's slug: its lowercase ASCII words joined by
// hyphens, cut at a word's end within slugMax characters; "issue" when no
// word is left.
func Slug(title string) string {
	words := strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	var b strings.Builder
	for _, w := range words {
		switch {
		case b.Len() == 0 && len(w) > slugMax:
			b.WriteString(w[:slugMax])
		case b.Len() == 0:
			b.WriteString(w)
		case b.Len()+1+len(w) <= slugMax:
			b.WriteString("-" + w)
		default:
			return b.String()
		}
		if b.Len() >= slugMax {
			break
		}
	}
	if b.Len() == 0 {
		return "issue"
	}
	return b.String()
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
