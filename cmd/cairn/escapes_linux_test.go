package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn/internal/ptytest"
	"github.com/cairn-dev/cairn/internal/testwait"
)

// hostileScript prints what a terminal acts on rather than shows: an OSC
// 52 that sets the clipboard, a window title, a clear screen, a C1 CSI
// (U+009B, which sets red), a DEL, and a bare carriage return that would
// write over the line.
const hostileScript = `printf 'cr\rover copy\033]52;c;SGVsbG8=\007 title\033]0;pwned\007 clear\033[2J csi\302\23331m del\177\n'` + "\n"

// hostileLine is what hostileScript prints, and hostileShown the same
// escaped, as cairn shows it on a terminal; hostileCause is the line as a
// cause (the CSI sequences that colour a CLI's output taken out, and its
// blanks made one space), and causeShown that escaped.
const (
	hostileLine  = "cr\rover copy\x1b]52;c;SGVsbG8=\a title\x1b]0;pwned\a clear\x1b[2J csi\u009b31m del\x7f"
	hostileShown = `cr\rover copy\x1b]52;c;SGVsbG8=\a title\x1b]0;pwned\a clear\x1b[2J csi\u009b31m del\x7f`
	hostileCause = "cr over copy\x1b]52;c;SGVsbG8=\a title\x1b]0;pwned\a clear csi\u009b31m del\x7f"
	causeShown   = `cr over copy\x1b]52;c;SGVsbG8=\a title\x1b]0;pwned\a clear csi\u009b31m del\x7f`
)

// hostileRaw are the pieces of hostileLine a terminal must never get.
var hostileRaw = []string{"\x1b]52;", "\x1b]0;", "\x1b[2J", "\u009b", "\x7f", "cr\rover"}

// TestRunEscapesOnTerminal (issue 26): on a terminal, what cairn did not
// write itself is shown with its control characters escaped: a result on
// stdout, a cause in its step's line and in the run's failure line, `cairn
// show` and `cairn status` (a failed shell's output, under its step's line,
// is shown as plain text already). Through a pipe the bytes are kept as
// written, and so are the result files.
func TestRunEscapesOnTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".gitignore": "/home/\n",
		"hostile.sh": hostileScript,
		// An optional step whose failed validate shell's output is
		// shown under its line, then one whose result is printed.
		"run.toml": `version = 1

[[steps]]
name = "loud"
command = "true"
optional = true

[steps.validate]
shells = ["sh hostile.sh; exit 1"]

[[steps]]
name = "hostile"
command = "sh hostile.sh"
`,
		// A session whose CLI fails with the line as its cause (a
		// custom harness's cause is its stderr's last line).
		"fail.toml": `version = 1

[[steps]]
name = "ask"
harness = "bot"
prompt = "Say hello."
`,
		"home/config.toml": `[harnesses.bot]
command = ["sh", "-c", "cat >/dev/null; sh hostile.sh >&2; exit 3"]
`,
	})
	gitRepo(t, dir)

	screen, code := cairnOnPty(t, dir, "run", "run.toml")
	if code != 0 {
		t.Fatalf("cairn run exited %d:\n%q", code, screen)
	}
	wantShown(t, "cairn run", screen, "\r\n"+hostileShown+"\r\n")

	stdout, _, code := cairnIn(t, dir, "run", "run.toml")
	if code != 0 || string(stdout) != hostileLine+"\n" {
		t.Errorf("cairn run to a pipe: exit %d, stdout %q; want the result's bytes %q", code, stdout, hostileLine+"\n")
	}
	results, _ := filepath.Glob(filepath.Join(dir, "home", "runs", "run_*", "results", "hostile.md"))
	for _, f := range results {
		if b, err := os.ReadFile(f); err != nil || string(b) != hostileLine+"\n" {
			t.Errorf("%s holds %q (%v); want the bytes as written", f, b, err)
		}
	}
	if len(results) != 2 {
		t.Errorf("results: %q; want one per run", results)
	}

	screen, code = cairnOnPty(t, dir, "run", "fail.toml")
	if code != exitFailed {
		t.Errorf("cairn run fail.toml exited %d; want %d", code, exitFailed)
	}
	wantShown(t, "a failed run", screen, "failed: "+causeShown+"\r\n", "cairn: failed at step ask: "+causeShown+"\r\n")

	screen, _ = cairnOnPty(t, dir, "show")
	wantShown(t, "cairn show", screen, `cause="`+causeShown+`"`)

	screen, _ = cairnOnPty(t, dir, "status")
	wantShown(t, "cairn status", screen, "ask: "+causeShown+"\r\n")
	stdout, _, _ = cairnIn(t, dir, "status")
	if !bytes.Contains(stdout, []byte("ask: "+hostileCause+"\n")) {
		t.Errorf("cairn status to a pipe does not keep the cause's bytes:\n%q", stdout)
	}
}

// wantShown checks that screen, what a terminal got from what, holds each
// of shown and none of hostileRaw.
func wantShown(t *testing.T, what string, screen []byte, shown ...string) {
	t.Helper()
	for _, s := range shown {
		if !bytes.Contains(screen, []byte(s)) {
			t.Errorf("%s: the terminal did not show %q:\n%q", what, s, screen)
		}
	}
	for _, raw := range hostileRaw {
		if bytes.Contains(screen, []byte(raw)) {
			t.Errorf("%s: the terminal got %q raw:\n%q", what, raw, screen)
		}
	}
}

// cairnOnPty runs cairn with args in dir with a pseudo-terminal as its
// stdin, stdout and stderr, and returns all it wrote there (each newline as
// the terminal sends it on, \r\n) and its exit code.
func cairnOnPty(t *testing.T, dir string, args ...string) ([]byte, int) {
	t.Helper()
	master, tty := ptytest.Open(t)
	cmd := exec.Command("cairn", args...)
	cmd.Dir, cmd.Env = dir, append(environ(t, dir), "TERM=xterm", "COLUMNS=300")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	// Read all along, so that cairn never blocks on a full terminal; the
	// read ends (EIO) once no process holds the terminal.
	screen := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(master)
		screen <- b
	}()
	err := cmd.Wait()
	select {
	case b := <-screen:
		return b, exitOfErr(t, err)
	case <-testwait.After():
		t.Fatalf("cairn %q ended, and its terminal stayed open %s", args, testwait.Patience)
	}
	return nil, 0
}
