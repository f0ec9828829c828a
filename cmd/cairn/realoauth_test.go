package main

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/modeldouble"
	"github.com/cairn-dev/cairn/record"
)

// oauthToken is the token TestRealSessionsOAuthToken gives claude, of the
// form `claude setup-token` prints.
const oauthToken = "sk-ant-oat01-cairn-double-token"

// TestRealSessionsOAuthToken runs the write session of claude through
// `cairn run` logged in as a Claude subscription logs CI in: the user's
// environment holds CLAUDE_CODE_OAUTH_TOKEN, the token `claude setup-token`
// prints, and no ANTHROPIC_API_KEY. The session succeeds; the CLI sent the
// model the token as Anthropic's API takes an OAuth token, Authorization:
// Bearer with modeldouble.OAuthBeta (the double refuses it without, as
// Anthropic's API does), and never an API key; no file of the run folder
// holds the token.
func TestRealSessionsOAuthToken(t *testing.T) {
	bin := realSessionsBin(t)
	t.Parallel()
	realSlots <- struct{}{}
	defer func() { <-realSlots }()

	const final = "WROTE-oauth-5c1"
	d := modeldouble.New(
		modeldouble.Shell("go version"),
		modeldouble.WriteFile("hello.txt", "hello from a subscription\n"),
		modeldouble.Text(final),
	)
	defer d.Close()
	home := realHome(t)
	w := newRealWork(t, bin, home, []string{"ANTHROPIC_BASE_URL=" + d.URL, "CLAUDE_CODE_OAUTH_TOKEN=" + oauthToken})
	for _, kv := range w.env {
		if strings.HasPrefix(kv, "ANTHROPIC_API_KEY=") {
			t.Fatalf("the user's environment holds %s", kv)
		}
	}
	r := w.run(t, "run", w.process(t, "write", oneCLI{"claude", "sonnet"}))
	logDouble(t, "claude", d)

	if s := r.step(t, "build"); r.code != 0 || s.Outcome != record.Succeeded || strings.TrimSpace(r.stdout) != final {
		t.Errorf("exit %d, step build %s (%s), stdout %q; want 0, succeeded and the final message %q", r.code, s.Outcome, s.Cause, r.stdout, final)
	}
	if results := d.ToolResults(); len(results) == 0 || results[0].IsError || !strings.Contains(results[0].Output, "go version go1") {
		t.Errorf("the double got no output of go version from the shell; tool results: %s", describe(results))
	}
	if p := r.patch(t, "default"); !strings.Contains(p, "+++ b/hello.txt") {
		t.Errorf("worktrees/default.patch does not add hello.txt:\n%s", p)
	}
	turns := d.Turns()
	if len(turns) < 3 {
		t.Errorf("%d turns; want the script's 3", len(turns))
	}
	for _, req := range d.Requests() {
		if req.APIKey() != "" {
			t.Errorf("%s %s carried an API key, %q", req.Method, req.Path, req.APIKey())
		}
		if !strings.HasPrefix(req.Path, "/v1/") {
			continue // the reachability probe, /api/hello, carries no credential
		}
		if req.BearerToken() != oauthToken || !strings.Contains(req.Header.Get("anthropic-beta"), modeldouble.OAuthBeta) {
			t.Errorf("%s %s carried bearer %q and anthropic-beta %q; want the token and %s", req.Method, req.Path, req.BearerToken(), req.Header.Get("anthropic-beta"), modeldouble.OAuthBeta)
		}
	}
	holdsNoKey(t, r.dir, []string{oauthToken})
	w.noWorktreesLeft(t)
}
