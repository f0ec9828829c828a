package fakegh

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Version is the gh the fake stands for.
const Version = "2.63.0"

// Main is the fake gh as a program: os.Args, the process's streams, its exit
// code. testscript.Main takes it as a command.
func Main() {
	os.Exit(Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Run answers one call of gh with args and returns its exit code: 0 on
// success, 1 for an error the real gh reports (a missing issue, say), 4
// when not logged in, 2 for a command line the real gh would refuse or the
// fake does not fake.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &call{args: args, stdin: stdin, stdout: stdout, stderr: stderr, state: os.Getenv("FAKE_GH_STATE")}
	if err := c.record(); err != nil {
		fmt.Fprintf(stderr, "fake gh: %v\n", err)
		return 99
	}
	return c.run()
}

// call is one call of the fake.
type call struct {
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
	state          string
	// jq is the --jq of gh api, a path of fields the answer is cut to.
	jq string
}

// exit is a call's end: the message for stderr and the exit code.
type exit struct {
	code int
	msg  string
}

func (e *exit) Error() string { return e.msg }

// usage refuses a command line as the real gh does (its message), exit 2.
func usage(format string, a ...any) error { return &exit{2, fmt.Sprintf(format, a...)} }

// notFaked refuses what the real gh takes but the fake does not answer.
func notFaked(format string, a ...any) error {
	return &exit{2, "fake gh: " + fmt.Sprintf(format, a...) + " is not faked"}
}

// failure is an error the real gh reports, exit 1.
func failure(format string, a ...any) error { return &exit{1, fmt.Sprintf(format, a...)} }

// notLoggedIn is gh's answer without an account.
var notLoggedIn = &exit{4, "To get started with GitHub CLI, please run:  gh auth login\nAlternatively, populate the GH_TOKEN environment variable with a GitHub API authentication token."}

// noActionsToken is gh's answer in a GitHub Actions job (GITHUB_ACTIONS
// is true) given no token: a runner has no account logged in, so the
// state's login is not the job's.
var noActionsToken = &exit{4, "gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable. Example:\n  env:\n    GH_TOKEN: ${{ github.token }}"}

// authenticated refuses a call that needs an account in a GitHub Actions
// job without a token, as gh does before running the command.
func authenticated() error {
	if os.Getenv("GITHUB_ACTIONS") == "true" && os.Getenv("GH_TOKEN") == "" && os.Getenv("GITHUB_TOKEN") == "" {
		return noActionsToken
	}
	return nil
}

// record writes the call to $FAKE_LOG/gh.N/.
func (c *call) record() error {
	log := os.Getenv("FAKE_LOG")
	if log == "" {
		return nil
	}
	if err := os.MkdirAll(log, 0o755); err != nil {
		return err
	}
	var dir string
	for n := 1; ; n++ {
		dir = filepath.Join(log, "gh."+strconv.Itoa(n))
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	var argv strings.Builder
	for _, a := range c.args {
		argv.WriteString(a + "\n")
	}
	cwd, _ := os.Getwd()
	var env strings.Builder
	vars := os.Environ()
	sort.Strings(vars)
	for _, kv := range vars {
		if strings.HasPrefix(kv, "CAIRN_") || strings.HasPrefix(kv, "GH_") {
			env.WriteString(kv + "\n")
		}
	}
	for name, text := range map[string]string{"argv": argv.String(), "cwd": cwd + "\n", "env": env.String(), "stdin": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// run dispatches the call and turns its error into stderr and an exit code.
func (c *call) run() int {
	err := c.dispatch()
	if err == nil {
		return 0
	}
	var e *exit
	if !errors.As(err, &e) {
		e = &exit{1, err.Error()}
	}
	fmt.Fprintln(c.stderr, e.msg)
	return e.code
}

// ghCommands are the real gh's top-level commands (2.63), for refusing
// those it does not have.
var ghCommands = []string{"alias", "api", "attestation", "auth", "browse", "cache", "co", "codespace", "completion",
	"config", "extension", "gist", "gpg-key", "help", "issue", "label", "org", "pr", "project", "release", "repo",
	"ruleset", "run", "search", "secret", "ssh-key", "status", "variable", "version", "workflow"}

func (c *call) dispatch() error {
	if len(c.args) == 0 {
		fmt.Fprintln(c.stdout, "Work seamlessly with GitHub from the command line.")
		return nil
	}
	switch c.args[0] {
	case "--version", "version":
		fmt.Fprintf(c.stdout, "gh version %s (2024-11-27)\nhttps://github.com/cli/cli/releases/tag/v%s\n", Version, Version)
		return nil
	case "api", "pr", "run", "issue", "label":
		if err := authenticated(); err != nil {
			return err
		}
	}
	switch c.args[0] {
	case "api":
		return c.api(c.args[1:])
	case "pr":
		return c.pr(c.args[1:])
	case "run":
		if len(c.args) > 1 && c.args[1] == "view" {
			return c.runView(c.args[2:])
		}
		return notFaked("gh run %s", strings.Join(c.args[1:min(2, len(c.args))], ""))
	case "issue":
		return c.issue(c.args[1:])
	case "label":
		return c.label(c.args[1:])
	}
	if slices.Contains(ghCommands, c.args[0]) {
		return notFaked("gh %s", c.args[0])
	}
	return usage("unknown command %q for \"gh\"\n\nUsage:  gh <command> <subcommand> [flags]", c.args[0])
}

// flagSpec is a flag of a real gh command: its names and whether it takes
// a value; faked says whether the fake answers it.
type flagSpec struct {
	long, short string
	value       bool
	faked       bool
}

// parsed is a command line parsed by parseFlags: each faked flag's values
// in order, and the positional arguments.
type parsed struct {
	flags map[string][]string
	args  []string
}

// parseFlags parses args as pflag does for a gh command named cmd.
func parseFlags(cmd string, specs []flagSpec, args []string) (*parsed, error) {
	p := &parsed{flags: map[string][]string{}}
	find := func(name string, long bool) *flagSpec {
		for i := range specs {
			if long && specs[i].long == name || !long && specs[i].short == name && name != "" {
				return &specs[i]
			}
		}
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.args = append(p.args, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			p.args = append(p.args, a)
			continue
		}
		var spec *flagSpec
		var value string
		hasValue := false
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, value, hasValue = strings.Cut(name, "=")
			spec = find(name, true)
			if spec == nil {
				return nil, usage("unknown flag: --%s\n\nUsage:  gh %s [flags]", name, cmd)
			}
		} else {
			spec = find(a[1:2], false)
			if spec == nil {
				return nil, usage("unknown shorthand flag: %q in %s\n\nUsage:  gh %s [flags]", a[1:2], a, cmd)
			}
			if len(a) > 2 {
				value, hasValue = strings.TrimPrefix(a[2:], "="), true
			}
		}
		if !spec.faked {
			return nil, notFaked("flag --%s of gh %s", spec.long, cmd)
		}
		if spec.value && !hasValue {
			if i+1 >= len(args) {
				return nil, usage("flag needs an argument: --%s\n\nUsage:  gh %s [flags]", spec.long, cmd)
			}
			i++
			value = args[i]
		}
		p.flags[spec.long] = append(p.flags[spec.long], value)
	}
	return p, nil
}

// last is the last value of flag name, "" when it was not given.
func (p *parsed) last(name string) string {
	if v := p.flags[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

// login is the authenticated account, or notLoggedIn.
func (c *call) login() (string, error) {
	if c.state == "" {
		return "", errors.New("fake gh: FAKE_GH_STATE is not set")
	}
	login, err := readLine(c.state, LoginFile)
	if err != nil {
		return "", err
	}
	if login == "" {
		return "", notLoggedIn
	}
	return login, nil
}

// repo is a repository a call names.
type repo struct{ host, owner, name string }

func (r repo) String() string { return r.owner + "/" + r.name }

// resolveRepo reads -R's [HOST/]OWNER/REPO ("" for the state's repo) and
// refuses a repository the fake does not serve, as GitHub does.
func (c *call) resolveRepo(flag string) (repo, error) {
	served, err := readLine(c.state, RepoFile)
	if err != nil {
		return repo{}, err
	}
	if flag == "" {
		flag = served
	}
	if flag == "" {
		return repo{}, usage("fake gh: no repository: pass --repo or write $FAKE_GH_STATE/%s", RepoFile)
	}
	parts := strings.Split(flag, "/")
	var r repo
	switch len(parts) {
	case 2:
		r = repo{"github.com", parts[0], parts[1]}
	case 3:
		r = repo{strings.ToLower(parts[0]), parts[1], parts[2]}
	default:
		return repo{}, failure("expected the \"[HOST/]OWNER/REPO\" format, got %q", flag)
	}
	if served != "" && !strings.EqualFold(served, r.host+"/"+r.String()) && !strings.EqualFold(served, r.String()) {
		return repo{}, failure("GraphQL: Could not resolve to a Repository with the name '%s'. (repository)", r)
	}
	return r, nil
}

// issueURL is the web address of issue n of r.
func issueURL(r repo, n int) string { return fmt.Sprintf("https://%s/%s/issues/%d", r.host, r, n) }

// issueViewFields are the fields of `gh issue view --json` (gh 2.63); the
// fake answers those of issueViewFaked.
var issueViewFields = []string{"assignees", "author", "body", "closed", "closedAt", "closedByPullRequestsReferences",
	"comments", "createdAt", "id", "isPinned", "labels", "milestone", "number", "projectCards", "projectItems",
	"reactionGroups", "state", "stateReason", "title", "updatedAt", "url"}

var issueViewFaked = []string{"assignees", "author", "body", "closed", "comments", "createdAt", "id", "labels",
	"number", "state", "title", "updatedAt", "url"}

var issueViewFlags = []flagSpec{
	{long: "repo", short: "R", value: true, faked: true},
	{long: "json", value: true, faked: true},
	{long: "comments", short: "c"},
	{long: "jq", short: "q", value: true},
	{long: "template", short: "t", value: true},
	{long: "web", short: "w"},
	{long: "help", short: "h"},
}

// issueView is `gh issue view {NUMBER | URL} [--repo R] --json FIELDS`.
func (c *call) issueView(args []string) error {
	const cmd = "issue view {<number> | <url>}"
	p, err := parseFlags(cmd, issueViewFlags, args)
	if err != nil {
		return err
	}
	if len(p.args) != 1 {
		return usage("accepts 1 arg(s), received %d\n\nUsage:  gh %s [flags]", len(p.args), cmd)
	}
	if _, ok := p.flags["json"]; !ok {
		return notFaked("gh issue view without --json")
	}
	var fields []string
	for _, f := range strings.Split(p.last("json"), ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !slices.Contains(issueViewFields, f) {
			return failure("Unknown JSON field: %q\nAvailable fields:\n  %s", f, strings.Join(issueViewFields, "\n  "))
		}
		if !slices.Contains(issueViewFaked, f) {
			return notFaked("JSON field %q of gh issue view", f)
		}
		fields = append(fields, f)
	}
	if len(fields) == 0 {
		return failure("Specify one or more comma-separated fields for `--json`:\n  %s", strings.Join(issueViewFields, "\n  "))
	}
	login, err := c.login()
	if err != nil {
		return err
	}
	r, n, err := c.issueArg(p.last("repo"), p.args[0])
	if err != nil {
		return err
	}
	is, err := ReadIssue(c.state, n)
	if errors.Is(err, fs.ErrNotExist) {
		return failure("GraphQL: Could not resolve to an issue or pull request with the number of %d. (repository.issue)", n)
	}
	if err != nil {
		return err
	}
	all := map[string]any{
		"assignees": []any{},
		"author":    map[string]any{"id": "U_fake" + is.Author, "is_bot": strings.HasPrefix(is.Author, "app/"), "login": is.Author, "name": ""},
		"body":      is.Body,
		"closed":    is.State == "CLOSED",
		"createdAt": is.CreatedAt.UTC().Format(time.RFC3339),
		"id":        fmt.Sprintf("I_fake%d", is.Number),
		"number":    is.Number,
		"state":     is.State,
		"title":     is.Title,
		"updatedAt": updatedAt(is).UTC().Format(time.RFC3339),
		"url":       issueURL(r, is.Number),
	}
	labels := []any{}
	for _, l := range is.Labels {
		labels = append(labels, map[string]any{"id": "LA_fake" + l, "name": l, "description": "", "color": "ededed"})
	}
	all["labels"] = labels
	comments := []any{}
	for i, cm := range is.Comments {
		comments = append(comments, map[string]any{
			"id":                  is.commentID(i),
			"author":              map[string]any{"login": cm.Author},
			"authorAssociation":   "NONE",
			"body":                cm.Body,
			"createdAt":           cm.CreatedAt.UTC().Format(time.RFC3339),
			"includesCreatedEdit": len(cm.Edits) > 0,
			"isMinimized":         false,
			"minimizedReason":     "",
			"reactionGroups":      []any{},
			"url":                 fmt.Sprintf("%s#issuecomment-%d", issueURL(r, is.Number), 1000*is.Number+i+1),
			"viewerDidAuthor":     strings.EqualFold(cm.Author, login),
		})
	}
	all["comments"] = comments
	out := map[string]any{}
	for _, f := range fields {
		out[f] = all[f]
	}
	return c.writeJSON(out)
}

// updatedAt is the issue's last change: its creation or latest edit.
func updatedAt(is *Issue) time.Time {
	t := is.CreatedAt
	for _, e := range is.Edits {
		if e.EditedAt.After(t) {
			t = e.EditedAt
		}
	}
	return t
}

// writeJSON writes v as gh does to a pipe: one line.
func (c *call) writeJSON(v any) error {
	if c.jq != "" {
		// --jq .FIELD...: the field, a string as text, as gh prints it.
		for _, k := range strings.Split(strings.TrimPrefix(c.jq, "."), ".") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		if str, ok := v.(string); ok {
			_, err := fmt.Fprintln(c.stdout, str)
			return err
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.stdout.Write(append(b, '\n'))
	return err
}

// fieldPath is the --jq the fake answers: a path of fields.
var fieldPath = regexp.MustCompile(`^(\.[A-Za-z_][A-Za-z0-9_]*)+$`)

// collaboratorPermission is the REST endpoint of an account's permission on
// a repository: OWNER/REPO, then the account.
var collaboratorPermission = regexp.MustCompile(`^repos/([^/]+/[^/]+)/collaborators/([^/]+)/permission$`)

// permission is `gh api repos/OWNER/REPO/collaborators/LOGIN/permission`:
// the account's permission from permissions.json, admin for the account gh
// is logged in as and read for any other it does not name, as on a public
// repository.
func (c *call) permission(repo, account, login string) error {
	if served, err := readLine(c.state, RepoFile); err != nil {
		return err
	} else if served != "" && !strings.EqualFold(served[strings.Index(served, "/")+1:], repo) {
		return &exit{1, "gh: Not Found (HTTP 404)"}
	}
	perms := map[string]string{}
	if err := readJSON(filepath.Join(c.state, PermissionsFile), &perms); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	perm, ok := perms[account]
	if !ok {
		perm = "read"
		if strings.EqualFold(account, login) {
			perm = "admin"
		}
	}
	role := map[string]string{"admin": "admin", "maintain": "maintain", "write": "write", "triage": "triage", "read": "read"}[perm]
	return c.writeJSON(map[string]any{"permission": perm, "role_name": role, "user": map[string]any{"login": account}})
}

var apiFlags = []flagSpec{
	{long: "hostname", value: true, faked: true},
	{long: "method", short: "X", value: true, faked: true},
	{long: "raw-field", short: "f", value: true, faked: true},
	{long: "field", short: "F", value: true, faked: true},
	{long: "header", short: "H", value: true},
	{long: "include", short: "i"},
	{long: "input", value: true},
	{long: "jq", short: "q", value: true, faked: true},
	{long: "template", short: "t", value: true},
	{long: "paginate"},
	{long: "slurp"},
	{long: "preview", short: "p", value: true},
	{long: "silent"},
	{long: "cache", value: true},
	{long: "verbose"},
	{long: "help", short: "h"},
}

// api is `gh api [--hostname H] [-X M] [-f K=V] [-F K=V] ENDPOINT`.
func (c *call) api(args []string) error {
	const cmd = "api <endpoint>"
	p, err := parseFlags(cmd, apiFlags, args)
	if err != nil {
		return err
	}
	if len(p.args) != 1 {
		return usage("accepts 1 arg(s), received %d\n\nUsage:  gh %s [flags]", len(p.args), cmd)
	}
	login, err := c.login()
	if err != nil {
		return err
	}
	host := p.last("hostname")
	if host == "" {
		host = "github.com"
	}
	served, err := readLine(c.state, RepoFile)
	if err != nil {
		return err
	}
	if served != "" && strings.Count(served, "/") == 2 && !strings.EqualFold(strings.SplitN(served, "/", 2)[0], host) {
		return &exit{4, fmt.Sprintf("You are not logged into any accounts on %s", host)}
	}
	vars := map[string]any{}
	for _, flag := range []string{"raw-field", "field"} {
		for _, kv := range p.flags[flag] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return failure("field %q requires a value separated by an '=' sign", kv)
			}
			if strings.Contains(k, "[") {
				return notFaked("array and object fields (%q)", k)
			}
			vars[k] = v
			if flag == "field" {
				typed, err := typedField(v)
				if err != nil {
					return err
				}
				vars[k] = typed
			}
		}
	}
	method := strings.ToUpper(p.last("method"))
	endpoint := strings.TrimPrefix(p.args[0], "/")
	if jq := p.last("jq"); jq != "" {
		if endpoint == "graphql" || !fieldPath.MatchString(jq) {
			return notFaked("gh api --jq %q (a field, such as .permission, of a REST answer only)", jq)
		}
		c.jq = jq
	}
	if m := collaboratorPermission.FindStringSubmatch(endpoint); m != nil {
		if method != "" && method != "GET" || len(vars) > 0 {
			return notFaked("gh api %s with a method or fields", endpoint)
		}
		return c.permission(m[1], m[2], login)
	}
	switch endpoint {
	case "user":
		if method != "" && method != "GET" || len(vars) > 0 {
			return notFaked("gh api user with a method or fields")
		}
		if installationToken() {
			// An app's installation token, as a workflow's GITHUB_TOKEN
			// is, acts as no user: GitHub refuses it /user.
			fmt.Fprintln(c.stdout, `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/users/users#get-the-authenticated-user","status":"403"}`)
			return failure("gh: Resource not accessible by integration (HTTP 403)")
		}
		return c.writeJSON(map[string]any{"login": login, "id": 1, "type": "User", "site_admin": false})
	case "graphql":
		if method != "" && method != "POST" {
			return notFaked("gh api graphql with method %q", method)
		}
		return c.graphql(host, login, vars)
	default:
		return notFaked("gh api endpoint %q", endpoint)
	}
}

// ghToken is the token gh reads for github.com: GH_TOKEN, else
// GITHUB_TOKEN.
func ghToken() string {
	if token, ok := os.LookupEnv("GH_TOKEN"); ok {
		return token
	}
	return os.Getenv("GITHUB_TOKEN")
}

// installationToken says whether gh's token is a GitHub App's
// installation token (ghs_), as a workflow's GITHUB_TOKEN is.
func installationToken() bool { return strings.HasPrefix(ghToken(), "ghs_") }

// typedField converts a -F value as gh does: true, false, null and integers
// become JSON's; @FILE reads a file.
func typedField(v string) (any, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		return n, nil
	}
	if f, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, failure("%v", err)
		}
		return string(b), nil
	}
	return v, nil
}

// operation finds a GraphQL document's operation name.
var operation = regexp.MustCompile(`^\s*(query|mutation)\s+([A-Za-z_][A-Za-z0-9_]*)`)

// graphqlError answers as GitHub does a query that names nothing: the
// error in the data on stdout, "gh: MESSAGE" on stderr, exit 1.
func (c *call) graphqlError(path []string, kind, msg string) error {
	data := map[string]any{}
	cur := data
	for i, p := range path {
		if i == len(path)-1 {
			cur[p] = nil
		} else {
			next := map[string]any{}
			cur[p] = next
			cur = next
		}
	}
	_ = c.writeJSON(map[string]any{"data": data, "errors": []any{map[string]any{"type": kind, "path": path, "message": msg}}})
	return failure("gh: %s", msg)
}

// graphql answers the GraphQL operations cairn sends, by name.
func (c *call) graphql(host, login string, vars map[string]any) error {
	query, _ := vars["query"].(string)
	m := operation.FindStringSubmatch(query)
	if m == nil {
		return notFaked("an anonymous GraphQL operation")
	}
	switch m[2] {
	case "IssueEdits":
		return c.issueEdits(host, query, vars)
	default:
		return notFaked("GraphQL operation %q", m[2])
	}
}

// pageSize is how many comments a page of the fake's GraphQL holds.
const pageSize = 100

// issueEdits answers the IssueEdits operation: the edits of an issue's
// body and of a page of its comments.
func (c *call) issueEdits(host, query string, vars map[string]any) error {
	for _, field := range []string{"lastEditedAt", "editor", "userContentEdits", "editedAt", "pageInfo", "hasNextPage", "endCursor", "id"} {
		if !strings.Contains(query, field) {
			return notFaked("IssueEdits without the field %q", field)
		}
	}
	owner, _ := vars["owner"].(string)
	name, _ := vars["repo"].(string)
	number, ok := vars["number"].(int)
	if owner == "" || name == "" || !ok {
		return failure("gh: Variable $number of type Int! was provided invalid value")
	}
	if _, err := c.resolveRepo(host + "/" + owner + "/" + name); err != nil {
		return c.graphqlError([]string{"repository"}, "NOT_FOUND", fmt.Sprintf("Could not resolve to a Repository with the name '%s/%s'.", owner, name))
	}
	is, err := ReadIssue(c.state, number)
	if errors.Is(err, fs.ErrNotExist) {
		return c.graphqlError([]string{"repository", "issue"}, "NOT_FOUND", fmt.Sprintf("Could not resolve to an Issue with the number of %d.", number))
	}
	if err != nil {
		return err
	}
	start := 0
	if after, _ := vars["after"].(string); after != "" {
		k, err := strconv.Atoi(strings.TrimPrefix(after, "cursor:"))
		if err != nil || !strings.HasPrefix(after, "cursor:") {
			return failure("gh: `%s` does not appear to be a valid cursor.", after)
		}
		start = k
	}
	end := min(start+pageSize, len(is.Comments))
	nodes := []any{}
	for i := start; i < end; i++ {
		node := editable(is.Comments[i].Edits)
		node["id"] = is.commentID(i)
		nodes = append(nodes, node)
	}
	issue := editable(is.Edits)
	issue["comments"] = map[string]any{
		"pageInfo": map[string]any{"hasNextPage": end < len(is.Comments), "endCursor": fmt.Sprintf("cursor:%d", end)},
		"nodes":    nodes,
	}
	return c.writeJSON(map[string]any{"data": map[string]any{"repository": map[string]any{"issue": issue}}})
}

// editable is what GitHub says of the edits of a body or comment: the last
// editor and time, and the history, newest first.
func editable(edits []Edit) map[string]any {
	sorted := slices.Clone(edits)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].EditedAt.After(sorted[j].EditedAt) })
	actor := func(login string) any {
		if login == "" {
			return nil
		}
		return map[string]any{"login": login}
	}
	out := map[string]any{"lastEditedAt": nil, "editor": nil}
	nodes := []any{}
	for _, e := range sorted {
		nodes = append(nodes, map[string]any{"editedAt": e.EditedAt.UTC().Format(time.RFC3339), "editor": actor(e.Editor)})
	}
	if len(sorted) > 0 {
		out["lastEditedAt"] = sorted[0].EditedAt.UTC().Format(time.RFC3339)
		out["editor"] = actor(sorted[0].Editor)
	}
	out["userContentEdits"] = map[string]any{"nodes": nodes}
	return out
}
