package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/ptytest"
	"github.com/cairn-dev/cairn/internal/testwait"
)

// TestRunCtrlC types Ctrl-C at the terminal cairn runs in, a real pty (the
// kernel sends SIGINT to the terminal's foreground process group): once
// ends the run interrupted; a second while a step that ignores SIGTERM has
// its grace ends it at once, interrupted as well. Either way cairn exits
// 130, the step's log line says outcome=interrupted, and nothing the step
// started is left.
func TestRunCtrlC(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		// termed is the file whose making says the step got SIGTERM;
		// a second Ctrl-C follows it. "" types one.
		termed string
		sleep  string
	}{
		{
			name:    "once",
			command: `touch "$HOME/started"; sleep 3051 & wait`,
			sleep:   "3051",
		},
		{
			name: "twice",
			command: `trap 'touch "$HOME/termed"' TERM
(trap '' TERM; exec sleep 3052) &
touch "$HOME/started"
while :; do wait || :; done`,
			termed: "termed",
			sleep:  "3052",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"slow.toml":  "version = 1\n\n[[steps]]\nname = \"slow\"\ncommand = '''\n" + tc.command + "\n'''\n",
				".gitignore": "/home/\n",
			})
			gitRepo(t, dir)
			master, tty := ptytest.Open(t)
			cmd := exec.Command("cairn", "run", "slow.toml")
			cmd.Dir, cmd.Env = dir, append(environ(t, dir), "TERM=xterm")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
			// cairn leads a session whose controlling terminal is the
			// pty: its process group is the terminal's foreground one.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close()
			// The terminal is read all along, so that cairn never
			// blocks writing to it.
			screen := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(master)
				screen <- b
			}()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				_ = cmd.Process.Kill()
				master.Close()
			}()

			waitForFile(t, filepath.Join(dir, "started"), exited)
			typeCtrlC(t, master)
			if tc.termed != "" {
				waitForFile(t, filepath.Join(dir, tc.termed), exited)
				typeCtrlC(t, master)
			}
			var err error
			select {
			case err = <-exited:
			case <-testwait.After():
				t.Fatalf("cairn did not end within %s of Ctrl-C", testwait.Patience)
			}
			master.Close()
			shown := <-screen
			if code := exitOfErr(t, err); code != exitInterrupted {
				t.Fatalf("cairn exited %d; want %d\n%s", code, exitInterrupted, shown)
			}
			stdout, stderr, code := cairnIn(t, dir, "show")
			if code != 0 {
				t.Fatalf("cairn show exited %d\n%s", code, stderr)
			}
			for _, want := range []string{`(?m)^status +interrupted$`, `step=slow .* outcome=interrupted`} {
				if !regexp.MustCompile(want).Match(stdout) {
					t.Errorf("cairn show lacks %s:\n%s", want, stdout)
				}
			}
			if !testwait.Until(func() bool { return len(processesRunning([]string{"sleep", tc.sleep})) == 0 }) {
				t.Fatalf("sleep %s outlived the interrupted run", tc.sleep)
			}
		})
	}
}

// TestColorOnTerminal: a terminal gets colour unless NO_COLOR is set or
// TERM is dumb; terminal, which also decides whether JSON is indented, says
// yes for a pseudo-terminal and no for /dev/null, a character device too.
func TestColorOnTerminal(t *testing.T) {
	_, tty := ptytest.Open(t)
	for _, tc := range []struct {
		name, noColor, term string
		want                bool
	}{
		{"a terminal", "", "xterm", true},
		{"NO_COLOR", "1", "xterm", false},
		{"a dumb terminal", "", "dumb", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := []string{"NO_COLOR=" + tc.noColor, "TERM=" + tc.term}
			if got := colorOn(env, tty); got != tc.want {
				t.Errorf("colorOn = %v; want %v", got, tc.want)
			}
		})
	}
	if !terminal(tty) {
		t.Error("a pseudo-terminal is not taken for a terminal")
	}
	dev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer dev.Close()
	if terminal(dev) {
		t.Errorf("%s is taken for a terminal", os.DevNull)
	}
}

// typeCtrlC types Ctrl-C at the terminal whose master is master.
func typeCtrlC(t *testing.T, master *os.File) {
	t.Helper()
	if _, err := master.Write([]byte{0x03}); err != nil {
		t.Fatal(err)
	}
}

// waitForFile waits until path exists, failing the test when cairn exits
// first or after testwait.Patience.
func waitForFile(t *testing.T, path string, exited <-chan error) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := testwait.After()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("cairn exited (%v) before %s was made", err, filepath.Base(path))
		case <-deadline:
			t.Fatalf("%s was not made within %s", filepath.Base(path), testwait.Patience)
		case <-tick.C:
		}
	}
}
