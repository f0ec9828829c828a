//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestCompilePrepare runs golden/compile/prepare.toml compiled: worktree
// app is readied with the checkout's ignored .env, config/dev.local (its
// .worktreeinclude) and a setup that installs the tool its step uses,
// none of which is in its patch; worktree broken's setup fails, which
// fails the optional step there without running it, with the setup's
// last lines as its result, and the run goes on.
func TestCompilePrepare(t *testing.T) {
	t.Parallel()
	file := filepath.Join(compileGoldenDir, "prepare.toml")
	w := newCompileWork(t, file)
	w.compile(t, file)
	stdout, stderr, code := w.run(t, nil, "bash", filepath.Join(w.work, "prepare.sh"))
	t.Logf("script: exit %d\n%s", code, stderr)
	if code != 0 || stdout != "built\n" {
		t.Errorf("exit %d, stdout %q; want 0 and the last stage's result, %q", code, stdout, "built\n")
	}
	for _, re := range []string{
		`(?m)^\d\d:\d\d:\d\d cairn: warning: worktree "app": copy "docs/\*\*/\*\.md" matches no untracked file$`,
		`(?m)^\d\d:\d\d:\d\d setup worktree app$`,
		`(?m)^\d\d:\d\d:\d\d setup worktree app: done in \S+$`,
		`(?m)^\d\d:\d\d:\d\d setup worktree broken: failed: exit status 3$`,
		`(?m)^\d\d:\d\d:\d\d failed lint \(optional\): worktree setup failed: exit status 3\n  fetching the dependencies\n  no network to fetch them from\n`,
	} {
		if !regexp.MustCompile(re).MatchString(stderr) {
			t.Errorf("stderr has no line matching %s", re)
		}
	}
	if strings.Contains(stderr, "never runs") {
		t.Error("the step in the worktree whose setup failed ran")
	}
	runs, _ := filepath.Glob(filepath.Join(w.home, "runs", "*"))
	if len(runs) != 1 {
		t.Fatalf("run folders %v; want one", runs)
	}
	run := runs[0]
	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(run, rel))
		if err != nil {
			t.Error(err)
		}
		return string(b)
	}
	if got, want := read("results/build.md"), "greet: from-the-checkout\ndebug = true\n"; got != want {
		t.Errorf("results/build.md = %q; want %q (the copied .env and config/dev.local, the installed tool)", got, want)
	}
	if got, want := read("results/lint.md"), "fetching the dependencies\nno network to fetch them from\n"; got != want {
		t.Errorf("results/lint.md = %q; want the failed setup's output %q", got, want)
	}
	if got, want := read("worktrees/app.setup.log"), "installed greet\n"; got != want {
		t.Errorf("worktrees/app.setup.log = %q; want %q", got, want)
	}
	if fi, err := os.Stat(filepath.Join(run, "worktrees", "app.setup.log")); err == nil && fi.Mode().Perm() != 0o600 {
		t.Errorf("worktrees/app.setup.log has mode %v; want 0600", fi.Mode().Perm())
	}
	if got, want := read("worktrees/app.prepared"), ".tools/greet\x00"; got != want {
		t.Errorf("worktrees/app.prepared = %q; want %q", got, want)
	}
	patch := read("worktrees/app.patch")
	if !strings.Contains(patch, "b/out.txt") || strings.Contains(patch, ".env") || strings.Contains(patch, ".tools") || strings.Contains(patch, "dev.local") {
		t.Errorf("worktrees/app.patch carries more than the step's out.txt:\n%s", patch)
	}
	log := read("log")
	for _, want := range []string{
		`step=lint kind=command worktree=broken`,
		`outcome=failed cause="worktree setup failed: exit status 3"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log has no %q:\n%s", want, log)
		}
	}
}

// TestCompilePrepareWorkflow: a workflow carries no copy, which a warning
// at each worktree's copy says (at the file's start for one whose copy is
// its .worktreeinclude's alone), and its jobs run the setups.
func TestCompilePrepareWorkflow(t *testing.T) {
	t.Parallel()
	file := filepath.Join(compileGoldenDir, "prepare.toml")
	w := newCompileWork(t, file)
	_, stderr, code := w.run(t, nil, "cairn", "compile", "--target", "github-actions", "prepare.toml", "-o", "prepare.yml")
	if code != 0 {
		t.Fatalf("cairn compile --target github-actions: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		`prepare.toml:1:1: warning: worktree "broken": copy is not compiled to github-actions: a runner's checkout has no untracked files to copy [not-compilable]`,
		`prepare.toml:6:1: warning: worktree "app": copy is not compiled to github-actions: a runner's checkout has no untracked files to copy [not-compilable]`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr has no line %q:\n%s", want, stderr)
		}
	}
	b, err := os.ReadFile(filepath.Join(w.repo, "prepare.yml"))
	if err != nil {
		t.Fatal(err)
	}
	wf := string(b)
	if strings.Contains(wf, "copy_globs") || strings.Contains(wf, "docs/**/*.md") {
		t.Error("the workflow carries the worktrees' copy")
	}
	if !strings.Contains(wf, "prepare_worktree \"$i\"") || !strings.Contains(wf, "no network to fetch them from") {
		t.Error("the workflow's jobs do not run the worktrees' setup")
	}
}

// TestCompilePrepareCases runs compiled processes whose worktrees the
// script readies in ways golden/compile/prepare.toml does not: a copied
// link out of the repository, a setup past its timeout, a copied program
// keeping its mode beside a named pipe it never opens, commit mode, whose
// commits leave out what setup made in the checkout, a worktree only a
// cancelled step uses (never readied), and an issue branch delivered with
// what setup made left out, then removed.
func TestCompilePrepareCases(t *testing.T) {
	for _, tc := range []struct {
		name, process string
		// files are written in the repository after its first commit,
		// links made there (path → target), pipes made there.
		files map[string]string
		links map[string]string
		pipes []string
		// args run the script on the fake gh's issue 7.
		args   []string
		code   int
		stderr []string
		check  func(t *testing.T, w *compileWork)
	}{{
		name: "link-out",
		process: `version = 1
[worktrees.w]
kind = "throwaway"
copy = [".env"]
[[steps]]
name = "s"
worktree = "w"
command = "echo ran"
`,
		links: map[string]string{".env": "/etc/hostname"},
		code:  1,
		stderr: []string{
			`failed s: worktree setup failed: copy ".env": it is a link to "/etc/hostname", outside the repository`,
			`cairn: failed at step s: worktree setup failed: copy ".env": it is a link to "/etc/hostname", outside the repository`,
		},
	}, {
		name: "timeout",
		process: `version = 1
[worktrees.w]
kind = "throwaway"
setup = "echo slow; sleep 30"
setup_timeout = "1s"
[[steps]]
name = "s"
worktree = "w"
command = "echo ran"
`,
		code: 1,
		stderr: []string{
			"setup worktree w: failed: timed out after 1s",
			"failed s: worktree setup failed: timed out after 1s\n  slow\n",
		},
	}, {
		name: "modes",
		process: `version = 1
[worktrees.w]
kind = "throwaway"
copy = ["bin/*"]
[[steps]]
name = "s"
worktree = "w"
command = "bin/tool.sh"
`,
		files: map[string]string{"bin/tool.sh": "#!/bin/sh\necho tool ran\n"},
		pipes: []string{"bin/pipe"},
		code:  0,
		// git lists no named pipe among the untracked files: the copy
		// never opens it.
		stderr: []string{"done s"},
	}, {
		name: "commit",
		process: `version = 1
commit = true
default_worktree = "here"
[worktrees.here]
kind = "checkout"
setup = "echo made >made-by-setup.txt"
[[steps]]
name = "s"
command = "echo work >work.txt"
`,
		code:   0,
		stderr: []string{"setup worktree here: done in", "done s"},
		check: func(t *testing.T, w *compileWork) {
			out, _, _ := w.run(t, nil, "git", "log", "--name-only", "--format=%s")
			if strings.Contains(out, "made-by-setup.txt") || !strings.Contains(out, "work.txt") {
				t.Errorf("the run's commits carry what setup made, or not the step's work:\n%s", out)
			}
			if _, err := os.Stat(filepath.Join(w.repo, "made-by-setup.txt")); err != nil {
				t.Errorf("what setup made in the checkout is gone: %v", err)
			}
		},
	}, {
		name: "cancelled",
		process: `version = 1
[worktrees.first]
kind = "throwaway"
[worktrees.later]
kind = "throwaway"
setup = "echo readied"
[[steps]]
name = "a"
worktree = "first"
command = "exit 4"
[[steps]]
name = "b"
worktree = "later"
command = "echo ran"
`,
		code:   1,
		stderr: []string{"failed a: exit status 4"},
		check: func(t *testing.T, w *compileWork) {
			logs, _ := filepath.Glob(filepath.Join(w.home, "runs", "*", "worktrees", "later.setup.log"))
			if len(logs) > 0 {
				t.Errorf("a worktree only a cancelled step uses was readied: %v", logs)
			}
		},
	}, {
		name: "issue-branch",
		process: `version = 1
[limits]
repair_cap = 0
[worktrees.fix]
kind = "issue-branch"
setup = "echo made >made-by-setup.txt"
[[steps]]
name = "fix"
worktree = "fix"
command = "echo work >work.txt"
[[steps]]
name = "deliver"
worktree = "fix"
catalogue = "delivery"
`,
		args:   []string{"issue", "7"},
		code:   0,
		stderr: []string{"setup worktree fix: done in", "done deliver"},
		check: func(t *testing.T, w *compileWork) {
			out, _, _ := w.run(t, nil, "git", "log", "--name-only", "--format=%s", "main..cairn/7-crash-on-empty-input")
			if strings.Contains(out, "made-by-setup.txt") || !strings.Contains(out, "work.txt") {
				t.Errorf("the issue branch's commits carry what setup made, or not the step's work:\n%s", out)
			}
			// Delivered, with nothing but what setup made left
			// uncommitted, the worktree is removed.
			if out, _, _ := w.run(t, nil, "git", "worktree", "list"); strings.Count(out, "\n") != 1 {
				t.Errorf("git worktree list: want the checkout alone:\n%s", out)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), tc.name+".toml")
			if err := os.WriteFile(file, []byte(tc.process), 0o644); err != nil {
				t.Fatal(err)
			}
			w := newCompileWork(t, file)
			if tc.args != nil {
				w.onIssue(t, tc.name)
			}
			writeFiles(t, w.repo, tc.files)
			for path, target := range tc.links {
				if err := os.Symlink(target, filepath.Join(w.repo, path)); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range tc.pipes {
				if err := syscall.Mkfifo(filepath.Join(w.repo, p), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for path := range tc.files {
				if err := os.Chmod(filepath.Join(w.repo, path), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			w.compile(t, file)
			_, stderr, code := w.run(t, nil, append([]string{"bash", filepath.Join(w.work, tc.name+".sh")}, tc.args...)...)
			t.Logf("script: exit %d\n%s", code, stderr)
			if code != tc.code {
				t.Errorf("exit %d; want %d", code, tc.code)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr has no %q", want)
				}
			}
			if strings.Contains(stderr, "echo ran") {
				t.Error("a step ran in a worktree that was not readied")
			}
			if tc.check != nil {
				tc.check(t, w)
			}
		})
	}
}

// TestActGoldenPrepare runs golden/compile/prepare.toml's workflow under act: the
// job of step build runs worktree app's setup in its checkout, whose
// output the run folder keeps, but copies nothing (the runner's checkout
// has no untracked files), so the step finds no .env and fails the run.
// A slow suite, as TestActDifferential.
func TestActGoldenPrepare(t *testing.T) {
	slowSuite(t)
	act, standIns := lookAct(t)
	t.Parallel()
	file := filepath.Join(compileGoldenDir, "prepare.toml")
	w := newCompileWork(t, file)
	art, _, errOut, code := w.act(t, act, standIns, file)
	if code == 0 {
		t.Errorf("act: exit 0; want the build job failed\n%s", errOut)
	}
	run := filepath.Join(art, "cairn-run")
	for rel, want := range map[string]string{
		"worktrees/app.setup.log": "installed greet\n",
		"worktrees/app.prepared":  ".tools/greet\x00",
		"results/build.md":        "/usr/bin/bash: line 1: ./.env: No such file or directory\n",
	} {
		b, err := os.ReadFile(filepath.Join(run, rel))
		if err != nil || !strings.Contains(string(b), strings.TrimPrefix(want, "/usr/bin/bash: ")) {
			t.Errorf("%s = %q (%v); want %q", rel, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(run, "worktrees", "broken.setup.log")); err == nil {
		t.Error("worktree broken, whose step was cancelled, was set up")
	}
}
