package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakegh"
	"github.com/goccy/go-yaml"
)

// publishScript is the script of the publish job of golden/compile/
// published.yml's step spec: what it does with the calls of gh the
// step's sessions made.
func publishScript(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(compileGoldenDir, "published.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf ghWorkflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	for _, st := range wf.Jobs["spec_publish"].Steps {
		if st.Name == "Publish what the step's sessions asked gh to" {
			return st.Run
		}
	}
	t.Fatal("published.yml: job spec_publish has no step that publishes")
	return ""
}

// TestPublishJob runs a publish job's script against the fake gh, given
// the gh calls a step's sessions made (as the outbox's gh records them):
// it creates the label, opens the issues by GitHub's bot, numbers them
// for real in the calls after them (an edit, a comment) and in the step's
// result, and names them in its output; a call GitHub refuses fails the job, naming the step,
// the call and gh's reason, with nothing kept again.
func TestPublishJob(t *testing.T) {
	fastSuite(t)
	script := publishScript(t)
	calls := []string{
		`{"op":"label create","name":"spec","color":"","description":"","force":false}`,
		`{"op":"issue create","title":"Export notes as PDF","body":"Spec of #7.\n","number":900000001,"labels":["spec"]}`,
		`{"op":"issue create","title":"Render","body":"Part of #900000001 (https://github.com/acme/widgets/issues/900000001).","number":900000002,"labels":[]}`,
		`{"op":"issue edit","body":"- [ ] #900000002 Render\n","issue":900000001,"add_labels":[],"remove_labels":[]}`,
		`{"op":"label create","name":"spec","color":"","description":"","force":false}`,
		`{"op":"issue comment","body":"Split into #900000002.","issue":900000001}`,
	}
	for _, tc := range []struct {
		name  string
		calls []string
		code  int
		out   string
		err   string
	}{
		{"published", calls, 0, "issues=8 9\nmapped=true\n", ""},
		{"refused", []string{calls[0], calls[1], strings.Replace(calls[2], `"labels":[]`, `"labels":["nope"]`, 1)}, 1, "",
			"cairn: error: step spec: publish: gh issue create: could not add label: 'nope' not found\n"},
		{"nothing", nil, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			state, run := filepath.Join(work, "gh"), filepath.Join(work, "published")
			files := map[string]string{
				"gh/login": "alice\n", "gh/repo": "github.com/acme/widgets\n",
				"gh/issues/7.json":          `{"number": 7, "title": "Old", "body": "", "author": "bob", "createdAt": "2026-01-01T00:00:00Z"}`,
				"published/results/spec.md": "Published the spec.\n\n<https://github.com/acme/widgets/issues/900000001>.\n",
				"output":                    "",
			}
			for i, c := range tc.calls {
				files[filepath.Join("published/outbox", strings.Repeat("0", 3)+string(rune('1'+i))+".json")] = c + "\n"
			}
			writeFiles(t, work, files)
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir = work
			for k, v := range testEnv(t, work) {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			cmd.Env = append(cmd.Env, "FAKE_GH_STATE="+state, "GH_TOKEN=ghs_notAToken", "GITHUB_SERVER_URL=https://github.com",
				"GITHUB_REPOSITORY=acme/widgets", "GITHUB_OUTPUT="+filepath.Join(work, "output"), "CAIRN_PUBLISHED="+run, "CAIRN_STEP=spec")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			out, _ := os.ReadFile(filepath.Join(work, "output"))
			if code != tc.code || string(out) != tc.out || stderr.String() != tc.err {
				t.Errorf("exit %d, output %q, stderr %q; want %d, %q, %q", code, out, stderr.String(), tc.code, tc.out, tc.err)
			}
			if tc.name != "published" {
				return
			}
			result, _ := os.ReadFile(filepath.Join(run, "results/spec.md"))
			if want := "Published the spec.\n\n<https://github.com/acme/widgets/issues/8>.\n"; string(result) != want {
				t.Errorf("the step's result: %q; want %q", result, want)
			}
			for n, want := range map[int]fakegh.Issue{
				8: {Title: "Export notes as PDF", Body: "- [ ] #9 Render\n", Labels: []string{"spec"}},
				9: {Title: "Render", Body: "Part of #8 (https://github.com/acme/widgets/issues/8).", Labels: nil},
			} {
				is, err := fakegh.ReadIssue(state, n)
				if err != nil {
					t.Fatal(err)
				}
				if is.Title != want.Title || is.Body != want.Body || strings.Join(is.Labels, ",") != strings.Join(want.Labels, ",") || is.Author != fakegh.Bot {
					t.Errorf("issue #%d: %q %q %q by %q; want %q %q %q by %q", n, is.Title, is.Body, is.Labels, is.Author, want.Title, want.Body, want.Labels, fakegh.Bot)
				}
			}
			if is, err := fakegh.ReadIssue(state, 8); err != nil || len(is.Comments) != 1 || is.Comments[0].Body != "Split into #9." || is.Comments[0].Author != fakegh.Bot {
				t.Errorf("issue #8's comments: %+v, %v; want one by %s, \"Split into #9.\"", is, err, fakegh.Bot)
			}
			if b, err := os.ReadFile(filepath.Join(run, "outbox/published.json")); err != nil || string(b) != `{"900000001":"8","900000002":"9"}`+"\n" {
				t.Errorf("outbox/published.json: %q, %v", b, err)
			}
		})
	}
}

// TestPublishJobFailed runs the last job's script of golden/compile/
// published.yml as GitHub runs it after the publish job of step spec
// failed (act ends a run there): the run-published-issue step's jobs did
// not run, and the run fails at the publishing step, naming the job whose
// log says why.
func TestPublishJobFailed(t *testing.T) {
	fastSuite(t)
	b, err := os.ReadFile(filepath.Join(compileGoldenDir, "published.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf ghWorkflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	var script string
	for _, st := range wf.Jobs["results"].Steps {
		if st.Name == "The results of the last stage" {
			script = st.Run
		}
	}
	work := t.TempDir()
	writeFiles(t, work, map[string]string{
		"parts/cairn-run-spec/log":             "step=spec kind=session worktree=default harness=claude model=sonnet effort=medium outcome=succeeded\n",
		"parts/cairn-run-spec/results/spec.md": "Published the spec.\n\n<https://github.com/acme/widgets/issues/900000001>.\n",
	})
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = work
	for k, v := range testEnv(t, work) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "CAIRN_PARTS="+filepath.Join(work, "parts"), "CAIRN_RUN="+filepath.Join(work, "run"),
		`CAIRN_NEEDS={"spec": {"result": "success"}, "spec_publish": {"result": "failure"}, "build_plan": {"result": "skipped"}, "build": {"result": "skipped"}}`)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	want := "cairn: failed at step spec: its job spec_publish could not publish what its sessions asked gh to; its log says why\n"
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("the last job: %v, stderr %q; want exit 1 and %q", err, stderr.String(), want)
	}
	log, _ := os.ReadFile(filepath.Join(work, "run", "log"))
	if !strings.Contains(string(log), "step=spec ") || !strings.Contains(string(log), "step=build kind=catalogue worktree=default harness=- model=- effort=- duration=0s outcome=cancelled\n") {
		t.Errorf("the run's log:\n%s", log)
	}
}
