package main

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/modeldouble"
	"github.com/cairn-dev/cairn/record"
)

// readEscape is a command a session at read access asks to run that would
// write a file, or run a program that does, if its CLI let it through:
// each makes a file named pwned-NAME in the worktree, in its parent (../)
// or outside both ({{out}}).
type readEscape struct{ name, command string }

// readEscapes are the forms of a read-only command that write: git's
// --output (its two spellings, and quoted), a redirection of a command or
// of a group or subshell around one, a second command after ; or &&, a
// command substitution, git difftool's -x, and git -c with an external
// diff.
var readEscapes = []readEscape{
	{"diff-output", "git diff --output=../pwned-diff-output HEAD"},
	{"diff-output-arg", "git diff --output {{out}}/pwned-diff-output-arg HEAD"},
	{"log-output", "git log -1 --output={{out}}/pwned-log-output"},
	{"diff-output-quoted", "git diff --out''put=pwned-diff-output-quoted HEAD"},
	{"log-redirect", "git log -1 > pwned-log-redirect"},
	{"ls-redirect", "ls >> pwned-ls-redirect"},
	{"subshell-redirect", "(ls) > pwned-subshell-redirect"},
	{"group-redirect", "{ git status; } > pwned-group-redirect"},
	{"and", "git log -1 && touch pwned-and"},
	{"semicolon", "git status; touch pwned-semicolon"},
	{"substitution", "git log -1 $(touch pwned-substitution)"},
	{"backticks", "git log -1 `touch pwned-backticks`"},
	{"difftool", `git difftool -y -x "touch {{out}}/pwned-difftool" --no-index go.mod main.go`},
	{"external", `git -c diff.external="touch {{out}}/pwned-external" diff --ext-diff --no-index go.mod main.go`},
}

// readLook is a read-only command every CLI that runs commands at read
// still runs: its output, the repository's one commit, reaches the model.
const readLook = "git log --oneline -1"

// TestRealSessionsReadOnly: a session at read access, through each real
// CLI, asks to run every one of readEscapes; none writes its file, the
// session goes on to its final message, and the run succeeds. The CLIs
// that run commands at read (claude, codex, gemini) still run readLook;
// opencode, whose permission cannot keep a redirection of a group of
// allowed commands, runs none.
func TestRealSessionsReadOnly(t *testing.T) {
	bin := realSessionsBin(t)
	t.Parallel()
	for _, cli := range realCLIs {
		t.Run(cli.name, func(t *testing.T) {
			t.Parallel()
			realSlots <- struct{}{}
			defer func() { <-realSlots }()
			realReadOnly(t, cli, bin)
		})
	}
}

func realReadOnly(t *testing.T, cli realCLI, bin string) {
	const final = "READ-ONLY-done"
	// Outside the temporary folder, as a user's files are.
	out := realHome(t)
	var script []modeldouble.Turn
	for _, e := range readEscapes {
		script = append(script, modeldouble.Shell(strings.ReplaceAll(e.command, "{{out}}", out)))
	}
	script = append(script, modeldouble.Shell(readLook), modeldouble.Text(final))
	d := modeldouble.New(script...)
	defer d.Close()
	home := realHome(t)
	w := newRealWork(t, bin, home, cli.endpoint(t, home, d.URL))
	r := w.run(t, "run", w.process(t, "read", oneCLI{cli.name, cli.model}))
	logDouble(t, cli.name, d)

	for _, dir := range []string{out, w.cairnHome, w.repo} {
		filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(e.Name(), "pwned-") {
				t.Errorf("a session at read wrote %s", path)
			}
			return nil
		})
	}
	results := d.ToolResults()
	for i, tr := range results {
		name := "look"
		if i < len(readEscapes) {
			name = readEscapes[i].name
		}
		t.Logf("%s: %s (error %v): %q", name, tr.Name, tr.IsError, clipText(tr.Output, 160))
	}
	if len(results) != len(script)-1 {
		t.Errorf("%d tool results for %d commands: %s", len(results), len(script)-1, describe(results))
	}
	if len(results) > 0 {
		look := results[len(results)-1]
		ran := !look.IsError && strings.Contains(look.Output, "init")
		if cli.name == "opencode" && ran {
			t.Errorf("opencode ran %q at read", readLook)
		}
		if cli.name != "opencode" && !ran {
			t.Errorf("%q did not run at read: %q", readLook, clipText(look.Output, 300))
		}
	}
	if r.code != 0 || strings.TrimSpace(r.stdout) != final {
		t.Errorf("exit %d, stdout %q; want 0 and the final message %q", r.code, r.stdout, final)
	}
	if s := r.step(t, "look"); s.Outcome != record.Succeeded {
		t.Errorf("step look: %s (%s); want succeeded", s.Outcome, s.Cause)
	}
	if p := r.patch(t, "default"); p != "" {
		for _, m := range regexp.MustCompile(`(?m)^diff --git a/(pwned-\S+)`).FindAllStringSubmatch(p, -1) {
			t.Errorf("a session at read wrote %s in its worktree", m[1])
		}
		t.Errorf("a read session left a patch:\n%s", p)
	}
}
