//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

func init() {
	scriptCmds["mkfifo"] = makeFIFO
	scriptCmds["sparse"] = makeSparse
}

// makeFIFO is the script command "mkfifo PATH": it makes a named pipe at
// PATH, which nothing ever writes to.
func makeFIFO(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(unix.Mkfifo(ts.MkAbs(args[0]), 0o644))
}

// makeSparse is the script command "sparse PATH BYTES": it makes a file of
// BYTES zero bytes at PATH without writing them, so that a script can offer
// a file larger than cairn reads.
func makeSparse(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sparse PATH BYTES")
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(f.Truncate(n))
	ts.Check(f.Close())
}

// outputProcess is the process the -o tests compile and write stubs for.
const outputProcess = "version = 1\n\n[[steps]]\nname = \"ask\"\nprompt = \"Say hello.\"\n"

// TestOutputPaths holds that -o writes where the name points and leaves
// what it names as it was: a character device stays one (a /dev/null made
// with mknod, /dev/stdout), a symbolic link stays a link and its target,
// inside the repository or out of it, is written, a file that exists
// keeps its mode, ../ is written where it leads, and a folder is refused
// with an error saying so. It runs compile and stubs, the commands with an
// -o.
func TestOutputPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	outside := filepath.Join(dir, "outside")
	writeFiles(t, repo, map[string]string{"p.toml": outputProcess, "sub/keep.txt": "mine\n"})
	writeFiles(t, outside, map[string]string{"there.txt": "old\n"})
	gitRepo(t, repo)

	for _, cmd := range []struct {
		name string
		mode os.FileMode
	}{{"compile", 0o755}, {"stubs", 0o644}} {
		t.Run(cmd.name, func(t *testing.T) {
			want, stderr, code := cairnIn(t, repo, cmd.name, "p.toml")
			if code != 0 || len(want) == 0 {
				t.Fatalf("cairn %s to stdout: exit %d\n%s", cmd.name, code, stderr)
			}
			write := func(out string) {
				t.Helper()
				if _, stderr, code := cairnIn(t, repo, cmd.name, "p.toml", "-o", out); code != 0 {
					t.Fatalf("cairn %s -o %s: exit %d\n%s", cmd.name, out, code, stderr)
				}
			}
			same := func(path string, mode os.FileMode) {
				t.Helper()
				fi, err := os.Lstat(path)
				if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != mode {
					t.Fatalf("%s: %v, %v; want a regular file of mode %v", path, fi.Mode(), err, mode)
				}
				if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
					t.Errorf("%s holds %q; want what cairn %s prints", path, got, cmd.name)
				}
			}
			link := func(name, target string) {
				t.Helper()
				fi, err := os.Lstat(filepath.Join(repo, name))
				if err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Fatalf("%s: %v, %v; want it still a symbolic link", name, fi.Mode(), err)
				}
				if got, _ := os.Readlink(filepath.Join(repo, name)); got != target {
					t.Errorf("%s links to %q; want %q", name, got, target)
				}
			}

			// A link to a file of the repository: the file is
			// written and keeps its mode.
			writeFiles(t, repo, map[string]string{cmd.name + ".real": "old\n"})
			real := filepath.Join(repo, cmd.name+".real")
			if err := os.Chmod(real, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(cmd.name+".real", filepath.Join(repo, cmd.name+".link")); err != nil {
				t.Fatal(err)
			}
			write(cmd.name + ".link")
			link(cmd.name+".link", cmd.name+".real")
			same(real, 0o600)

			// A link out of the repository, to a file that exists
			// and to one that does not yet.
			there := filepath.Join(outside, "there.txt")
			if err := os.Symlink(there, filepath.Join(repo, cmd.name+".out")); err != nil {
				t.Fatal(err)
			}
			write(cmd.name + ".out")
			link(cmd.name+".out", there)
			same(there, 0o644)
			if err := os.Symlink("../outside/"+cmd.name+".new", filepath.Join(repo, cmd.name+".dangling")); err != nil {
				t.Fatal(err)
			}
			write(cmd.name + ".dangling")
			link(cmd.name+".dangling", "../outside/"+cmd.name+".new")
			same(filepath.Join(outside, cmd.name+".new"), cmd.mode)

			// ../ is where it leads.
			write("../" + cmd.name + ".up")
			same(filepath.Join(dir, cmd.name+".up"), cmd.mode)

			// A folder is refused, and left as it was.
			_, stderr, code = cairnIn(t, repo, cmd.name, "p.toml", "-o", "sub")
			if code != 1 || string(stderr) != "cairn: error: write sub: it is a folder; name a file\n" {
				t.Errorf("cairn %s -o sub: exit %d, stderr %q; want 1 and a folder refused", cmd.name, code, stderr)
			}
			if entries, _ := os.ReadDir(filepath.Join(repo, "sub")); len(entries) != 1 {
				t.Errorf("sub holds %d entries; want keep.txt alone", len(entries))
			}

			// /dev/stdout, a pipe here, is written through.
			stdout, stderr, code := cairnIn(t, repo, cmd.name, "p.toml", "-o", "/dev/stdout")
			if code != 0 || !bytes.Equal(stdout, want) {
				t.Errorf("cairn %s -o /dev/stdout: exit %d, stdout %q\n%s", cmd.name, code, stdout, stderr)
			}
		})
	}
}

// TestOutputDevice holds that -o into a character device writes into it
// and leaves it a device: a null device (as /dev/null, made with mknod in
// a folder of the test's, so that a wrong cairn cannot break the machine's)
// takes the output, a full one (as /dev/full) fails with the device's
// error, and both are devices after.
func TestOutputDevice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p.toml": outputProcess})
	gitRepo(t, dir)
	for _, dev := range []struct {
		name  string
		minor int
		code  int
		err   string
	}{{"null", 3, 0, ""}, {"full", 7, 1, "cairn: error: write full: no space left on device\n"}} {
		path := filepath.Join(dir, dev.name)
		number := unix.Mkdev(1, uint32(dev.minor))
		if err := unix.Mknod(path, unix.S_IFCHR|0o666, int(number)); err != nil {
			t.Skipf("mknod %s: %v (making a device needs root)", path, err)
		}
		for _, cmd := range []string{"compile", "stubs"} {
			_, stderr, code := cairnIn(t, dir, cmd, "p.toml", "-o", dev.name)
			if code != dev.code || string(stderr) != dev.err {
				t.Errorf("cairn %s -o %s: exit %d, stderr %q; want %d, %q", cmd, dev.name, code, stderr, dev.code, dev.err)
			}
			var st unix.Stat_t
			if err := unix.Lstat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR || uint64(st.Rdev) != number {
				t.Fatalf("after cairn %s -o %s: mode %o, device %x, %v; want the character device 1,%d", cmd, dev.name, st.Mode, st.Rdev, err, dev.minor)
			}
		}
	}
}

// TestOutputFIFO holds that -o into a named pipe writes into it, for the
// reader at its other end, and leaves it a pipe.
func TestOutputFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p.toml": outputProcess})
	gitRepo(t, dir)
	fifo := filepath.Join(dir, "pipe")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"compile", "stubs"} {
		want, stderr, code := cairnIn(t, dir, cmd, "p.toml")
		if code != 0 {
			t.Fatalf("cairn %s: exit %d\n%s", cmd, code, stderr)
		}
		// The test holds the pipe open for writing until cairn is done,
		// so that opening its reader waits for nobody and the reader
		// reads to the end of what cairn wrote, or of nothing.
		hold, err := os.OpenFile(fifo, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		r, err := os.Open(fifo)
		if err != nil {
			t.Fatal(err)
		}
		read := make(chan []byte)
		go func() {
			b, err := io.ReadAll(r)
			if err != nil {
				t.Error(err)
			}
			r.Close()
			read <- b
		}()
		_, stderr, code = cairnIn(t, dir, cmd, "p.toml", "-o", "pipe")
		hold.Close()
		if code != 0 {
			t.Errorf("cairn %s -o pipe: exit %d\n%s", cmd, code, stderr)
		}
		if got := <-read; !bytes.Equal(got, want) {
			t.Errorf("the pipe's reader read %q; want what cairn %s prints", got, cmd)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("after cairn %s -o pipe: %v, %v; want a named pipe", cmd, fi.Mode(), err)
		}
	}
}
