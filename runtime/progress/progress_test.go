package progress

import (
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/record"
)

// fixedClock is a clock that says t, moved by hand.
type fixedClock struct{ t time.Time }

func (c *fixedClock) now() time.Time { return c.t }

func TestProgressPlain(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	clock := &fixedClock{time.Date(2026, 1, 1, 12, 0, 1, 0, time.Local)}
	p := New(&b, false, nil)
	p.now = clock.now
	p.Start("hunt-claude", "session, claude opus, worktree claude")
	clock.t = clock.t.Add(8 * time.Second)
	p.End("hunt-claude", record.Succeeded, 8100*time.Millisecond, "")
	p.End("test", record.Failed, time.Second, "exit status 1")
	p.End("later", record.Cancelled, 0, "")
	p.End("lint", record.Skipped, 0, "no Go files")
	p.Note("hunt-codex: waiting for resources")
	p.Optional = map[string]bool{"vet": true}
	p.End("vet", record.Failed, time.Second, "exit status 2")
	p.End("vet", record.Cancelled, 0, "")
	p.End("docs", record.Inconclusive, 2*time.Second, "validate: the judge reached no verdict (max-turns: reached its turn cap (32))")
	p.Close()
	want := `12:00:01 start hunt-claude (session, claude opus, worktree claude)
12:00:09 done hunt-claude 8.1s
12:00:09 failed test: exit status 1
12:00:09 cancelled later
12:00:09 skipped lint: no Go files
12:00:09 hunt-codex: waiting for resources
12:00:09 failed vet (optional): exit status 2
12:00:09 cancelled vet
12:00:09 inconclusive docs 2s: validate: the judge reached no verdict (max-turns: reached its turn cap (32))
`
	if b.String() != want {
		t.Errorf("plain progress:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestProgressTerminal(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	clock := &fixedClock{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	p := New(&b, true, []string{"NO_COLOR=1", "COLUMNS=40"})
	defer p.Close()
	p.now = clock.now

	p.Start("a", "command, worktree a")
	p.Start("b", "session, claude opus, worktree a-very-long-name")
	clock.t = clock.t.Add(3 * time.Second)
	p.End("a", record.Succeeded, 3*time.Second, "")
	p.Optional = map[string]bool{"b": true}
	p.End("b", record.Failed, 3*time.Second, "exit status 1")

	out := b.String()
	// The last redraw moves up over both lines and rewrites them.
	last := out[strings.LastIndex(out, "\x1b[2A"):]
	want := "\x1b[2A\r\x1b[2K✓ a  3s\n\r\x1b[2K✗ b  failed (optional): exit status 1\n"
	if last != want {
		t.Errorf("last redraw %q; want %q", last, want)
	}
	if strings.Contains(out, "\x1b[3") {
		t.Errorf("colour with NO_COLOR set: %q", out)
	}
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r\x1b[2K", "\n"), "\n") {
		if n := len([]rune(line)); n > 40 {
			t.Errorf("line of %d characters wider than the terminal: %q", n, line)
		}
	}
	// Nothing runs: the next step starts a new block below.
	p.Start("c", "command, worktree a")
	if rest := b.String()[len(out):]; strings.Contains(rest, "\x1b[2A") || !strings.Contains(rest, "c  0s") {
		t.Errorf("after the block ended: %q; want a new line for c, nothing rewritten", rest)
	}
}

func TestProgressPlainUnder(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	clock := &fixedClock{time.Date(2026, 1, 1, 12, 0, 1, 0, time.Local)}
	p := New(&b, false, nil)
	p.now = clock.now
	p.NoteLines("warning: step lint: validate: exit status 1", []string{"validate shell 1: exit status 1; it wrote nothing"})
	p.Attach("test", []string{"validate shell 1: exit status 1; its output:", "| boom"})
	p.End("other", record.Failed, time.Second, "exit status 2")
	p.End("test", record.Failed, time.Second, "validate: exit status 1")
	p.Close()
	want := `12:00:01 warning: step lint: validate: exit status 1
           validate shell 1: exit status 1; it wrote nothing
12:00:01 failed other: exit status 2
12:00:01 failed test: validate: exit status 1
           validate shell 1: exit status 1; its output:
           | boom
`
	if b.String() != want {
		t.Errorf("plain progress:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestProgressTerminalUnder(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	clock := &fixedClock{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	p := New(&b, true, []string{"NO_COLOR=1", "COLUMNS=30"})
	defer p.Close()
	p.now = clock.now

	p.Start("a", "command")
	p.Start("b", "command")
	p.Attach("a", []string{"| boom", "| " + strings.Repeat("x", 40)})
	p.End("a", record.Failed, time.Second, "exit status 1")
	// a's lines stay under it while b runs, and the redraw moves up over
	// all four.
	p.End("b", record.Succeeded, time.Second, "")
	out := b.String()
	last := out[strings.LastIndex(out, "\x1b[4A"):]
	want := "\x1b[4A\r\x1b[2K✗ a  failed: exit status 1\n\r\x1b[2K    | boom\n\r\x1b[2K    | " + strings.Repeat("x", 23) + "…\n\r\x1b[2K✓ b  1s\n"
	if last != want {
		t.Errorf("last redraw %q; want %q", last, want)
	}
}

// TestProgressTerminalEscapes: on a terminal, what a step's cause, a note
// or a shell's output holds of control characters is shown escaped, never
// acted on; plain lines keep the bytes.
func TestProgressTerminalEscapes(t *testing.T) {
	t.Parallel()
	const hostile = "x\x1b]52;c;SGVsbG8=\x07\x1b]0;title\x07\x1b[2J\u009b31m\rover"
	const shown = `x\x1b]52;c;SGVsbG8=\a\x1b]0;title\a\x1b[2J\u009b31m\rover`
	var b strings.Builder
	p := New(&b, true, []string{"NO_COLOR=1", "COLUMNS=200"})
	p.Start("a", "command")
	p.Note("note " + hostile)
	p.NoteLines("lines", []string{"| " + hostile})
	p.Attach("a", []string{"| " + hostile})
	p.End("a", record.Failed, time.Second, "cause "+hostile)
	p.Close()
	out := b.String()
	for _, want := range []string{"note " + shown + "\n", "    | " + shown + "\n", "a  failed: cause " + shown + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%q", want, out)
		}
	}
	for _, raw := range []string{"\x1b]", "\x1b[2J", "\u009b", "\x07", "\rover"} {
		if strings.Contains(out, raw) {
			t.Errorf("the terminal got %q raw:\n%q", raw, out)
		}
	}

	b.Reset()
	p = New(&b, false, nil)
	p.End("a", record.Failed, time.Second, "cause "+hostile)
	p.Close()
	if !strings.HasSuffix(b.String(), " failed a: cause "+hostile+"\n") {
		t.Errorf("plain progress changed the bytes: %q", b.String())
	}
}

// TestProgressReadsTheRunsEnvironment: colour and width come from the
// environment the run was given, never from cairn's own process's.
func TestProgressReadsTheRunsEnvironment(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	t.Setenv("TERM", "dumb")
	t.Setenv("COLUMNS", "12")
	for _, c := range []struct {
		env   []string
		color bool
	}{
		{[]string{"TERM=xterm-256color"}, true},
		{[]string{"TERM=xterm-256color", "NO_COLOR=1"}, false},
		{[]string{"TERM=dumb"}, false},
	} {
		var b strings.Builder
		p := New(&b, true, append(c.env, "COLUMNS=60"))
		p.Start("a-step-with-a-long-name", "command, worktree a")
		p.End("a-step-with-a-long-name", record.Failed, time.Second, "exit status 1")
		p.Close()
		out := b.String()
		if got := strings.Contains(out, "\x1b[3"); got != c.color {
			t.Errorf("env %q: colour %v; want %v:\n%q", c.env, got, c.color, out)
		}
		if !strings.Contains(out, "a-step-with-a-long-name  failed: exit status 1") {
			t.Errorf("env %q: the line is not 60 columns wide:\n%q", c.env, out)
		}
	}
}
