//go:build unix

package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
	if _, err := New(testEnv()).Run(context.Background(), dir, "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRunOutput(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	out, err := New(testEnv()).Run(context.Background(), dir, "symbolic-ref", "HEAD")
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
	_, err := New(testEnv()).Run(context.Background(), dir, "rev-parse", "--verify", "no-such-ref")
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

// TestRunErrorRefusedPush: a push the remote refuses reports its refs
// after a "To URL" line; the error names the ref and why, not the URL.
func TestRunErrorRefusedPush(t *testing.T) {
	t.Parallel()
	g := New(testEnv())
	ctx := context.Background()
	origin := filepath.Join(t.TempDir(), "origin.git")
	if _, err := g.Run(ctx, t.TempDir(), "init", "-q", "--bare", origin); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(origin, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := newRepo(t)
	if _, err := g.Run(ctx, dir, "commit", "-q", "--allow-empty", "-m", "one"); err != nil {
		t.Fatal(err)
	}
	_, err := g.Run(ctx, dir, "push", "--quiet", origin, "main")
	want := "git push --quiet " + origin + " main: ! [remote rejected] main -> main (pre-receive hook declined)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
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
	if _, err := New(testEnv()).Run(context.Background(), dir, "add", "a"); err != nil {
		t.Fatal(err)
	}
	_, err := New(testEnv()).Run(context.Background(), dir, "diff", "--cached", "--quiet")
	if got := ExitCode(err); got != 1 {
		t.Errorf("ExitCode(diff --cached --quiet) = %d (%v), want 1", got, err)
	}
}

func TestRunEnvPassedThrough(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	out, err := New(testEnv("GIT_AUTHOR_NAME=Grace")).Run(context.Background(), dir, "var", "GIT_AUTHOR_IDENT")
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
		out, err := New(env).Run(context.Background(), dir, "config", "--get", "user.name")
		if err == nil || ExitCode(err) != 1 {
			t.Errorf("git config --get user.name = %q, %v; want exit 1 (unset)", out, err)
		}
	})
}

func TestRunPromptDisabled(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	// GIT_TERMINAL_PROMPT reaches git's children: the alias shell prints it.
	out, err := New(testEnv()).Run(context.Background(), dir, "-c", "alias.prompt=!printf %s \"$GIT_TERMINAL_PROMPT\"", "prompt")
	if err != nil {
		t.Fatal(err)
	}
	if out != "0" {
		t.Errorf("GIT_TERMINAL_PROMPT = %q, want %q", out, "0")
	}
	// A caller asking for prompts still gets none.
	out, err = New(testEnv("GIT_TERMINAL_PROMPT=1")).Run(context.Background(), dir, "-c", "alias.prompt=!printf %s \"$GIT_TERMINAL_PROMPT\"", "prompt")
	if err != nil || out != "0" {
		t.Errorf("with GIT_TERMINAL_PROMPT=1 passed in: %q, %v; want %q", out, err, "0")
	}
}

func TestRunInputAndStream(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	sha, err := New(testEnv()).RunInput(context.Background(), dir, "hello\n", "hash-object", "-w", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := New(testEnv()).Stream(context.Background(), dir, &b, "cat-file", "-p", strings.TrimSpace(sha)); err != nil {
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
	_, err := New(testEnv()).Run(ctx, dir, "status")
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
	r, err := Discover(context.Background(), New(testEnv()), sub)
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
	if _, err := Discover(context.Background(), New(env), outside); err == nil || err.Error() != outside+" is not inside a git repository; run cairn in one, or give -C DIR" {
		t.Errorf("outside a repository: %v", err)
	}

	bare := t.TempDir()
	if _, err := New(testEnv()).Run(context.Background(), bare, "init", "-q", "--bare"); err != nil {
		t.Fatal(err)
	}
	if _, err := Discover(context.Background(), New(testEnv()), bare); err == nil || err.Error() != bare+" is inside a bare git repository; cairn needs a working tree" {
		t.Errorf("in a bare repository: %v", err)
	}
}

func TestHead(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	if got := New(testEnv()).Head(context.Background(), dir); got != "" {
		t.Errorf("Head with no commits = %q, want none", got)
	}
	if _, err := New(testEnv()).Run(context.Background(), dir, "commit", "-q", "--allow-empty", "-m", "first"); err != nil {
		t.Fatal(err)
	}
	want, err := New(testEnv()).Run(context.Background(), dir, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if got := New(testEnv()).Head(context.Background(), dir); got != strings.TrimSpace(want) {
		t.Errorf("Head = %q, want %q", got, want)
	}
}

// hangingGit writes, in a folder of its own, a git that says it started by
// writing to the FIFO ready, then reads the FIFO hang, which nobody writes:
// a git that hangs. It returns the folder, and the two FIFOs' paths.
func hangingGit(t *testing.T) (bin, ready, hang string) {
	t.Helper()
	dir := t.TempDir()
	bin = filepath.Join(dir, "bin")
	ready, hang = filepath.Join(dir, "ready"), filepath.Join(dir, "hang")
	for _, fifo := range []string{ready, hang} {
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Whatever a failed test leaves reading hang is let go.
	t.Cleanup(func() { release(hang) })
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho started > \"$READY\"\nexec cat \"$HANG\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, ready, hang
}

// release ends whatever reads the FIFO at path: opened and closed for
// writing, it reads the end of its input. Nothing reading it, nothing
// happens.
func release(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}

// runUntilCancelled runs args through g in a goroutine, waits until the git
// it started writes to the FIFO ready, cancels the call's context, and
// returns the call's error once it returns.
func runUntilCancelled(t *testing.T, g *Git, dir, ready string, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := g.Run(ctx, dir, args...)
		done <- err
	}()
	// Opening the FIFO waits for git to open it to write.
	if b, err := os.ReadFile(ready); err != nil || string(b) != "started\n" {
		t.Fatalf("read %s: %q, %v", ready, b, err)
	}
	cancel()
	return <-done
}

func TestRunEndedByContext(t *testing.T) {
	t.Parallel()
	bin, ready, hang := hangingGit(t)
	g := New(testEnv("PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "READY="+ready, "HANG="+hang))
	err := runUntilCancelled(t, g, t.TempDir(), ready, "fetch", "origin")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if want := "git fetch origin: context canceled"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

// A child of git that holds git's output open (a remote helper, ssh, a
// hook) does not keep the call from returning once its context ends.
func TestRunEndedByContextChildHoldsOutput(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	_, ready, hang := hangingGit(t)
	g := New(testEnv("READY="+ready, "HANG="+hang))
	err := runUntilCancelled(t, g, dir, ready, "-c", `alias.hang=!echo started > "$READY"; cat "$HANG"; true`, "hang")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// The environment git runs in is the handle's: the test process's own
// identity, and its PATH, reach git only through it.
func TestRunEnvFromHandle(t *testing.T) {
	t.Setenv("GIT_AUTHOR_NAME", "Process")
	dir := newRepo(t)
	out, err := New(testEnv("GIT_AUTHOR_NAME=Handle")).Run(context.Background(), dir, "var", "GIT_AUTHOR_IDENT")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "Handle <ada@example.com>") {
		t.Errorf("GIT_AUTHOR_IDENT = %q, want the handle's name", out)
	}
	// git is found on the handle's PATH.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho \"not git: $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err = New([]string{"PATH=" + bin}).Run(context.Background(), dir, "status")
	if err != nil || out != "not git: -C "+dir+" status\n" {
		t.Errorf("git on the handle's PATH: %q, %v", out, err)
	}
	// and not on the process's.
	_, err = New([]string{"PATH="}).Run(context.Background(), dir, "status")
	if err == nil || !strings.Contains(err.Error(), "git is not on the PATH") {
		t.Errorf("with no PATH: %v; want git not found", err)
	}
}

func TestWith(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	g := New(testEnv())
	w := g.With("GIT_AUTHOR_NAME=Grace")
	for _, tc := range []struct {
		g    *Git
		want string
	}{{g, "Ada <"}, {w, "Grace <"}} {
		out, err := tc.g.Run(context.Background(), dir, "var", "GIT_AUTHOR_IDENT")
		if err != nil || !strings.HasPrefix(out, tc.want) {
			t.Errorf("GIT_AUTHOR_IDENT = %q, %v; want %q…", out, err, tc.want)
		}
	}
	// A PATH set with With finds git there.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho other\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := g.With("PATH="+bin).Run(context.Background(), dir, "status")
	// A parallel test's fork may hold the script open for writing until
	// its exec (ETXTBSY): the script runs once that child has.
	for i := 0; i < 50 && err != nil && strings.Contains(err.Error(), "text file busy"); i++ {
		time.Sleep(20 * time.Millisecond)
		out, err = g.With("PATH="+bin).Run(context.Background(), dir, "status")
	}
	if err != nil || out != "other\n" {
		t.Errorf("With(PATH) ran %q, %v; want the git on that PATH", out, err)
	}
}
