//go:build unix

package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	outside := filepath.Join(work, "outside.toml")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(repo, "processes"), 0o755))
	must(os.WriteFile(outside, []byte("outside"), 0o644))
	realOutside, err := filepath.EvalSymlinks(outside)
	must(err)
	must(os.WriteFile(filepath.Join(repo, "ok.toml"), []byte("ok"), 0o644))
	must(os.Symlink("../ok.toml", filepath.Join(repo, "processes", "inside.toml")))
	must(os.Symlink("../../outside.toml", filepath.Join(repo, "processes", "escape.toml")))
	must(os.Symlink("/proc/self/environ", filepath.Join(repo, "environ.toml")))
	must(os.Symlink("/dev/zero", filepath.Join(repo, "zero.toml")))
	must(os.Symlink("nowhere.toml", filepath.Join(repo, "dangling.toml")))
	must(syscall.Mkfifo(filepath.Join(repo, "fifo.toml"), 0o644))
	must(os.Symlink("fifo.toml", filepath.Join(repo, "to-fifo.toml")))
	must(os.Mkdir(filepath.Join(repo, "dir.toml"), 0o755))
	// A folder of the repository that leads out of it.
	must(os.Mkdir(filepath.Join(work, "shared"), 0o755))
	must(os.WriteFile(filepath.Join(work, "shared", "s.toml"), []byte("shared"), 0o644))
	must(os.Symlink("../shared", filepath.Join(repo, "shared")))
	big := filepath.Join(repo, "big.toml")
	f, err := os.Create(big)
	must(err)
	must(f.Truncate(MaxFileSize + 1))
	must(f.Close())
	exact := filepath.Join(repo, "exact.toml")
	must(os.WriteFile(exact, make([]byte, MaxFileSize), 0o644))
	// Outside the repository, a symlink leads where it likes.
	must(os.Symlink("repo/ok.toml", filepath.Join(work, "link.toml")))

	var shared Reader
	for _, tc := range []struct {
		file, repo string
		want       string // the content, or "error: " and what the error says
	}{
		{"ok.toml", repo, "ok"},
		{"processes/inside.toml", repo, "ok"},
		{"processes/escape.toml", repo, `error: it resolves to "` + realOutside + `", outside the repository`},
		{"processes/escape.toml", "", "outside"},
		{"shared/s.toml", repo, "error: outside the repository"},
		{"environ.toml", repo, `error: it resolves to "/proc/`},
		{"environ.toml", "", "error: under /proc; cairn reads no file under /proc, /sys or /dev"},
		{"zero.toml", "", `error: it resolves to "/dev/zero", under /dev`},
		{"fifo.toml", repo, "error: it is a named pipe, not a regular file"},
		{"to-fifo.toml", repo, "error: it is a named pipe, not a regular file"},
		{"dir.toml", repo, "error: it is a folder, not a regular file"},
		{"dangling.toml", repo, "error: no such file or directory"},
		{"missing.toml", repo, "error: no such file or directory"},
		{"big.toml", repo, "error: it is larger than 16 MiB, the most cairn reads of a file"},
		{"../link.toml", repo, "ok"},
		{"shared/../ok.toml", repo, "ok"},
		{"processes/../shared/s.toml", repo, "error: outside the repository"},
		{"ok.toml/", repo, "error: not a directory"},
		{"ok.toml/x.toml", repo, "error: not a directory"},
		{"nofolder/x.toml", repo, "error: no such file or directory"},
		{"processes/inside.toml", "", "ok"},
	} {
		file := repo + string(filepath.Separator) + tc.file // as named, not cleaned
		// ReadFile, then a Reader that has resolved the folders of every
		// file before, answer alike.
		for _, read := range []func(string, string) ([]byte, error){ReadFile, shared.ReadFile, shared.ReadFile} {
			got, err := read(file, tc.repo)
			if want, ok := strings.CutPrefix(tc.want, "error: "); ok {
				var perr *fs.PathError
				if !errors.As(err, &perr) || perr.Path != file || !strings.Contains(perr.Err.Error(), want) {
					t.Errorf("ReadFile(%q, %q) = %q, %v; want an error naming the file that says %q", tc.file, tc.repo, got, err, want)
				}
				continue
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("ReadFile(%q, %q) = %q, %v; want %q", tc.file, tc.repo, got, err, tc.want)
			}
		}
	}
	// Named relative to the working folder, as the command line names them.
	t.Chdir(repo)
	for range 2 {
		if got, err := shared.ReadFile("processes/inside.toml", repo); err != nil || string(got) != "ok" {
			t.Errorf("ReadFile(%q) from the repository = %q, %v; want %q", "processes/inside.toml", got, err, "ok")
		}
		if got, err := shared.ReadFile("processes/escape.toml", repo); err == nil || !strings.Contains(err.Error(), "outside the repository") {
			t.Errorf("ReadFile(%q) from the repository = %q, %v; want it refused", "processes/escape.toml", got, err)
		}
	}
	if got, err := ReadFile(exact, repo); err != nil || len(got) != MaxFileSize {
		t.Errorf("a file of MaxFileSize bytes: %d bytes, %v", len(got), err)
	}
	if _, err := ReadFile(filepath.Join(repo, "missing.toml"), repo); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v; want fs.ErrNotExist", err)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"version = 1\n", "version = 1\n"},
		{"\xef\xbb\xbfversion = 1\n", "version = 1\n"},
		{"a\r\nb\r\n", "a\nb\n"},
		{"0\r\r\n", "0\n"},
		{"\xef\xbb\xbfa\r\nb", "a\nb"},
		// A lone CR is not a line ending: the front-end refuses it where
		// the format does.
		{"a\rb\n", "a\rb\n"},
		// Only a leading mark is one.
		{"a\xef\xbb\xbf", "a\xef\xbb\xbf"},
	} {
		if got := string(Text([]byte(tc.in))); got != tc.want {
			t.Errorf("Text(%q) = %q; want %q", tc.in, got, tc.want)
		}
		if again := string(Text(Text([]byte(tc.in)))); again != tc.want {
			t.Errorf("Text(Text(%q)) = %q; want %q, as once", tc.in, again, tc.want)
		}
	}
}

// TestReadFileInside holds that only a file inside the repository is read,
// as named and through its links: ../, an absolute path out of it, a link
// or a linked folder that leads out, are refused; a link inside it is
// followed.
func TestReadFileInside(t *testing.T) {
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(repo, "fixtures"), 0o755))
	must(os.WriteFile(filepath.Join(repo, "fixtures", "ok.md"), []byte("ok\r\n"), 0o644))
	must(os.WriteFile(filepath.Join(work, "secret.md"), []byte("secret"), 0o644))
	must(os.Symlink("fixtures/ok.md", filepath.Join(repo, "inside.md")))
	must(os.Symlink("/etc/passwd", filepath.Join(repo, "passwd.md")))
	must(os.Symlink("..", filepath.Join(repo, "up")))
	must(syscall.Mkfifo(filepath.Join(repo, "fifo.md"), 0o644))
	realWork, err := filepath.EvalSymlinks(work)
	must(err)

	for _, tc := range []struct {
		file string
		want string // the content, or "error: " and what the error says
	}{
		{"fixtures/ok.md", "ok\n"},
		{"inside.md", "ok\n"},
		{"fixtures/../inside.md", "ok\n"},
		{"../secret.md", "error: it lies outside the repository"},
		{"/etc/passwd", "error: it lies outside the repository"},
		{"passwd.md", `error: it resolves to "/etc/passwd", outside the repository`},
		{"up/secret.md", `error: it resolves to "` + filepath.Join(realWork, "secret.md") + `", outside the repository`},
		{"fifo.md", "error: it is a named pipe, not a regular file"},
		{"missing.md", "error: no such file or directory"},
	} {
		file := tc.file
		if !filepath.IsAbs(file) {
			file = filepath.Join(repo, file)
		}
		got, err := ReadFileInside(file, repo)
		if want, ok := strings.CutPrefix(tc.want, "error: "); ok {
			var perr *fs.PathError
			if !errors.As(err, &perr) || perr.Path != file || !strings.Contains(perr.Err.Error(), want) {
				t.Errorf("ReadFileInside(%q) = %q, %v; want an error naming the file that says %q", tc.file, got, err, want)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("ReadFileInside(%q) = %q, %v; want %q", tc.file, got, err, tc.want)
		}
	}
}
