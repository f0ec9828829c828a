package fakegh

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/internal/proc"
)

// The files of the state folder about pull requests and their checks.
const (
	OriginFile    = "origin"
	PullsDir      = "pulls"
	ChecksFile    = "checks.json"
	CheckRunsFile = "checkruns.json"
	lockName      = ".lock"
)

// PullRequest is a pull request of the fake's state, pulls/N.json.
type PullRequest struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Author string `json:"author"`
	// Head and Base are branch names of the served repository.
	Head string `json:"head"`
	Base string `json:"base"`
	// State is OPEN, CLOSED or MERGED.
	State     string    `json:"state"`
	IsDraft   bool      `json:"isDraft"`
	CreatedAt time.Time `json:"createdAt"`
	// Merge is set once the pull request is merged.
	Merge *Merge `json:"merge,omitempty"`
}

// Merge is how a pull request was merged: its method (merge, rebase or
// squash), the head commit merged, by whom and when.
type Merge struct {
	Method  string    `json:"method"`
	HeadSHA string    `json:"headSha"`
	By      string    `json:"by"`
	At      time.Time `json:"at"`
}

// CheckSpec is a check every pull request of the state gets, from
// checks.json: it fails for the first Fails distinct head commits pushed
// (the check runs again on each), then passes; on each head it is pending
// for its first Pending reads. Log is the log of its failed steps.
type CheckSpec struct {
	Name     string `json:"name"`
	Workflow string `json:"workflow,omitempty"`
	Fails    int    `json:"fails,omitempty"`
	Pending  int    `json:"pending,omitempty"`
	Log      string `json:"log,omitempty"`
}

// CheckRun is a check's run on one head commit, in checkruns.json: its
// attempt (1 for the first head the check ran on), how often it was read,
// and its run and job ids.
type CheckRun struct {
	Check   string `json:"check"`
	SHA     string `json:"sha"`
	Attempt int    `json:"attempt"`
	Reads   int    `json:"reads"`
	RunID   int    `json:"runId"`
	JobID   int    `json:"jobId"`
}

// failed reports whether the run ended failing, given its check.
func (r *CheckRun) failed(spec CheckSpec) bool {
	return r.Reads > spec.Pending && r.Attempt <= spec.Fails
}

// SetOrigin names the bare repository the served repository's branches are
// read from.
func SetOrigin(dir, bare string) error {
	return writeFile(filepath.Join(dir, OriginFile), []byte(bare+"\n"))
}

// WriteChecks writes the checks every pull request gets.
func WriteChecks(dir string, checks []CheckSpec) error {
	return writeJSON(filepath.Join(dir, ChecksFile), checks)
}

// ReadPullRequest reads pull request number from the state folder dir;
// fs.ErrNotExist when there is none.
func ReadPullRequest(dir string, number int) (*PullRequest, error) {
	var pr PullRequest
	if err := readJSON(filepath.Join(dir, PullsDir, strconv.Itoa(number)+".json"), &pr); err != nil {
		return nil, err
	}
	return &pr, nil
}

// PullRequests reads every pull request of the state folder dir, by
// number.
func PullRequests(dir string) ([]*PullRequest, error) {
	entries, err := os.ReadDir(filepath.Join(dir, PullsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var prs []*PullRequest
	for _, e := range entries {
		n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json"))
		if err != nil || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		pr, err := ReadPullRequest(dir, n)
		if err != nil {
			return nil, err
		}
		prs = append(prs, pr)
	}
	sort.Slice(prs, func(i, j int) bool { return prs[i].Number < prs[j].Number })
	return prs, nil
}

// WritePullRequest writes pr into the state folder dir.
func WritePullRequest(dir string, pr *PullRequest) error {
	return writeJSON(filepath.Join(dir, PullsDir, strconv.Itoa(pr.Number)+".json"), pr)
}

// CheckRuns reads the check runs of the state folder dir.
func CheckRuns(dir string) ([]CheckRun, error) {
	var runs []CheckRun
	err := readJSON(filepath.Join(dir, CheckRunsFile), &runs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return runs, err
}

// readJSON reads the JSON file path into v.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeJSON writes v as indented JSON to path.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, append(b, '\n'))
}

// lock holds the state folder's lock until the returned function is
// called, so that concurrent calls read and write it one at a time.
func (c *call) lock() (func(), error) {
	if c.state == "" {
		return nil, errors.New("fake gh: FAKE_GH_STATE is not set")
	}
	if err := os.MkdirAll(c.state, 0o755); err != nil {
		return nil, err
	}
	f, err := proc.Lock(filepath.Join(c.state, lockName), true)
	if err != nil {
		return nil, err
	}
	return func() { _ = proc.Unlock(f) }, nil
}

// branchSHA is the commit branch is at in the served repository: in the
// bare repository the state names, else in the remote origin of the
// current folder. It is "" when the branch is not there.
func (c *call) branchSHA(branch string) (string, error) {
	origin, err := readLine(c.state, OriginFile)
	if err != nil {
		return "", err
	}
	if origin != "" {
		out, err := exec.Command("git", "--git-dir", origin, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch+"^{commit}").Output()
		if err != nil {
			return "", nil
		}
		return strings.TrimSpace(string(out)), nil
	}
	out, err := exec.Command("git", "ls-remote", "origin", "refs/heads/"+branch).Output()
	if err != nil {
		return "", fmt.Errorf("fake gh: read branch %q of origin: %w", branch, err)
	}
	sha, _, _ := strings.Cut(string(out), "\t")
	return strings.TrimSpace(sha), nil
}

// pullURL is the web address of pull request n of r.
func pullURL(r repo, n int) string { return fmt.Sprintf("https://%s/%s/pull/%d", r.host, r, n) }

// pr dispatches `gh pr SUBCOMMAND`.
func (c *call) pr(args []string) error {
	if len(args) == 0 {
		return usage("Work with GitHub pull requests.\n\nUsage:  gh pr <command> [flags]")
	}
	sub := map[string]func([]string) error{
		"create": c.prCreate,
		"list":   c.prList,
		"view":   c.prView,
		"edit":   c.prEdit,
		"ready":  c.prReady,
		"checks": c.prChecks,
		"merge":  c.prMerge,
	}
	if f, ok := sub[args[0]]; ok {
		unlock, err := c.lock()
		if err != nil {
			return err
		}
		defer unlock()
		return f(args[1:])
	}
	real := []string{"checkout", "close", "comment", "diff", "lock", "reopen", "review", "revert", "status", "unlock", "update-branch"}
	if slices.Contains(real, args[0]) {
		return notFaked("gh pr %s", args[0])
	}
	return usage("unknown command %q for \"gh pr\"", args[0])
}

// repoFlagSpec is the --repo flag every pr and run command takes.
var repoFlagSpec = flagSpec{long: "repo", short: "R", value: true, faked: true}

// prCreateFlags are those of `gh pr create` (2.63).
var prCreateFlags = []flagSpec{
	repoFlagSpec,
	{long: "base", short: "B", value: true, faked: true},
	{long: "head", short: "H", value: true, faked: true},
	{long: "title", short: "t", value: true, faked: true},
	{long: "body", short: "b", value: true, faked: true},
	{long: "draft", short: "d", faked: true},
	{long: "assignee", short: "a", value: true},
	{long: "body-file", short: "F", value: true},
	{long: "dry-run"},
	{long: "editor", short: "e"},
	{long: "fill", short: "f"},
	{long: "fill-first"},
	{long: "fill-verbose"},
	{long: "label", short: "l", value: true},
	{long: "milestone", short: "m", value: true},
	{long: "no-maintainer-edit"},
	{long: "project", short: "p", value: true},
	{long: "recover", value: true},
	{long: "reviewer", short: "r", value: true},
	{long: "template", short: "T", value: true},
	{long: "web", short: "w"},
	{long: "help", short: "h"},
}

// prCreate is `gh pr create --head H --base B --title T --body B [--draft]`.
func (c *call) prCreate(args []string) error {
	const cmd = "pr create"
	p, err := parseFlags(cmd, prCreateFlags, args)
	if err != nil {
		return err
	}
	if len(p.args) > 0 {
		return usage("unknown argument %q; please quote all values that have spaces\n\nUsage:  gh %s [flags]", p.args[0], cmd)
	}
	_, hasTitle := p.flags["title"]
	_, hasBody := p.flags["body"]
	if !hasTitle || !hasBody {
		return usage("must provide `--title` and `--body` (or `--fill` or `fill-first` or `--fillverbose`) when not running interactively")
	}
	head, base := p.last("head"), p.last("base")
	if head == "" || base == "" {
		return notFaked("gh pr create without --head and --base")
	}
	login, err := c.login()
	if err != nil {
		return err
	}
	r, err := c.resolveRepo(p.last("repo"))
	if err != nil {
		return err
	}
	if installationToken() {
		if _, err := os.Stat(filepath.Join(c.state, ActionsPRsFile)); errors.Is(err, fs.ErrNotExist) {
			return failure("pull request create failed: GraphQL: GitHub Actions is not permitted to create or approve pull requests (createPullRequest)")
		} else if err != nil {
			return err
		}
	}
	prs, err := PullRequests(c.state)
	if err != nil {
		return err
	}
	for _, pr := range prs {
		if pr.Head == head && pr.Base == base && pr.State == "OPEN" {
			return failure("a pull request for branch %q into branch %q already exists:\n%s", head, base, pullURL(r, pr.Number))
		}
	}
	headSHA, err := c.branchSHA(head)
	if err != nil {
		return err
	}
	baseSHA, err := c.branchSHA(base)
	if err != nil {
		return err
	}
	switch {
	case headSHA == "" || baseSHA == "":
		return failure("pull request create failed: GraphQL: Head sha can't be blank, Base sha can't be blank, No commits between %s and %s, Head ref must be a branch (createPullRequest)", base, head)
	case headSHA == baseSHA:
		return failure("pull request create failed: GraphQL: No commits between %s and %s (createPullRequest)", base, head)
	}
	n, err := c.nextNumber()
	if err != nil {
		return err
	}
	pr := &PullRequest{Number: n, Title: p.last("title"), Body: p.last("body"), Author: login, Head: head, Base: base,
		State: "OPEN", IsDraft: len(p.flags["draft"]) > 0, CreatedAt: time.Now().UTC().Truncate(time.Second)}
	if err := WritePullRequest(c.state, pr); err != nil {
		return err
	}
	fmt.Fprintln(c.stdout, pullURL(r, n))
	return nil
}

// prFields are the JSON fields of `gh pr list` and `gh pr view` (2.63);
// the fake answers those of prFaked.
var prFields = []string{"additions", "assignees", "author", "autoMergeRequest", "baseRefName", "baseRefOid", "body",
	"changedFiles", "closed", "closedAt", "comments", "commits", "createdAt", "deletions", "files", "fullDatabaseId",
	"headRefName", "headRefOid", "headRepository", "headRepositoryOwner", "id", "isCrossRepository", "isDraft", "labels",
	"latestReviews", "maintainerCanModify", "mergeCommit", "mergeStateStatus", "mergeable", "mergedAt", "mergedBy",
	"milestone", "number", "potentialMergeCommit", "projectCards", "projectItems", "reactionGroups", "reviewDecision",
	"reviewRequests", "reviews", "state", "statusCheckRollup", "title", "updatedAt", "url"}

var prFaked = []string{"author", "baseRefName", "body", "closed", "createdAt", "headRefName", "headRefOid", "id",
	"isDraft", "mergedAt", "number", "state", "title", "url"}

// jsonFields reads --json's fields against all (gh's) and faked.
func jsonFields(cmd, list string, all, faked []string) ([]string, error) {
	var fields []string
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !slices.Contains(all, f) {
			return nil, failure("Unknown JSON field: %q\nAvailable fields:\n  %s", f, strings.Join(all, "\n  "))
		}
		if !slices.Contains(faked, f) {
			return nil, notFaked("JSON field %q of gh %s", f, cmd)
		}
		fields = append(fields, f)
	}
	if len(fields) == 0 {
		return nil, failure("Specify one or more comma-separated fields for `--json`:\n  %s", strings.Join(all, "\n  "))
	}
	return fields, nil
}

// prJSON is pr as gh's JSON, with only fields.
func (c *call) prJSON(r repo, pr *PullRequest, fields []string) (map[string]any, error) {
	all := map[string]any{
		"author":      map[string]any{"id": "U_fake" + pr.Author, "is_bot": false, "login": pr.Author, "name": ""},
		"baseRefName": pr.Base,
		"body":        pr.Body,
		"closed":      pr.State != "OPEN",
		"createdAt":   pr.CreatedAt.UTC().Format(time.RFC3339),
		"headRefName": pr.Head,
		"id":          fmt.Sprintf("PR_fake%d", pr.Number),
		"isDraft":     pr.IsDraft,
		"mergedAt":    nil,
		"number":      pr.Number,
		"state":       pr.State,
		"title":       pr.Title,
		"url":         pullURL(r, pr.Number),
	}
	if pr.Merge != nil {
		all["mergedAt"] = pr.Merge.At.UTC().Format(time.RFC3339)
	}
	if slices.Contains(fields, "headRefOid") {
		sha, err := c.headOf(pr)
		if err != nil {
			return nil, err
		}
		all["headRefOid"] = sha
	}
	out := map[string]any{}
	for _, f := range fields {
		out[f] = all[f]
	}
	return out, nil
}

// headOf is the head commit of pr: the one merged, else its branch's.
func (c *call) headOf(pr *PullRequest) (string, error) {
	if pr.Merge != nil {
		return pr.Merge.HeadSHA, nil
	}
	return c.branchSHA(pr.Head)
}

var prListFlags = []flagSpec{
	repoFlagSpec,
	{long: "head", short: "H", value: true, faked: true},
	{long: "base", short: "B", value: true, faked: true},
	{long: "state", short: "s", value: true, faked: true},
	{long: "json", value: true, faked: true},
	{long: "limit", short: "L", value: true, faked: true},
	{long: "app", value: true},
	{long: "assignee", short: "a", value: true},
	{long: "author", short: "A", value: true},
	{long: "draft", short: "d"},
	{long: "jq", short: "q", value: true},
	{long: "label", short: "l", value: true},
	{long: "search", short: "S", value: true},
	{long: "template", short: "t", value: true},
	{long: "web", short: "w"},
	{long: "help", short: "h"},
}

// prList is `gh pr list [--head H] [--base B] [--state S] --json FIELDS`.
func (c *call) prList(args []string) error {
	const cmd = "pr list"
	p, err := parseFlags(cmd, prListFlags, args)
	if err != nil {
		return err
	}
	if len(p.args) > 0 {
		return usage("unknown argument %q for \"gh pr list\"", p.args[0])
	}
	if _, ok := p.flags["json"]; !ok {
		return notFaked("gh pr list without --json")
	}
	fields, err := jsonFields(cmd, p.last("json"), prFields, prFaked)
	if err != nil {
		return err
	}
	state := strings.ToLower(p.last("state"))
	if state == "" {
		state = "open"
	}
	if !slices.Contains([]string{"open", "closed", "merged", "all"}, state) {
		return usage("invalid argument %q for \"-s, --state\" flag: valid values are {open|closed|merged|all}", state)
	}
	limit := 30
	if l := p.last("limit"); l != "" {
		if limit, err = strconv.Atoi(l); err != nil || limit <= 0 {
			return usage("invalid value for --limit: %v", l)
		}
	}
	if _, err := c.login(); err != nil {
		return err
	}
	r, err := c.resolveRepo(p.last("repo"))
	if err != nil {
		return err
	}
	prs, err := PullRequests(c.state)
	if err != nil {
		return err
	}
	out := []any{}
	// gh lists the newest first.
	for i := len(prs) - 1; i >= 0 && len(out) < limit; i-- {
		pr := prs[i]
		if h := p.last("head"); h != "" && pr.Head != h {
			continue
		}
		if b := p.last("base"); b != "" && pr.Base != b {
			continue
		}
		if state != "all" && !strings.EqualFold(pr.State, state) {
			continue
		}
		j, err := c.prJSON(r, pr, fields)
		if err != nil {
			return err
		}
		out = append(out, j)
	}
	return c.writeJSON(out)
}

// findPR reads the pull request arg names: a number, "#N" or its URL.
func (c *call) findPR(arg, repoFlag string) (repo, *PullRequest, error) {
	if u, ok := strings.CutPrefix(arg, "https://"); ok {
		parts := strings.Split(u, "/")
		if len(parts) != 5 || parts[3] != "pull" {
			return repo{}, nil, failure("invalid pull request URL %q", arg)
		}
		repoFlag, arg = strings.Join(parts[:3], "/"), parts[4]
	}
	n, err := strconv.Atoi(strings.TrimPrefix(arg, "#"))
	if err != nil || n <= 0 {
		return repo{}, nil, notFaked("naming a pull request by its branch (%q)", arg)
	}
	r, err := c.resolveRepo(repoFlag)
	if err != nil {
		return repo{}, nil, err
	}
	pr, err := ReadPullRequest(c.state, n)
	if errors.Is(err, fs.ErrNotExist) {
		return repo{}, nil, failure("GraphQL: Could not resolve to a PullRequest with the number of %d. (repository.pullRequest)", n)
	}
	return r, pr, err
}

// onePR parses a pr command naming one pull request, and reads it. With
// json set, the command is faked only with --json.
func (c *call) onePR(cmd string, specs []flagSpec, args []string, json bool) (*parsed, repo, *PullRequest, error) {
	p, err := parseFlags(cmd, specs, args)
	if err != nil {
		return nil, repo{}, nil, err
	}
	if _, ok := p.flags["json"]; json && !ok {
		return nil, repo{}, nil, notFaked("gh %s without --json", strings.Join(strings.Fields(cmd)[:2], " "))
	}
	if len(p.args) != 1 {
		if len(p.args) == 0 {
			return nil, repo{}, nil, notFaked("gh %s without naming the pull request", strings.Join(strings.Fields(cmd)[:2], " "))
		}
		return nil, repo{}, nil, usage("accepts at most 1 arg(s), received %d\n\nUsage:  gh %s [flags]", len(p.args), cmd)
	}
	if _, err := c.login(); err != nil {
		return nil, repo{}, nil, err
	}
	r, pr, err := c.findPR(p.args[0], p.last("repo"))
	return p, r, pr, err
}

var prViewFlags = []flagSpec{
	repoFlagSpec,
	{long: "json", value: true, faked: true},
	{long: "comments", short: "c"},
	{long: "jq", short: "q", value: true},
	{long: "template", short: "t", value: true},
	{long: "web", short: "w"},
	{long: "help", short: "h"},
}

// prView is `gh pr view N --json FIELDS`.
func (c *call) prView(args []string) error {
	const cmd = "pr view [<number> | <url> | <branch>]"
	p, r, pr, err := c.onePR(cmd, prViewFlags, args, true)
	if err != nil {
		return err
	}
	fields, err := jsonFields("pr view", p.last("json"), prFields, prFaked)
	if err != nil {
		return err
	}
	j, err := c.prJSON(r, pr, fields)
	if err != nil {
		return err
	}
	return c.writeJSON(j)
}

var prEditFlags = []flagSpec{
	repoFlagSpec,
	{long: "title", short: "t", value: true, faked: true},
	{long: "body", short: "b", value: true, faked: true},
	{long: "base", short: "B", value: true, faked: true},
	{long: "add-assignee", value: true},
	{long: "add-label", value: true},
	{long: "add-project", value: true},
	{long: "add-reviewer", value: true},
	{long: "body-file", short: "F", value: true},
	{long: "milestone", short: "m", value: true},
	{long: "remove-assignee", value: true},
	{long: "remove-label", value: true},
	{long: "remove-milestone"},
	{long: "remove-project", value: true},
	{long: "remove-reviewer", value: true},
	{long: "help", short: "h"},
}

// prEdit is `gh pr edit N [--title T] [--body B] [--base B]`.
func (c *call) prEdit(args []string) error {
	const cmd = "pr edit [<number> | <url> | <branch>]"
	p, r, pr, err := c.onePR(cmd, prEditFlags, args, false)
	if err != nil {
		return err
	}
	edits := 0
	for _, f := range []string{"title", "body", "base"} {
		edits += len(p.flags[f])
	}
	if edits == 0 {
		return usage("specify at least one field to edit")
	}
	if v, ok := p.flags["title"]; ok {
		pr.Title = v[len(v)-1]
	}
	if v, ok := p.flags["body"]; ok {
		pr.Body = v[len(v)-1]
	}
	if v, ok := p.flags["base"]; ok {
		pr.Base = v[len(v)-1]
	}
	if err := WritePullRequest(c.state, pr); err != nil {
		return err
	}
	fmt.Fprintln(c.stdout, pullURL(r, pr.Number))
	return nil
}

var prReadyFlags = []flagSpec{
	repoFlagSpec,
	{long: "undo", faked: true},
	{long: "help", short: "h"},
}

// prReady is `gh pr ready N [--undo]`.
func (c *call) prReady(args []string) error {
	const cmd = "pr ready [<number> | <url> | <branch>]"
	p, r, pr, err := c.onePR(cmd, prReadyFlags, args, false)
	if err != nil {
		return err
	}
	undo := len(p.flags["undo"]) > 0
	switch {
	case pr.State != "OPEN":
		return failure("Pull request %s#%d is closed. Only draft pull requests can be marked as \"ready for review\"", r, pr.Number)
	case undo && pr.IsDraft:
		fmt.Fprintf(c.stderr, "! Pull request %s#%d is already a draft\n", r, pr.Number)
		return nil
	case !undo && !pr.IsDraft:
		fmt.Fprintf(c.stderr, "! Pull request %s#%d is already \"ready for review\"\n", r, pr.Number)
		return nil
	}
	pr.IsDraft = undo
	return WritePullRequest(c.state, pr)
}

var prChecksFlags = []flagSpec{
	repoFlagSpec,
	{long: "json", value: true, faked: true},
	{long: "fail-fast"},
	{long: "interval", short: "i", value: true},
	{long: "jq", short: "q", value: true},
	{long: "required"},
	{long: "template", short: "t", value: true},
	{long: "watch"},
	{long: "web", short: "w"},
	{long: "help", short: "h"},
}

var checkFields = []string{"bucket", "completedAt", "description", "event", "link", "name", "startedAt", "state", "workflow"}

// prChecks is `gh pr checks N --json FIELDS`: each check of checks.json on
// the pull request's head commit. With --json, gh exits 0 whatever the
// checks say.
func (c *call) prChecks(args []string) error {
	const cmd = "pr checks [<number> | <url> | <branch>]"
	p, r, pr, err := c.onePR(cmd, prChecksFlags, args, true)
	if err != nil {
		return err
	}
	fields, err := jsonFields("pr checks", p.last("json"), checkFields, checkFields)
	if err != nil {
		return err
	}
	if strings.HasPrefix(ghToken(), "github_pat_") {
		// A fine-grained token has no permission for check runs.
		return failure("GraphQL: Resource not accessible by personal access token (repository.pullRequest.statusCheckRollup.nodes.0.commit.statusCheckRollup.contexts.nodes.0)")
	}
	var specs []CheckSpec
	if err := readJSON(filepath.Join(c.state, ChecksFile), &specs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	sha, err := c.headOf(pr)
	if err != nil {
		return err
	}
	if len(specs) == 0 || sha == "" {
		return failure("no checks reported on the '%s' branch", pr.Head)
	}
	runs, err := CheckRuns(c.state)
	if err != nil {
		return err
	}
	out := []any{}
	for _, spec := range specs {
		i := slices.IndexFunc(runs, func(run CheckRun) bool { return run.Check == spec.Name && run.SHA == sha })
		if i < 0 {
			attempt := 1
			for _, run := range runs {
				if run.Check == spec.Name {
					attempt++
				}
			}
			runs = append(runs, CheckRun{Check: spec.Name, SHA: sha, Attempt: attempt, RunID: 9000 + 2*len(runs), JobID: 9001 + 2*len(runs)})
			i = len(runs) - 1
		}
		run := &runs[i]
		if pr.State == "OPEN" {
			run.Reads++
		}
		state, bucket := "SUCCESS", "pass"
		switch {
		case run.Reads <= spec.Pending:
			state, bucket = "IN_PROGRESS", "pending"
		case run.failed(spec):
			state, bucket = "FAILURE", "fail"
		}
		all := map[string]any{
			"bucket":      bucket,
			"completedAt": "0001-01-01T00:00:00Z",
			"description": "",
			"event":       "pull_request",
			"link":        fmt.Sprintf("https://%s/%s/actions/runs/%d/job/%d", r.host, r, run.RunID, run.JobID),
			"name":        spec.Name,
			"startedAt":   pr.CreatedAt.UTC().Format(time.RFC3339),
			"state":       state,
			"workflow":    spec.Workflow,
		}
		if bucket != "pending" {
			all["completedAt"] = pr.CreatedAt.Add(time.Minute).UTC().Format(time.RFC3339)
		}
		j := map[string]any{}
		for _, f := range fields {
			j[f] = all[f]
		}
		out = append(out, j)
	}
	if err := writeJSON(filepath.Join(c.state, CheckRunsFile), runs); err != nil {
		return err
	}
	return c.writeJSON(out)
}

var prMergeFlags = []flagSpec{
	repoFlagSpec,
	{long: "merge", short: "m", faked: true},
	{long: "rebase", short: "r", faked: true},
	{long: "squash", short: "s", faked: true},
	{long: "match-head-commit", value: true, faked: true},
	{long: "admin"},
	{long: "author-email", short: "A", value: true},
	{long: "auto"},
	{long: "body", short: "b", value: true},
	{long: "body-file", short: "F", value: true},
	{long: "delete-branch", short: "d"},
	{long: "disable-auto"},
	{long: "subject", short: "t", value: true},
	{long: "help", short: "h"},
}

// prMerge is `gh pr merge N --merge|--rebase|--squash
// [--match-head-commit SHA]`: the merge is recorded in the pull request.
func (c *call) prMerge(args []string) error {
	const cmd = "pr merge [<number> | <url> | <branch>]"
	p, r, pr, err := c.onePR(cmd, prMergeFlags, args, false)
	if err != nil {
		return err
	}
	var methods []string
	for _, m := range []string{"merge", "rebase", "squash"} {
		if len(p.flags[m]) > 0 {
			methods = append(methods, m)
		}
	}
	switch {
	case len(methods) == 0:
		return usage("--merge, --rebase, or --squash required when not running interactively")
	case len(methods) > 1:
		return usage("only one of --merge, --rebase, or --squash can be enabled")
	}
	login, err := c.login()
	if err != nil {
		return err
	}
	switch {
	case pr.State == "MERGED":
		return failure("X Pull request %s#%d was already merged", r, pr.Number)
	case pr.State != "OPEN":
		return failure("X Pull request %s#%d is closed", r, pr.Number)
	case pr.IsDraft:
		return failure("X Pull request %s#%d is still a draft", r, pr.Number)
	}
	sha, err := c.branchSHA(pr.Head)
	if err != nil {
		return err
	}
	if want := p.last("match-head-commit"); want != "" && want != sha {
		return failure("X Pull request %s#%d was not merged: Head branch was modified. Review and try the merge again.", r, pr.Number)
	}
	pr.State = "MERGED"
	pr.Merge = &Merge{Method: methods[0], HeadSHA: sha, By: login, At: time.Now().UTC().Truncate(time.Second)}
	return WritePullRequest(c.state, pr)
}

var runViewFlags = []flagSpec{
	repoFlagSpec,
	{long: "job", short: "j", value: true, faked: true},
	{long: "log-failed", faked: true},
	{long: "log", faked: true},
	{long: "attempt", short: "a", value: true},
	{long: "exit-status"},
	{long: "json", value: true},
	{long: "jq", short: "q", value: true},
	{long: "template", short: "t", value: true},
	{long: "verbose", short: "v"},
	{long: "web", short: "w"},
	{long: "help", short: "h"},
}

// runView is `gh run view --job ID --log-failed` (or --log): the log of a
// check run of checks.json, one line per line of its Log, prefixed as gh
// prefixes them with the job's and step's names.
func (c *call) runView(args []string) error {
	const cmd = "run view [<run-id>]"
	p, err := parseFlags(cmd, runViewFlags, args)
	if err != nil {
		return err
	}
	job := p.last("job")
	failedOnly := len(p.flags["log-failed"]) > 0
	if job == "" || !failedOnly && len(p.flags["log"]) == 0 {
		return notFaked("gh run view without --job and --log or --log-failed")
	}
	if len(p.args) > 0 {
		return notFaked("gh run view with a run id")
	}
	if _, err := c.login(); err != nil {
		return err
	}
	if _, err := c.resolveRepo(p.last("repo")); err != nil {
		return err
	}
	id, err := strconv.Atoi(job)
	if err != nil {
		return failure("invalid job ID %q", job)
	}
	unlock, err := c.lock()
	if err != nil {
		return err
	}
	defer unlock()
	runs, err := CheckRuns(c.state)
	if err != nil {
		return err
	}
	var specs []CheckSpec
	if err := readJSON(filepath.Join(c.state, ChecksFile), &specs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, run := range runs {
		if run.JobID != id {
			continue
		}
		i := slices.IndexFunc(specs, func(s CheckSpec) bool { return s.Name == run.Check })
		if i < 0 || failedOnly && !run.failed(specs[i]) {
			return nil
		}
		for _, line := range strings.Split(strings.TrimRight(specs[i].Log, "\n"), "\n") {
			fmt.Fprintf(c.stdout, "%s\tRun checks\t2026-01-01T00:00:00.0000000Z %s\n", run.Check, line)
		}
		return nil
	}
	return failure("HTTP 404: Not Found (https://api.github.com/repos/OWNER/REPO/actions/jobs/%d)", id)
}
