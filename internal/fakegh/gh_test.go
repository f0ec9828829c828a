package fakegh

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// run runs the fake with args against a state with login alice and issue
// 7, and returns its exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func setup(t *testing.T) string {
	t.Helper()
	state := t.TempDir()
	t.Setenv("FAKE_GH_STATE", state)
	t.Setenv("FAKE_LOG", filepath.Join(t.TempDir(), "log"))
	t.Setenv("GITHUB_ACTIONS", "")
	if err := SetLogin(state, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := SetRepo(state, "github.com/acme/widgets"); err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	err := WriteIssue(state, Issue{Number: 7, Title: "T", Body: "B", Author: "carol", Labels: []string{"spec"}, CreatedAt: created,
		Comments: []Comment{{Author: "alice", Body: "c1", CreatedAt: created.Add(time.Minute),
			Edits: []Edit{{Editor: "bob", EditedAt: created.Add(3 * time.Minute)}, {Editor: "", EditedAt: created.Add(5 * time.Minute)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

func TestRefusals(t *testing.T) {
	setup(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate" for "gh"`},
		{[]string{"pr", "comment", "1", "--body", "hi"}, 2, `fake gh: gh pr comment is not faked`},
		{[]string{"pr", "create", "--fill"}, 2, `flag --fill of gh pr create`},
		{[]string{"pr", "merge", "1", "--auto", "--squash"}, 2, `flag --auto of gh pr merge`},
		{[]string{"pr", "checks", "1", "--watch"}, 2, `flag --watch of gh pr checks`},
		{[]string{"pr", "checks", "1"}, 2, `without --json is not faked`},
		{[]string{"pr", "list", "--json", "nope"}, 1, `Unknown JSON field: "nope"`},
		{[]string{"pr", "frob"}, 2, `unknown command "frob" for "gh pr"`},
		{[]string{"run", "rerun", "1"}, 2, `gh run rerun is not faked`},
		{[]string{"issue", "close", "7"}, 2, `fake gh: gh issue close is not faked`},
		{[]string{"issue", "view", "7", "--json", "title", "--bogus"}, 2, `unknown flag: --bogus`},
		{[]string{"issue", "view", "7", "-Z"}, 2, `unknown shorthand flag: "Z"`},
		{[]string{"issue", "view", "7", "--json", "title", "--jq", ".title"}, 2, `flag --jq of gh issue view`},
		{[]string{"issue", "view", "7"}, 2, `without --json is not faked`},
		{[]string{"issue", "view", "7", "--json", "nope"}, 1, `Unknown JSON field: "nope"`},
		{[]string{"issue", "view", "7", "--json", "milestone"}, 2, `JSON field "milestone" of gh issue view is not faked`},
		{[]string{"issue", "view", "8", "--json", "title"}, 1, `Could not resolve to an issue or pull request with the number of 8`},
		{[]string{"issue", "view", "7", "--repo", "evil/fork", "--json", "title"}, 1, `Could not resolve to a Repository with the name 'evil/fork'`},
		{[]string{"api", "repos/acme/widgets"}, 2, `endpoint "repos/acme/widgets" is not faked`},
		{[]string{"api", "--paginate", "user"}, 2, `flag --paginate of gh api`},
		{[]string{"api", "graphql", "-f", "query=query Other { viewer { login } }"}, 2, `GraphQL operation "Other" is not faked`},
		{[]string{"api", "user", "--jq", ".login | ascii_upcase"}, 2, `gh api --jq ".login | ascii_upcase"`},
		{[]string{"api", "repos/evil/fork/collaborators/alice/permission"}, 1, `Not Found (HTTP 404)`},
	} {
		code, _, stderr := run(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("gh %q: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestPermission: an account's permission on the repository, whole or cut
// to a field with --jq as the workflows' gate reads it: the logged-in
// account's admin, another's from permissions.json, read for the rest.
func TestPermission(t *testing.T) {
	state := setup(t)
	if err := writeJSON(filepath.Join(state, PermissionsFile), map[string]string{"mallory": "triage"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, want string }{
		{"repos/acme/widgets/collaborators/alice/permission --jq .permission", "admin\n"},
		{"repos/acme/widgets/collaborators/mallory/permission --jq .permission", "triage\n"},
		{"repos/acme/widgets/collaborators/bob/permission --jq .user.login", "bob\n"},
		{"repos/acme/widgets/collaborators/bob/permission", `{"permission":"read","role_name":"read","user":{"login":"bob"}}` + "\n"},
	} {
		args := append([]string{"api"}, strings.Fields(c.args)...)
		code, stdout, stderr := run(t, args...)
		if code != 0 || stdout != c.want {
			t.Errorf("gh %s: exit %d, stdout %q, stderr %q; want %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

func TestIssueView(t *testing.T) {
	setup(t)
	code, stdout, stderr := run(t, "issue", "view", "7", "-R", "github.com/acme/widgets", "--json=number,title,labels,comments,state")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Number   int
		Title    string
		State    string
		Labels   []struct{ Name string }
		Comments []struct {
			ID              string
			Author          struct{ Login string }
			ViewerDidAuthor bool
			URL             string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Number != 7 || got.Title != "T" || got.State != "OPEN" || len(got.Labels) != 1 || got.Labels[0].Name != "spec" ||
		len(got.Comments) != 1 || got.Comments[0].ID != "IC_fake7x1" || got.Comments[0].Author.Login != "alice" || !got.Comments[0].ViewerDidAuthor ||
		!strings.HasPrefix(got.Comments[0].URL, "https://github.com/acme/widgets/issues/7#issuecomment-") {
		t.Errorf("issue view: %s", stdout)
	}
	var keys map[string]any
	_ = json.Unmarshal([]byte(stdout), &keys)
	if len(keys) != 5 {
		t.Errorf("issue view answered %d fields, want the 5 asked for: %s", len(keys), stdout)
	}
}

func TestIssueEdits(t *testing.T) {
	setup(t)
	query := "query IssueEdits($owner: String!, $repo: String!, $number: Int!, $after: String) { lastEditedAt editor userContentEdits editedAt pageInfo hasNextPage endCursor id }"
	code, stdout, stderr := run(t, "api", "graphql", "--hostname", "github.com", "-f", "query="+query, "-f", "owner=acme", "-f", "repo=widgets", "-F", "number=7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `{"data":{"repository":{"issue":{"comments":{"nodes":[{"editor":null,"id":"IC_fake7x1","lastEditedAt":"2026-03-01T09:05:00Z",` +
		`"userContentEdits":{"nodes":[{"editedAt":"2026-03-01T09:05:00Z","editor":null},{"editedAt":"2026-03-01T09:03:00Z","editor":{"login":"bob"}}]}}],` +
		`"pageInfo":{"endCursor":"cursor:1","hasNextPage":false}},"editor":null,"lastEditedAt":null,"userContentEdits":{"nodes":[]}}}}}` + "\n"
	if stdout != want {
		t.Errorf("IssueEdits:\n%s\nwant:\n%s", stdout, want)
	}
	code, stdout, stderr = run(t, "api", "graphql", "-f", "query="+query, "-f", "owner=acme", "-f", "repo=widgets", "-F", "number=8")
	if code != 1 || stderr != "gh: Could not resolve to an Issue with the number of 8.\n" || !strings.Contains(stdout, `"errors"`) {
		t.Errorf("a missing issue: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestNotLoggedIn(t *testing.T) {
	state := setup(t)
	if err := os.Remove(filepath.Join(state, LoginFile)); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "api", "user")
	if code != 4 || !strings.Contains(stderr, "gh auth login") {
		t.Errorf("not logged in: exit %d, %q", code, stderr)
	}
}

// TestInstallationToken: with a workflow's GITHUB_TOKEN, an app's
// installation token (ghs_), gh api user is refused as GitHub refuses it;
// a user's token (from GH_TOKEN first) answers with the account.
func TestInstallationToken(t *testing.T) {
	setup(t)
	for _, c := range []struct {
		gh, github string
		code       int
		stderr     string
	}{
		{"ghs_workflow", "", 1, "gh: Resource not accessible by integration (HTTP 403)\n"},
		{"", "ghs_workflow", 1, "gh: Resource not accessible by integration (HTTP 403)\n"},
		{"ghp_user", "ghs_workflow", 0, ""},
		{"github_pat_user", "", 0, ""},
	} {
		if c.gh != "" {
			t.Setenv("GH_TOKEN", c.gh)
		} else {
			t.Setenv("GH_TOKEN", "")
			os.Unsetenv("GH_TOKEN")
		}
		t.Setenv("GITHUB_TOKEN", c.github)
		code, stdout, stderr := run(t, "api", "user")
		if code != c.code || stderr != c.stderr {
			t.Errorf("GH_TOKEN %q, GITHUB_TOKEN %q: exit %d, stderr %q; want exit %d, %q", c.gh, c.github, code, stderr, c.code, c.stderr)
		}
		if c.code != 0 && !strings.Contains(stdout, `"status":"403"`) {
			t.Errorf("GH_TOKEN %q: stdout %q; want GitHub's answer", c.gh, stdout)
		}
	}
}

// TestActionsWithoutToken: in a GitHub Actions job, whose runner has no
// account logged in, gh given no token refuses what needs one, exit 4,
// saying how to give it one; with the job's token it answers as the bot.
func TestActionsWithoutToken(t *testing.T) {
	setup(t)
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	for _, args := range [][]string{{"issue", "view", "7"}, {"api", "user"}, {"label", "create", "x"}, {"pr", "list"}} {
		code, stdout, stderr := run(t, args...)
		if code != 4 || stdout != "" || !strings.HasPrefix(stderr, "gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable.") {
			t.Errorf("gh %q: exit %d, stdout %q, stderr %q; want exit 4 and gh's help", args, code, stdout, stderr)
		}
	}
	if code, stdout, _ := run(t, "--version"); code != 0 || !strings.HasPrefix(stdout, "gh version ") {
		t.Errorf("gh --version: exit %d, %q", code, stdout)
	}
	t.Setenv("GITHUB_TOKEN", "ghs_job")
	if code, _, stderr := run(t, "label", "create", "x"); code != 0 {
		t.Errorf("gh label create with the job's token: exit %d, %q", code, stderr)
	}
}

func TestRecordsCalls(t *testing.T) {
	setup(t)
	t.Setenv("CAIRN_STEP", "fix")
	run(t, "api", "user")
	run(t, "--version")
	log := os.Getenv("FAKE_LOG")
	for n, want := range []string{"api\nuser\n", "--version\n"} {
		b, err := os.ReadFile(filepath.Join(log, "gh."+string(rune('1'+n)), "argv"))
		if err != nil || string(b) != want {
			t.Errorf("call %d argv = %q (%v), want %q", n+1, b, err, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(log, "gh.1", "env")); !strings.Contains(string(b), "CAIRN_STEP=fix\n") {
		t.Errorf("env = %q, want CAIRN_STEP", b)
	}
}

// git runs git for a test, failing it on an error.
func git(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestPullRequests(t *testing.T) {
	state := setup(t)
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T",
		"GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1"} {
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	origin, work := filepath.Join(dir, "origin.git"), filepath.Join(dir, "work")
	git(t, "init", "-q", "--bare", "-b", "main", origin)
	git(t, "init", "-q", "-b", "main", work)
	git(t, "-C", work, "commit", "-q", "--allow-empty", "-m", "init")
	git(t, "-C", work, "push", "-q", origin, "main")
	if err := SetOrigin(state, origin); err != nil {
		t.Fatal(err)
	}
	if err := WriteChecks(state, []CheckSpec{{Name: "test", Fails: 1, Pending: 1, Log: "boom"}}); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "pr", "create", "-H", "fix", "-B", "main", "-t", "Fix", "-b", "Closes #7.", "--draft"); code != 1 || !strings.Contains(stderr, "Head sha can't be blank") {
		t.Errorf("a pull request of a branch not pushed: exit %d, %q", code, stderr)
	}
	git(t, "-C", work, "checkout", "-q", "-b", "fix")
	git(t, "-C", work, "commit", "-q", "--allow-empty", "-m", "fix")
	git(t, "-C", work, "push", "-q", origin, "fix")
	// A workflow's own token opens one only where the repository allows it.
	t.Setenv("GH_TOKEN", "ghs_workflow")
	if code, _, stderr := run(t, "pr", "create", "-H", "fix", "-B", "main", "-t", "Fix", "-b", "Closes #7."); code != 1 ||
		stderr != "pull request create failed: GraphQL: GitHub Actions is not permitted to create or approve pull requests (createPullRequest)\n" {
		t.Errorf("a pull request by a workflow's token: exit %d, %q", code, stderr)
	}
	if err := AllowActionsPRs(state); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "pr", "create", "-R", "github.com/acme/widgets", "-H", "fix", "-B", "main", "-t", "Fix", "-b", "Closes #7.", "--draft")
	if code != 0 || stdout != "https://github.com/acme/widgets/pull/8\n" {
		t.Fatalf("pr create: exit %d, %q, %q", code, stdout, stderr)
	}
	if code, _, stderr := run(t, "pr", "create", "-H", "fix", "-B", "main", "-t", "Fix", "-b", "again"); code != 1 || !strings.Contains(stderr, "already exists") {
		t.Errorf("a second pull request of a branch: exit %d, %q", code, stderr)
	}
	checks := func() string {
		t.Helper()
		code, stdout, stderr := run(t, "pr", "checks", "8", "--json", "name,bucket,link")
		if code != 0 {
			t.Fatalf("pr checks: exit %d, %q", code, stderr)
		}
		return stdout
	}
	// A fine-grained token may not read check runs.
	t.Setenv("GH_TOKEN", "github_pat_user")
	if code, _, stderr := run(t, "pr", "checks", "8", "--json", "name"); code != 1 || !strings.Contains(stderr, "Resource not accessible by personal access token") {
		t.Errorf("checks read with a fine-grained token: exit %d, %q", code, stderr)
	}
	t.Setenv("GH_TOKEN", "ghs_workflow")
	if got := checks(); !strings.Contains(got, `"bucket":"pending"`) {
		t.Errorf("first read: %s", got)
	}
	got := checks()
	if !strings.Contains(got, `"bucket":"fail"`) || !strings.Contains(got, `"link":"https://github.com/acme/widgets/actions/runs/9000/job/9001"`) {
		t.Errorf("second read: %s", got)
	}
	if code, stdout, _ := run(t, "run", "view", "--job", "9001", "--log-failed"); code != 0 || stdout != "test\tRun checks\t2026-01-01T00:00:00.0000000Z boom\n" {
		t.Errorf("run view: exit %d, %q", code, stdout)
	}
	if code, _, stderr := run(t, "pr", "merge", "8", "--squash"); code != 1 || !strings.Contains(stderr, "still a draft") {
		t.Errorf("merging a draft: exit %d, %q", code, stderr)
	}
	// A new head runs the check again; its second run passes.
	git(t, "-C", work, "commit", "-q", "--allow-empty", "-m", "repair")
	git(t, "-C", work, "push", "-q", origin, "fix")
	checks()
	if got := checks(); !strings.Contains(got, `"bucket":"pass"`) {
		t.Errorf("after a push: %s", got)
	}
	if code, _, stderr := run(t, "pr", "ready", "8"); code != 0 {
		t.Fatalf("pr ready: exit %d, %q", code, stderr)
	}
	if code, _, stderr := run(t, "pr", "merge", "8", "--squash", "--match-head-commit", "0123"); code != 1 || !strings.Contains(stderr, "Head branch was modified") {
		t.Errorf("merging another head: exit %d, %q", code, stderr)
	}
	head := git(t, "-C", work, "rev-parse", "HEAD")
	if code, _, stderr := run(t, "pr", "merge", "8", "--squash", "--match-head-commit", head); code != 0 {
		t.Fatalf("pr merge: exit %d, %q", code, stderr)
	}
	pr, err := ReadPullRequest(state, 8)
	if err != nil {
		t.Fatal(err)
	}
	if pr.State != "MERGED" || pr.IsDraft || pr.Merge == nil || pr.Merge.Method != "squash" || pr.Merge.HeadSHA != head || pr.Merge.By != "alice" {
		t.Errorf("pull request = %+v", pr)
	}
	code, stdout, _ = run(t, "pr", "list", "--head", "fix", "--state", "merged", "--json", "number,state,headRefOid")
	if want := `[{"headRefOid":"` + head + `","number":8,"state":"MERGED"}]` + "\n"; code != 0 || stdout != want {
		t.Errorf("pr list = %q, want %q", stdout, want)
	}
	if code, stdout, _ := run(t, "pr", "list", "--head", "fix", "--json", "number"); code != 0 || stdout != "[]\n" {
		t.Errorf("open pull requests of fix = %q", stdout)
	}
}

func TestIssueWrites(t *testing.T) {
	state := setup(t)
	body := filepath.Join(t.TempDir(), "body.md")
	if err := os.WriteFile(body, []byte("The spec.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"issue", "create", "--title", "Spec", "--body-file", body, "--label", "bug"}, 1, "", "could not add label: 'bug' not found"},
		{[]string{"issue", "create", "--title", "Spec"}, 2, "", "must provide `--title` and `--body`"},
		{[]string{"issue", "create", "--title", "Spec", "--body", "b", "--assignee", "bob"}, 2, "", "flag --assignee of gh issue create is not faked"},
		{[]string{"label", "create", "Spec"}, 1, "", `label with name "Spec" already exists`},
		{[]string{"label", "create", "bug", "--color", "ff0000"}, 0, "", ""},
		{[]string{"issue", "create", "-t", "Spec", "-F", body, "-l", "spec,BUG"}, 0, "https://github.com/acme/widgets/issues/8\n", ""},
		{[]string{"issue", "edit", "8", "--body", "- [ ] #9"}, 0, "https://github.com/acme/widgets/issues/8\n", ""},
		{[]string{"issue", "edit", "https://github.com/acme/widgets/issues/8", "--add-label", "nope"}, 1, "", "'nope' not found"},
		{[]string{"issue", "edit", "12", "--body", "x"}, 1, "", "Could not resolve to an issue or pull request with the number of 12"},
		{[]string{"issue", "edit", "8"}, 2, "", "field to edit flag required"},
		{[]string{"issue", "comment", "8", "--body", "Split into #9."}, 0, "https://github.com/acme/widgets/issues/8#issuecomment-8001\n", ""},
		{[]string{"issue", "comment", "8"}, 2, "", "`--body`, `--body-file` or `--web` required when not running interactively"},
		{[]string{"issue", "comment", "8", "--edit-last", "-b", "x"}, 2, "", "--edit-last"},
		{[]string{"issue", "comment", "12", "-b", "x"}, 1, "", "Could not resolve to an issue or pull request with the number of 12"},
	} {
		code, stdout, stderr := run(t, c.args...)
		if code != c.code || stdout != c.stdout || !strings.Contains(stderr, c.stderr) {
			t.Errorf("gh %q: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, stdout, stderr, c.code, c.stdout, c.stderr)
		}
	}
	is, err := ReadIssue(state, 8)
	if err != nil {
		t.Fatal(err)
	}
	if is.Title != "Spec" || is.Body != "- [ ] #9" || is.Author != "alice" || strings.Join(is.Labels, ",") != "spec,bug" ||
		len(is.Edits) != 1 || is.Edits[0].Editor != "alice" || len(is.Comments) != 1 || is.Comments[0].Author != "alice" || is.Comments[0].Body != "Split into #9." {
		t.Errorf("issue 8: %+v", is)
	}
	// The workflow's own token opens issues as the bot, as GitHub does.
	t.Setenv("GH_TOKEN", "ghs_x")
	if code, stdout, stderr := run(t, "issue", "create", "--title", "Ticket", "--body", "Part of #8."); code != 0 || stdout != "https://github.com/acme/widgets/issues/9\n" {
		t.Fatalf("issue create with an installation token: exit %d, %q, %q", code, stdout, stderr)
	}
	if code, _, stderr := run(t, "issue", "edit", "9", "--body", "Part of #8, really."); code != 0 {
		t.Fatalf("issue edit with an installation token: exit %d, %q", code, stderr)
	}
	code, stdout, _ := run(t, "issue", "view", "9", "--json", "author")
	if code != 0 || stdout != `{"author":{"id":"U_fakeapp/github-actions","is_bot":true,"login":"app/github-actions","name":""}}`+"\n" {
		t.Errorf("issue view 9: exit %d, %s", code, stdout)
	}
	if code, stdout, stderr := run(t, "issue", "comment", "https://github.com/acme/widgets/issues/9", "--body-file", body); code != 0 || stdout != "https://github.com/acme/widgets/issues/9#issuecomment-9001\n" {
		t.Fatalf("issue comment with an installation token: exit %d, %q, %q", code, stdout, stderr)
	}
	if is, err := ReadIssue(state, 9); err != nil || len(is.Edits) != 1 || is.Edits[0].Editor != BotEditor || len(is.Comments) != 1 || is.Comments[0].Author != Bot {
		t.Errorf("issue 9: %+v, %v", is, err)
	}
}
