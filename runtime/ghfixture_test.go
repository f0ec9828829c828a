package runtime

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/fakegh"
	"github.com/cairn-dev/cairn/internal/testrepo"
)

// TestHelperFakeGH is not a test: it is the fake gh (internal/fakegh) the
// issue tests put on the PATH, as a wrapper that runs this test binary.
func TestHelperFakeGH(t *testing.T) {
	if os.Getenv("CAIRN_TEST_FAKE_GH") == "" {
		t.Skip("the fake gh of the issue tests")
	}
	os.Exit(fakegh.Run(flag.Args(), os.Stdin, os.Stdout, os.Stderr))
}

// ghFixture is a repository whose origin is github.com/acme/widgets, pushed
// to a local bare repository (url.insteadOf), with the fake gh on the PATH
// of env, authenticated as "alice".
type ghFixture struct {
	root   string
	common string
	origin string
	state  string
	log    string
	env    []string
}

// originURL is the fixtures' origin as configured.
const originURL = "https://github.com/acme/widgets.git"

func newGHFixture(t *testing.T) *ghFixture {
	t.Helper()
	f := &ghFixture{}
	f.root, f.common = testrepo.New(t)
	dir := t.TempDir()
	f.origin = testrepo.Origin(t, f.root, originURL)

	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nCAIRN_TEST_FAKE_GH=1 exec '" + strings.ReplaceAll(exe, "'", `'\''`) + "' -test.run='^TestHelperFakeGH$' -- \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f.state = filepath.Join(dir, "ghstate")
	f.log = filepath.Join(dir, "ghlog")
	if err := fakegh.SetLogin(f.state, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := fakegh.SetRepo(f.state, "github.com/acme/widgets"); err != nil {
		t.Fatal(err)
	}
	f.env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FAKE_GH_STATE="+f.state, "FAKE_LOG="+f.log)
	return f
}

// writeIssue puts is in the fake's state.
func (f *ghFixture) writeIssue(t *testing.T, is fakegh.Issue) {
	t.Helper()
	if err := fakegh.WriteIssue(f.state, is); err != nil {
		t.Fatal(err)
	}
}

// calls are the argv of each recorded gh call, one string each.
func (f *ghFixture) calls(t *testing.T) []string {
	t.Helper()
	var calls []string
	for n := 1; ; n++ {
		b, err := os.ReadFile(filepath.Join(f.log, "gh."+strconv.Itoa(n), "argv"))
		if os.IsNotExist(err) {
			return calls
		}
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, strings.Join(strings.Fields(strings.ReplaceAll(string(b), "\n", " ")), " "))
	}
}

// at is a fixed time of the issue tests, plus minutes.
func at(minutes int) time.Time {
	return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)
}
