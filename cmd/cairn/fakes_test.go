package main

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/rogpeppe/go-internal/testscript"
)

// fakesDir holds the fake agent CLIs (testdata/fakes/fake.bash says what
// they record and how they answer).
var fakesDir = filepath.Join("testdata", "fakes")

// fakeNames are the fakes a script may ask for.
var fakeNames = []string{"claude", "codex", "gemini", "opencode"}

func init() {
	scriptCmds["fakes"] = installFakes
	scriptSetups = append(scriptSetups, func(e *testscript.Env) error {
		e.Setenv("FAKE_LOG", filepath.Join(e.WorkDir, "fakelog"))
		e.Setenv("FAKE_ANSWERS", filepath.Join(e.WorkDir, "answers"))
		return nil
	})
}

// installFakes is the script command "fakes NAME...": it puts the named fake
// agent CLIs in $WORK/bin, which is on the scripts' PATH. Each call of a
// fake is then recorded in $WORK/fakelog/NAME.N/{argv,stdin,cwd,env}; a
// session answers with $WORK/answers/NAME.STEP or $WORK/answers/NAME;
// `env FAKE_FAIL=NAME` makes it fail as the real CLI fails without
// credentials, `env FAKE_SLEEP=SECONDS` makes it slow.
func installFakes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: fakes NAME... (of %v)", fakeNames)
	}
	bin := ts.MkAbs("bin")
	ts.Check(os.MkdirAll(bin, 0o755))
	ts.Check(copyFake(filepath.Join(fakesDir, "fake.bash"), filepath.Join(bin, "fake.bash"), 0o644))
	for _, name := range args {
		if !slices.Contains(fakeNames, name) {
			ts.Fatalf("no fake %q (of %v)", name, fakeNames)
		}
		ts.Check(copyFake(filepath.Join(fakesDir, name), filepath.Join(bin, name), 0o755))
	}
}

// copyFake copies a fake to dst with the given mode.
func copyFake(src, dst string, mode os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, b, mode); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}
