package fakegh

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LabelsFile, labels.json, lists the repository's labels by name; missing,
// the repository has those its issues carry.
const LabelsFile = "labels.json"

// Bot is the author an installation token's writes have, as gh's JSON
// names a bot ("app/" and its login); BotEditor is how GitHub's GraphQL
// names it as an editor.
const (
	Bot       = "app/github-actions"
	BotEditor = "github-actions"
)

// issue dispatches `gh issue SUBCOMMAND`.
func (c *call) issue(args []string) error {
	if len(args) == 0 {
		return usage("Work with GitHub issues.\n\nUsage:  gh issue <command> [flags]")
	}
	if args[0] == "view" {
		return c.issueView(args[1:])
	}
	sub := map[string]func([]string) error{"create": c.issueCreate, "edit": c.issueEdit, "comment": c.issueComment}
	if f, ok := sub[args[0]]; ok {
		unlock, err := c.lock()
		if err != nil {
			return err
		}
		defer unlock()
		return f(args[1:])
	}
	real := []string{"close", "delete", "develop", "list", "lock", "pin", "reopen", "status", "transfer", "unlock", "unpin"}
	if slices.Contains(real, args[0]) {
		return notFaked("gh issue %s", args[0])
	}
	return usage("unknown command %q for \"gh issue\"", args[0])
}

// issueCreateFlags are those of `gh issue create` (2.63).
var issueCreateFlags = []flagSpec{
	repoFlagSpec,
	{long: "title", short: "t", value: true, faked: true},
	{long: "body", short: "b", value: true, faked: true},
	{long: "body-file", short: "F", value: true, faked: true},
	{long: "label", short: "l", value: true, faked: true},
	{long: "assignee", short: "a", value: true},
	{long: "editor", short: "e"},
	{long: "milestone", short: "m", value: true},
	{long: "project", short: "p", value: true},
	{long: "recover", value: true},
	{long: "template", short: "T", value: true},
	{long: "web", short: "w"},
	{long: "help", short: "h"},
}

// issueCreate is `gh issue create --title T (--body B | --body-file F)
// [--label L]...`: a new issue, numbered after every issue and pull
// request, by the account logged in, or the bot for an installation token.
// Its labels must exist (LabelsFile). It prints the issue's URL.
func (c *call) issueCreate(args []string) error {
	const cmd = "issue create"
	p, err := parseFlags(cmd, issueCreateFlags, args)
	if err != nil {
		return err
	}
	if len(p.args) > 0 {
		return usage("unknown argument %q; please quote all values that have spaces\n\nUsage:  gh %s [flags]", p.args[0], cmd)
	}
	body, hasBody, err := c.body(p)
	if err != nil {
		return err
	}
	if _, ok := p.flags["title"]; !ok || !hasBody {
		return usage("must provide `--title` and `--body` when not running interactively")
	}
	if strings.TrimSpace(p.last("title")) == "" {
		return failure("title can't be blank")
	}
	author, err := c.author()
	if err != nil {
		return err
	}
	r, err := c.resolveRepo(p.last("repo"))
	if err != nil {
		return err
	}
	labels, err := c.labelsOf(p)
	if err != nil {
		return err
	}
	n, err := c.nextNumber()
	if err != nil {
		return err
	}
	is := Issue{Number: n, Title: p.last("title"), Body: body, Author: author, Labels: labels, CreatedAt: time.Now().UTC().Truncate(time.Second)}
	if err := WriteIssue(c.state, is); err != nil {
		return err
	}
	fmt.Fprintln(c.stdout, issueURL(r, n))
	return nil
}

// issueEditFlags are those of `gh issue edit` (2.63).
var issueEditFlags = []flagSpec{
	repoFlagSpec,
	{long: "title", short: "t", value: true, faked: true},
	{long: "body", short: "b", value: true, faked: true},
	{long: "body-file", short: "F", value: true, faked: true},
	{long: "add-label", value: true, faked: true},
	{long: "remove-label", value: true, faked: true},
	{long: "add-assignee", value: true},
	{long: "remove-assignee", value: true},
	{long: "add-project", value: true},
	{long: "remove-project", value: true},
	{long: "milestone", short: "m", value: true},
	{long: "remove-milestone"},
	{long: "help", short: "h"},
}

// issueEdit is `gh issue edit {NUMBER | URL} [--title T] [--body B |
// --body-file F] [--add-label L] [--remove-label L]`: a new body is an
// edit of it by the account (BotEditor for an installation token). It
// prints the issue's URL.
func (c *call) issueEdit(args []string) error {
	const cmd = "issue edit {<numbers> | <urls>}"
	p, err := parseFlags(cmd, issueEditFlags, args)
	if err != nil {
		return err
	}
	if len(p.args) != 1 {
		return notFaked("gh issue edit of %d issues", len(p.args))
	}
	body, hasBody, err := c.body(p)
	if err != nil {
		return err
	}
	if !hasBody && len(p.flags["title"])+len(p.flags["add-label"])+len(p.flags["remove-label"]) == 0 {
		return usage("field to edit flag required when not running interactively")
	}
	author, err := c.author()
	if err != nil {
		return err
	}
	r, is, err := c.issueOf(p.last("repo"), p.args[0])
	if err != nil {
		return err
	}
	if v, ok := p.flags["title"]; ok {
		is.Title = v[len(v)-1]
	}
	if hasBody && body != is.Body {
		is.Body = body
		editor := author
		if author == Bot {
			editor = BotEditor
		}
		is.Edits = append(is.Edits, Edit{Editor: editor, EditedAt: time.Now().UTC().Truncate(time.Second)})
	}
	add, err := c.labelsOf(&parsed{flags: map[string][]string{"label": p.flags["add-label"]}})
	if err != nil {
		return err
	}
	for _, l := range add {
		if !slices.ContainsFunc(is.Labels, func(x string) bool { return strings.EqualFold(x, l) }) {
			is.Labels = append(is.Labels, l)
		}
	}
	for _, v := range p.flags["remove-label"] {
		for _, l := range strings.Split(v, ",") {
			is.Labels = slices.DeleteFunc(is.Labels, func(x string) bool { return strings.EqualFold(x, strings.TrimSpace(l)) })
		}
	}
	if err := WriteIssue(c.state, *is); err != nil {
		return err
	}
	fmt.Fprintln(c.stdout, issueURL(r, is.Number))
	return nil
}

// issueCommentFlags are those of `gh issue comment` (2.63).
var issueCommentFlags = []flagSpec{
	repoFlagSpec,
	{long: "body", short: "b", value: true, faked: true},
	{long: "body-file", short: "F", value: true, faked: true},
	{long: "create-if-none"},
	{long: "edit-last"},
	{long: "editor", short: "e"},
	{long: "web", short: "w"},
	{long: "help", short: "h"},
}

// issueComment is `gh issue comment {NUMBER | URL} (--body B | --body-file
// F)`: a new comment on the issue by the account logged in, or the bot for
// an installation token. It prints the comment's URL, the issue's with
// #issuecomment- and the comment's database id.
func (c *call) issueComment(args []string) error {
	const cmd = "issue comment {<number> | <url>}"
	p, err := parseFlags(cmd, issueCommentFlags, args)
	if err != nil {
		return err
	}
	if len(p.args) != 1 {
		return usage("accepts 1 arg(s), received %d\n\nUsage:  gh %s [flags]", len(p.args), cmd)
	}
	body, hasBody, err := c.body(p)
	if err != nil {
		return err
	}
	if !hasBody {
		return usage("`--body`, `--body-file` or `--web` required when not running interactively")
	}
	author, err := c.author()
	if err != nil {
		return err
	}
	r, is, err := c.issueOf(p.last("repo"), p.args[0])
	if err != nil {
		return err
	}
	is.Comments = append(is.Comments, Comment{Author: author, Body: body, CreatedAt: time.Now().UTC().Truncate(time.Second)})
	if err := WriteIssue(c.state, *is); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s#issuecomment-%d\n", issueURL(r, is.Number), 1000*is.Number+len(is.Comments))
	return nil
}

// labelCreateFlags are those of `gh label create` (2.63).
var labelCreateFlags = []flagSpec{
	repoFlagSpec,
	{long: "color", short: "c", value: true, faked: true},
	{long: "description", short: "d", value: true, faked: true},
	{long: "force", short: "f", faked: true},
	{long: "help", short: "h"},
}

// label is `gh label create NAME [--color C] [--description D]
// [--force]`: NAME joins the repository's labels (LabelsFile). To a pipe
// it prints nothing.
func (c *call) label(args []string) error {
	if len(args) == 0 || args[0] != "create" {
		if len(args) > 0 && slices.Contains([]string{"clone", "delete", "edit", "list"}, args[0]) {
			return notFaked("gh label %s", args[0])
		}
		return usage("Work with GitHub labels.\n\nUsage:  gh label <command> [flags]")
	}
	const cmd = "label create <name>"
	p, err := parseFlags(cmd, labelCreateFlags, args[1:])
	if err != nil {
		return err
	}
	if len(p.args) != 1 {
		return usage("accepts 1 arg(s), received %d\n\nUsage:  gh %s [flags]", len(p.args), cmd)
	}
	if _, err := c.author(); err != nil {
		return err
	}
	if _, err := c.resolveRepo(p.last("repo")); err != nil {
		return err
	}
	unlock, err := c.lock()
	if err != nil {
		return err
	}
	defer unlock()
	labels, err := c.labels()
	if err != nil {
		return err
	}
	name := p.args[0]
	if slices.ContainsFunc(labels, func(l string) bool { return strings.EqualFold(l, name) }) {
		if len(p.flags["force"]) > 0 {
			return nil
		}
		return failure("label with name %q already exists; use `--force` to update its color and description", name)
	}
	return writeJSON(filepath.Join(c.state, LabelsFile), append(labels, name))
}

// body is the body --body or --body-file ("-": stdin) gives, and whether
// one was given.
func (c *call) body(p *parsed) (string, bool, error) {
	_, hasBody := p.flags["body"]
	_, hasFile := p.flags["body-file"]
	switch {
	case hasBody && hasFile:
		return "", false, usage("specify only one of `--body` or `--body-file`")
	case hasBody:
		return p.last("body"), true, nil
	case !hasFile:
		return "", false, nil
	}
	var b []byte
	var err error
	if f := p.last("body-file"); f == "-" {
		b, err = io.ReadAll(c.stdin)
	} else {
		b, err = os.ReadFile(f)
	}
	if err != nil {
		return "", false, failure("%v", err)
	}
	return string(b), true, nil
}

// author is who the call writes as: the account logged in, or Bot for an
// installation token.
func (c *call) author() (string, error) {
	login, err := c.login()
	if err != nil || !installationToken() {
		return login, err
	}
	return Bot, nil
}

// labels are the repository's labels: LabelsFile, or without it those
// its issues carry.
func (c *call) labels() ([]string, error) {
	var labels []string
	err := readJSON(filepath.Join(c.state, LabelsFile), &labels)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return labels, err
	}
	entries, err := os.ReadDir(filepath.Join(c.state, IssuesDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json"))
		if err != nil || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		is, err := ReadIssue(c.state, n)
		if err != nil {
			return nil, err
		}
		for _, l := range is.Labels {
			if !slices.ContainsFunc(labels, func(x string) bool { return strings.EqualFold(x, l) }) {
				labels = append(labels, l)
			}
		}
	}
	return labels, nil
}

// labelsOf are the labels of p's --label flags (each a comma-separated
// list), as the repository names them; one it does not have fails, as
// gh's does.
func (c *call) labelsOf(p *parsed) ([]string, error) {
	if len(p.flags["label"]) == 0 {
		return nil, nil
	}
	known, err := c.labels()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range p.flags["label"] {
		for _, l := range strings.Split(v, ",") {
			if l = strings.TrimSpace(l); l == "" {
				continue
			}
			i := slices.IndexFunc(known, func(x string) bool { return strings.EqualFold(x, l) })
			if i < 0 {
				return nil, failure("could not add label: '%s' not found", l)
			}
			if !slices.Contains(out, known[i]) {
				out = append(out, known[i])
			}
		}
	}
	return out, nil
}

// nextNumber is the number a new issue or pull request gets: one more
// than any in the state.
func (c *call) nextNumber() (int, error) {
	n := 1
	for _, dir := range []string{IssuesDir, PullsDir} {
		entries, err := os.ReadDir(filepath.Join(c.state, dir))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, err
		}
		for _, e := range entries {
			if k, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json")); err == nil {
				n = max(n, k+1)
			}
		}
	}
	return n, nil
}

// issueOf is the issue an argument names (issueArg), as the state holds
// it; one it does not hold GitHub cannot resolve.
func (c *call) issueOf(repoFlag, arg string) (repo, *Issue, error) {
	r, n, err := c.issueArg(repoFlag, arg)
	if err != nil {
		return r, nil, err
	}
	is, err := ReadIssue(c.state, n)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil, failure("GraphQL: Could not resolve to an issue or pull request with the number of %d. (repository.issue)", n)
	}
	return r, is, err
}

// issueArg reads an issue argument, a number (#N too) of the repository
// of -R or an issue URL, which names its repository itself.
func (c *call) issueArg(repoFlag, arg string) (repo, int, error) {
	if u, ok := strings.CutPrefix(arg, "https://"); ok {
		parts := strings.Split(u, "/")
		if len(parts) != 5 || parts[3] != "issues" {
			return repo{}, 0, failure("invalid issue format: %q", arg)
		}
		repoFlag, arg = strings.Join(parts[:3], "/"), parts[4]
	}
	n, err := strconv.Atoi(strings.TrimPrefix(arg, "#"))
	if err != nil || n <= 0 {
		return repo{}, 0, failure("invalid issue format: %q", arg)
	}
	r, err := c.resolveRepo(repoFlag)
	return r, n, err
}
