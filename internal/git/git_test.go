package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testEnv is an environment that keeps git from the machine's
// configuration, with an identity: passed in, so tests run in parallel.
func testEnv(extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ada",
		"GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada",
		"GIT_COMMITTER_EMAIL=ada@example.com",
	}
	return append(env, extra...)
}

// newRepo makes a repository on branch main with no commits.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := Run(context.Background(), dir, testEnv(), "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRunOutput(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	out, err := Run(context.Background(), dir, testEnv(), "symbolic-ref", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if out != "refs/heads/main\n" {
		t.Errorf("stdout = %q, want %q", out, "refs/heads/main\n")
	}
}

func TestRunError(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	_, err := Run(context.Background(), dir, testEnv(), "rev-parse", "--verify", "no-such-ref")
	var gerr *Error
	if !errors.As(err, &gerr) {
		t.Fatalf("err = %v (%T), want *Error", err, err)
	}
	if gerr.ExitCode != 128 || ExitCode(err) != 128 {
		t.Errorf("exit code = %d, ExitCode = %d, want 128", gerr.ExitCode, ExitCode(err))
	}
	if want := "fatal: Needed a single revision"; gerr.Stderr != want {
		t.Errorf("Stderr = %q, want %q", gerr.Stderr, want)
	}
	if want := "git rev-parse --verify no-such-ref: fatal: Needed a single revision"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Errorf("err does not unwrap to *exec.ExitError")
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  *Error
		want string
	}{
		{"first line of stderr", &Error{Args: []string{"push", "origin"}, Stderr: "fatal: no", Err: errors.New("exit status 128")},
			"git push origin: fatal: no"},
		{"how it ended without stderr", &Error{Args: []string{"diff", "--quiet"}, Err: errors.New("exit status 1")},
			"git diff --quiet: exit status 1"},
		{"an argument over lines", &Error{Args: []string{"commit", "-m", "subject\n\nbody"}, Stderr: "fatal: x", Err: errors.New("exit status 1")},
			"git commit -m subject body: fatal: x"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%s: Error() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	if got := ExitCode(nil); got != 0 {
		t.Errorf("ExitCode(nil) = %d, want 0", got)
	}
	if got := ExitCode(errors.New("other")); got != -1 {
		t.Errorf("ExitCode(other) = %d, want -1", got)
	}
	// diff --quiet exits 1 when something differs: a caller tells that
	// apart from a failure by the code.
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), dir, testEnv(), "add", "a"); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), dir, testEnv(), "diff", "--cached", "--quiet")
	if got := ExitCode(err); got != 1 {
		t.Errorf("ExitCode(diff --cached --quiet) = %d (%v), want 1", got, err)
	}
}

func TestRunEnvPassedThrough(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	out, err := Run(context.Background(), dir, testEnv("GIT_AUTHOR_NAME=Grace"), "var", "GIT_AUTHOR_IDENT")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "Grace <ada@example.com>") {
		t.Errorf("GIT_AUTHOR_IDENT = %q, want the name passed in", out)
	}
	// Nothing is inherited: without an identity in env, git has none of
	// the test process's either.
	t.Run("nothing inherited", func(t *testing.T) {
		env := []string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "HOME=" + t.TempDir()}
		out, err := Run(context.Background(), dir, env, "config", "--get", "user.name")
		if err == nil || ExitCode(err) != 1 {
			t.Errorf("git config --get user.name = %q, %v; want exit 1 (unset)", out, err)
		}
	})
}

func TestRunPromptDisabled(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	// GIT_TERMINAL_PROMPT reaches git's children: the alias shell prints it.
	out, err := Run(context.Background(), dir, testEnv(), "-c", "alias.prompt=!printf %s \"$GIT_TERMINAL_PROMPT\"", "prompt")
	if err != nil {
		t.Fatal(err)
	}
	if out != "0" {
		t.Errorf("GIT_TERMINAL_PROMPT = %q, want %q", out, "0")
	}
	// A caller asking for prompts still gets none.
	out, err = Run(context.Background(), dir, testEnv("GIT_TERMINAL_PROMPT=1"), "-c", "alias.prompt=!printf %s \"$GIT_TERMINAL_PROMPT\"", "prompt")
	if err != nil || out != "0" {
		t.Errorf("with GIT_TERMINAL_PROMPT=1 passed in: %q, %v; want %q", out, err, "0")
	}
}

func TestRunInputAndStream(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	sha, err := RunInput(context.Background(), dir, testEnv(), "hello\n", "hash-object", "-w", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Stream(context.Background(), dir, testEnv(), &b, "cat-file", "-p", strings.TrimSpace(sha)); err != nil {
		t.Fatal(err)
	}
	if b.String() != "hello\n" {
		t.Errorf("streamed %q, want %q", b.String(), "hello\n")
	}
}

func TestRunCancelled(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, dir, testEnv(), "status")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if want := "git status: context canceled"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Discover(context.Background(), sub, testEnv())
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(dir)
	if got, _ := filepath.EvalSymlinks(r.Root); got != root {
		t.Errorf("Root = %q, want %q", r.Root, dir)
	}
	if want := filepath.Join(root, ".git"); r.CommonDir != want {
		t.Errorf("CommonDir = %q, want %q", r.CommonDir, want)
	}

	outside := t.TempDir()
	env := testEnv("GIT_CEILING_DIRECTORIES=" + filepath.Dir(outside))
	if _, err := Discover(context.Background(), outside, env); err == nil || err.Error() != outside+" is not inside a git repository; run cairn in one, or give -C DIR" {
		t.Errorf("outside a repository: %v", err)
	}

	bare := t.TempDir()
	if _, err := Run(context.Background(), bare, testEnv(), "init", "-q", "--bare"); err != nil {
		t.Fatal(err)
	}
	if _, err := Discover(context.Background(), bare, testEnv()); err == nil || err.Error() != bare+" is inside a bare git repository; cairn needs a working tree" {
		t.Errorf("in a bare repository: %v", err)
	}
}

func TestHead(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	if got := Head(context.Background(), dir, testEnv()); got != "" {
		t.Errorf("Head with no commits = %q, want none", got)
	}
	if _, err := Run(context.Background(), dir, testEnv(), "commit", "-q", "--allow-empty", "-m", "first"); err != nil {
		t.Fatal(err)
	}
	want, err := Run(context.Background(), dir, testEnv(), "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if got := Head(context.Background(), dir, testEnv()); got != strings.TrimSpace(want) {
		t.Errorf("Head = %q, want %q", got, want)
	}
}
