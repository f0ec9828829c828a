package codegen

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutboxGH runs the gh a workflow's sessions that may publish see
// (outbox-gh.bash): it records issue create, issue edit and label create
// in order, answering as gh does with provisional numbers, refuses what
// it does not record and another repository, and hands any other command
// to the gh after it on PATH.
func TestOutboxGH(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shim, real, box := filepath.Join(dir, "shim"), filepath.Join(dir, "real"), filepath.Join(dir, "box")
	for _, d := range []string{shim, real, box} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(shim, "gh"), []byte(outboxGH), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "gh"), []byte("#!/bin/sh\necho \"real gh $* (GH_TOKEN=${GH_TOKEN-}${CAIRN_OUTBOX_TOKEN+, and CAIRN_OUTBOX_TOKEN})\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "body.md"), []byte("The spec.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args, stdin    string
		code           int
		stdout, stderr string
	}{
		{"label create spec --color=0e8a16", "", 0, "", ""},
		{"issue create --title Spec --body-file body.md -l spec", "", 0, "https://github.com/acme/widgets/issues/900000001\n", ""},
		{"issue create -tTicket -b x --repo github.com/Acme/Widgets", "", 0, "https://github.com/acme/widgets/issues/900000002\n", ""},
		{"issue edit https://github.com/acme/widgets/issues/900000001 --body-file - --add-label later", "- [ ] #900000002\n", 0, "https://github.com/acme/widgets/issues/900000001\n", ""},
		{"issue create --title T --body b --assignee bob", "", 2, "", "takes only --title, --body, --body-file, --label, --repo; not --assignee\n"},
		{"issue create --title T --body b -R other/repo", "", 1, "", "publishes to its own repository, acme/widgets, not to other/repo\n"},
		{"issue create --title T", "", 1, "", "must provide `--title` and `--body`"},
		{"issue create --title T --body-file missing.md", "", 1, "", "open missing.md: no such file or directory\n"},
		{"issue edit 7", "", 1, "", "field to edit flag required"},
		{"issue comment #900000001 --body-file -", "Split into #900000002.\n", 0, "https://github.com/acme/widgets/issues/900000001#issuecomment-900000005\n", ""},
		{"issue comment 7", "", 2, "", "`--body`, `--body-file` or `--web` required when not running interactively"},
		{"issue comment 7 --edit-last -b x", "", 2, "", "takes only --body, --body-file, --repo; not --edit-last\n"},
		{"issue comment 7 8 -b x", "", 1, "", "takes one issue"},
		{"pr list --state open", "", 0, "real gh pr list --state open (GH_TOKEN=ghs_job)\n", ""},
	} {
		cmd := exec.Command("bash", append([]string{filepath.Join(shim, "gh")}, strings.Fields(c.args)...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+shim+":"+real+":"+os.Getenv("PATH"), "CAIRN_OUTBOX="+box, "CAIRN_OUTBOX_REPO=https://github.com/acme/widgets", "CAIRN_OUTBOX_TOKEN=ghs_job")
		cmd.Stdin = strings.NewReader(c.stdin)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code || stdout.String() != c.stdout || !strings.Contains(stderr.String(), c.stderr) || c.stderr == "" && stderr.Len() > 0 {
			t.Errorf("gh %s: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, stdout.String(), stderr.String(), c.code, c.stdout, c.stderr)
		}
	}
	var got []string
	for _, name := range []string{"0001.json", "0002.json", "0003.json", "0004.json", "0005.json"} {
		b, err := os.ReadFile(filepath.Join(box, name))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.TrimSpace(string(b)))
	}
	want := []string{
		`{"op":"label create","name":"spec","color":"0e8a16","description":"","force":false}`,
		`{"op":"issue create","title":"Spec","body":"The spec.\n","number":900000001,"labels":["spec"]}`,
		`{"op":"issue create","title":"Ticket","body":"x","number":900000002,"labels":[]}`,
		`{"op":"issue edit","body":"- [ ] #900000002\n","issue":900000001,"add_labels":["later"],"remove_labels":[]}`,
		`{"op":"issue comment","body":"Split into #900000002.\n","issue":900000001}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the outbox holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat(filepath.Join(box, "0006.json")); err == nil {
		t.Error("a refused call was recorded")
	}
}
