// Package forge is cairn's side of GitHub, through the gh CLI: reading an
// issue and filtering it by trust, the issue file, the Claim on an issue,
// and pull requests and their checks, behind the Forge interface.
package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/lookpath"
	"github.com/cairn-dev/cairn/internal/text"
)

// GH runs the gh CLI (GitHub's) for one repository: the gh found on the PATH
// of Env, in the folder Dir, always naming the repository and its host, so
// gh's own guess of the repository from the remotes never matters.
type GH struct {
	// Dir is gh's working folder: the repository's root.
	Dir string
	// Env is the environment gh runs in, whole: the step environment,
	// whose PATH finds gh and which carries GH_TOKEN if set.
	Env []string
	// Repo is the repository every call is about: origin's.
	Repo Repo
}

// Repo is a repository on a forge: github.com/OWNER/NAME.
type Repo struct {
	Host  string
	Owner string
	Name  string
}

// String is OWNER/NAME, as GitHub shows it.
func (r Repo) String() string { return r.Owner + "/" + r.Name }

// Same reports whether r and o are one repository; GitHub's names are
// case-insensitive.
func (r Repo) Same(o Repo) bool {
	return strings.EqualFold(r.Host, o.Host) && strings.EqualFold(r.Owner, o.Owner) && strings.EqualFold(r.Name, o.Name)
}

// OriginRepo is the repository of the git remote origin of repo, from its
// url as configured: url.*.insteadOf rewrites (to a mirror, say) change
// where git fetches from, not which repository origin is.
func OriginRepo(ctx context.Context, repo *git.Repo) (Repo, error) {
	out, err := repo.Run(ctx, "config", "--get", "remote.origin.url")
	if err != nil {
		return Repo{}, fmt.Errorf("the repository at %s has no remote %q (git remote add origin URL); issues are origin's", repo.Root, "origin")
	}
	return ParseRemoteURL(strings.TrimSpace(out))
}

// ParseRemoteURL reads HOST/OWNER/NAME from a git remote's url, in any of
// the forms git takes for GitHub: https://HOST/OWNER/NAME(.git),
// ssh://git@HOST(:PORT)/OWNER/NAME(.git) and git@HOST:OWNER/NAME(.git).
func ParseRemoteURL(s string) (Repo, error) {
	var host, path string
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return Repo{}, fmt.Errorf("origin's url %q: %w", s, err)
		}
		switch u.Scheme {
		case "https", "http", "ssh", "git", "git+ssh", "ssh+git":
		default:
			return Repo{}, fmt.Errorf("origin's url %q: a %q remote is no forge repository; want https://HOST/OWNER/REPO or git@HOST:OWNER/REPO", s, u.Scheme)
		}
		host, path = u.Hostname(), u.Path
	} else if at, rest, ok := strings.Cut(s, ":"); ok && !strings.Contains(at, "/") {
		// scp-like syntax: [USER@]HOST:PATH.
		host, path = at[strings.LastIndexByte(at, '@')+1:], rest
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if host == "" || len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return Repo{}, fmt.Errorf("origin's url %q names no OWNER/REPO on a forge; want https://HOST/OWNER/REPO or git@HOST:OWNER/REPO", s)
	}
	return Repo{Host: strings.ToLower(host), Owner: parts[0], Name: strings.TrimSuffix(parts[1], ".git")}, nil
}

// ghEnv is set for every gh call: gh must never wait for an answer nor
// check for its own updates.
var ghEnv = []string{"GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1", "NO_COLOR=1"}

// run runs gh with args and returns its stdout. Its error names the command
// and carries the first line gh wrote to stderr.
func (g *GH) run(ctx context.Context, args ...string) ([]byte, error) {
	env := g.Env
	path, err := lookpath.In(env, g.Dir, "gh")
	if err != nil {
		return nil, fmt.Errorf("%w; install GitHub's CLI (https://cli.github.com) and run \"gh auth login\"", err)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = g.Dir
	cmd.Env = append(append([]string(nil), env...), ghEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("gh %s: %w", ghSubcommand(args), ctx.Err())
		}
		msg := text.FirstLine(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("gh %s: %s", ghSubcommand(args), msg)
	}
	return stdout.Bytes(), nil
}

// ghSubcommand is how an error names a gh call: its words up to the first
// flag (a GraphQL query is no use in an error line).
func ghSubcommand(args []string) string {
	var words []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// repoFlag is the repository as gh's --repo takes it, host included.
func (g *GH) repoFlag() string { return g.Repo.Host + "/" + g.Repo.String() }

// Login is the login of the account gh is authenticated as.
func (g *GH) Login(ctx context.Context) (string, error) {
	out, err := g.run(ctx, "api", "--hostname", g.Repo.Host, "user")
	if err != nil {
		return "", err
	}
	var user struct {
		Login string `json:"login"`
	}
	if err := json.Unmarshal(out, &user); err != nil || user.Login == "" {
		return "", fmt.Errorf("gh api user: no login in its answer")
	}
	return user.Login, nil
}

// GHIssue is an issue as `gh issue view --json` gives it.
type GHIssue struct {
	Number    int         `json:"number"`
	Title     string      `json:"title"`
	Body      string      `json:"body"`
	Author    GHAccount   `json:"author"`
	State     string      `json:"state"`
	Labels    []GHLabel   `json:"labels"`
	CreatedAt time.Time   `json:"createdAt"`
	URL       string      `json:"url"`
	Comments  []GHComment `json:"comments"`
}

// GHAccount is the author of an issue or a comment.
type GHAccount struct {
	Login string `json:"login"`
}

// GHLabel is a label of an issue.
type GHLabel struct {
	Name string `json:"name"`
}

// GHComment is a comment of an issue; ID is its GraphQL node id.
type GHComment struct {
	ID        string    `json:"id"`
	Author    GHAccount `json:"author"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"createdAt"`
	URL       string    `json:"url"`
}

// ghIssueFields are the fields ReadIssue asks gh for.
const ghIssueFields = "number,title,body,author,state,labels,createdAt,url,comments"

// ReadIssue reads issue number of the repository, with all its comments.
func (g *GH) ReadIssue(ctx context.Context, number int) (*GHIssue, error) {
	out, err := g.run(ctx, "issue", "view", strconv.Itoa(number), "--repo", g.repoFlag(), "--json", ghIssueFields)
	if err != nil {
		return nil, err
	}
	var is GHIssue
	if err := json.Unmarshal(out, &is); err != nil {
		return nil, fmt.Errorf("gh issue view: read its answer: %w", err)
	}
	if is.Number != number {
		return nil, fmt.Errorf("gh issue view %d: it answered with issue %d", number, is.Number)
	}
	return &is, nil
}

// ContentEdit is one edit of an issue's body or of a comment: who made it
// (Editor is "" for an account since deleted) and when.
type ContentEdit struct {
	Editor string
	At     time.Time
}

// EditHistory is what GitHub knows of the edits of an issue: those of its
// body, and those of each comment by the comment's node id. An item with
// no edits has none listed.
type EditHistory struct {
	Body     []ContentEdit
	Comments map[string][]ContentEdit
}

// LastEditors are the accounts that made the latest of edits: one, but
// every editor when two sources disagree at the same instant. It is empty
// when there are no edits.
func LastEditors(edits []ContentEdit) []string {
	var last time.Time
	for _, e := range edits {
		if e.At.After(last) {
			last = e.At
		}
	}
	var who []string
	for _, e := range edits {
		if e.At.Equal(last) && !containsFold(who, e.Editor) {
			who = append(who, e.Editor)
		}
	}
	return who
}

// containsFold reports whether list holds s, ignoring case.
func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// issueEditsQuery asks for the edits of an issue's body and of a page of
// its comments: the last editor and the time of the last edit (editor,
// lastEditedAt), and the edit history (userContentEdits), so that the
// latest edit is known whichever order GitHub lists the history in.
const issueEditsQuery = `query IssueEdits($owner: String!, $repo: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $repo) {
    issue(number: $number) {
      lastEditedAt
      editor { login }
      userContentEdits(first: 100) { nodes { editedAt editor { login } } }
      comments(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          lastEditedAt
          editor { login }
          userContentEdits(first: 100) { nodes { editedAt editor { login } } }
        }
      }
    }
  }
}`

// ghEditable is the part of an issue or comment issueEditsQuery reads.
type ghEditable struct {
	ID           string     `json:"id"`
	LastEditedAt *time.Time `json:"lastEditedAt"`
	Editor       *GHAccount `json:"editor"`
	Edits        struct {
		Nodes []struct {
			EditedAt *time.Time `json:"editedAt"`
			Editor   *GHAccount `json:"editor"`
		} `json:"nodes"`
	} `json:"userContentEdits"`
}

// edits lists what e says of its edits.
func (e *ghEditable) edits() []ContentEdit {
	login := func(a *GHAccount) string {
		if a == nil {
			return ""
		}
		return a.Login
	}
	var list []ContentEdit
	if e.LastEditedAt != nil {
		list = append(list, ContentEdit{Editor: login(e.Editor), At: *e.LastEditedAt})
	}
	for _, n := range e.Edits.Nodes {
		if n.EditedAt != nil {
			list = append(list, ContentEdit{Editor: login(n.Editor), At: *n.EditedAt})
		}
	}
	return list
}

// maxCommentPages bounds the pages of 100 comments IssueEdits reads.
const maxCommentPages = 100

// IssueEdits reads the edit history of issue number's body and comments
// through `gh api graphql`.
func (g *GH) IssueEdits(ctx context.Context, number int) (*EditHistory, error) {
	h := &EditHistory{Comments: map[string][]ContentEdit{}}
	after := ""
	for page := 0; ; page++ {
		if page == maxCommentPages {
			return nil, fmt.Errorf("gh api graphql: issue %d has more than %d comments", number, 100*maxCommentPages)
		}
		args := []string{"api", "graphql", "--hostname", g.Repo.Host,
			"-f", "query=" + issueEditsQuery, "-f", "owner=" + g.Repo.Owner, "-f", "repo=" + g.Repo.Name,
			"-F", "number=" + strconv.Itoa(number)}
		if after != "" {
			args = append(args, "-f", "after="+after)
		}
		out, err := g.run(ctx, args...)
		if err != nil {
			return nil, err
		}
		var answer struct {
			Data struct {
				Repository *struct {
					Issue *struct {
						ghEditable
						Comments struct {
							PageInfo struct {
								HasNextPage bool   `json:"hasNextPage"`
								EndCursor   string `json:"endCursor"`
							} `json:"pageInfo"`
							Nodes []ghEditable `json:"nodes"`
						} `json:"comments"`
					} `json:"issue"`
				} `json:"repository"`
			} `json:"data"`
			Errors []struct {
				Message string `json:"message"`
			} `json:"errors"`
		}
		if err := json.Unmarshal(out, &answer); err != nil {
			return nil, fmt.Errorf("gh api graphql: read its answer: %w", err)
		}
		if len(answer.Errors) > 0 {
			return nil, fmt.Errorf("gh api graphql: %s", answer.Errors[0].Message)
		}
		if answer.Data.Repository == nil || answer.Data.Repository.Issue == nil {
			return nil, fmt.Errorf("gh api graphql: no issue %d in %s", number, g.Repo)
		}
		is := answer.Data.Repository.Issue
		if page == 0 {
			h.Body = is.edits()
		}
		for i := range is.Comments.Nodes {
			c := &is.Comments.Nodes[i]
			h.Comments[c.ID] = c.edits()
		}
		if !is.Comments.PageInfo.HasNextPage {
			return h, nil
		}
		if is.Comments.PageInfo.EndCursor == "" || is.Comments.PageInfo.EndCursor == after {
			return nil, errors.New("gh api graphql: the comments' pages do not advance")
		}
		after = is.Comments.PageInfo.EndCursor
	}
}
