// Package ghtest sets up the fake gh (internal/fakegh) for Go tests: a
// repository whose origin is github.com/acme/widgets, with the fake on the
// PATH of an environment.
package ghtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/fakegh"
	"github.com/cairn-dev/cairn/internal/git"
	"github.com/cairn-dev/cairn/internal/testrepo"
)

// OriginURL is a Fixture's origin as configured.
const OriginURL = "https://github.com/acme/widgets.git"

// envFakeGH marks the test binary a Fixture's gh started as that gh.
const envFakeGH = "CAIRN_TEST_FAKE_GH"

// Main runs the tests of a package that makes Fixtures, and is its
// TestMain: it sets the git identity and config every test's git runs
// with, once, so that the tests may run in parallel. In the test binary a
// Fixture's gh started, it is that gh instead: it answers the call and
// exits.
func Main(m *testing.M) {
	if os.Getenv(envFakeGH) != "" {
		os.Exit(fakegh.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	testrepo.Main(m)
}

// Fixture is a repository on branch main with one commit, whose origin,
// OriginURL, is a local bare repository (url.insteadOf), and the fake gh,
// authenticated as "alice", on the PATH of Env.
type Fixture struct {
	// Root is the repository's working tree, Common its git common dir,
	// Origin the bare repository origin stands for.
	Root   string
	Common string
	Origin string
	// State is the fake's state; Log holds a folder for each call of it.
	State string
	Log   string
	// Env is the process's environment with the fake gh first on PATH.
	Env []string
	// Repo is the repository, with git running in Env.
	Repo *git.Repo
}

// New makes a Fixture in the test's temporary folders. The package's
// TestMain is Main.
func New(t testing.TB) *Fixture {
	t.Helper()
	dir := t.TempDir()
	f := &Fixture{Root: filepath.Join(dir, "repo")}
	testrepo.Git(t, "", "init", "-q", "-b", "main", f.Root)
	testrepo.Write(t, filepath.Join(f.Root, "README.md"), "hello\n")
	testrepo.Git(t, f.Root, "add", "-A")
	testrepo.Git(t, f.Root, "commit", "-q", "-m", "first")
	common, err := filepath.EvalSymlinks(filepath.Join(f.Root, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	f.Common = common
	f.Origin = testrepo.Origin(t, f.Root, OriginURL)

	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n" + envFakeGH + "=1 exec '" + strings.ReplaceAll(exe, "'", `'\''`) + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f.State = filepath.Join(dir, "ghstate")
	f.Log = filepath.Join(dir, "ghlog")
	if err := fakegh.SetLogin(f.State, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := fakegh.SetRepo(f.State, "github.com/acme/widgets"); err != nil {
		t.Fatal(err)
	}
	// The fake gh is the test binary: under -race, it would sleep a second
	// at each exit. Tests run by a GitHub Actions job are no job's
	// steps, whose gh has no account (fakegh's GITHUB_ACTIONS).
	f.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FAKE_GH_STATE="+f.State, "FAKE_LOG="+f.Log, "GORACE=atexit_sleep_ms=0", "GITHUB_ACTIONS=")
	f.Repo = &git.Repo{Root: f.Root, CommonDir: f.Common, Git: git.New(f.Env)}
	return f
}

// WriteIssue puts is in the fake's state.
func (f *Fixture) WriteIssue(t testing.TB, is fakegh.Issue) {
	t.Helper()
	if err := fakegh.WriteIssue(f.State, is); err != nil {
		t.Fatal(err)
	}
}

// Calls are the argv of each recorded gh call, one string each.
func (f *Fixture) Calls(t testing.TB) []string {
	t.Helper()
	var calls []string
	for n := 1; ; n++ {
		b, err := os.ReadFile(filepath.Join(f.Log, "gh."+strconv.Itoa(n), "argv"))
		if os.IsNotExist(err) {
			return calls
		}
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, strings.Join(strings.Fields(strings.ReplaceAll(string(b), "\n", " ")), " "))
	}
}

// At is a fixed time of the issue tests, plus minutes.
func At(minutes int) time.Time {
	return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)
}
