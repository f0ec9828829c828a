// Package source is the text of process files and configs as every
// front-end reads it: read whole and safely, without a byte order mark,
// CRLF read as LF; and the places in it positions are counted from, where
// its lines start and where each stretch of a decoded string came from.
package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// MaxFileSize is the most bytes ReadFile reads: over three times the
// 10,000-step process of the memory bar (docs/design.md §12), and far more than a
// process file or a config needs.
const MaxFileSize = 16 << 20

// maxFileSizeText is MaxFileSize as errors word it.
const maxFileSizeText = "16 MiB"

// systemDirs are the folders of kernel and device files, which can stat as
// regular files yet hold the environment, endless bytes or a terminal.
var systemDirs = []string{"/proc", "/sys", "/dev"}

// bom is the UTF-8 byte order mark some editors write at a file's start.
var bom = []byte("\xef\xbb\xbf")

// Text is src as every front-end reads it: without a leading UTF-8 byte
// order mark, and with CRLF line endings read as LF. A script's line ends at
// its newline, as bash reads it: a CR left at its end would be part of its
// last word (`true\r: command not found`). Line and column numbers are
// those of the file either way. src is returned as is when it has neither.
//
// Every CR just before a newline goes, so that reading text twice gives
// the same bytes (one pass over "\r\r\n" would leave a CRLF).
func Text(src []byte) []byte {
	src = bytes.TrimPrefix(src, bom)
	if !bytes.Contains(src, []byte("\r\n")) {
		return src
	}
	out := make([]byte, 0, len(src))
	for i, c := range src {
		if c == '\r' {
			j := i
			for j < len(src) && src[j] == '\r' {
				j++
			}
			if j < len(src) && src[j] == '\n' {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// ReadFile reads a process file, or the config, whole, as Text. It reads only a
// regular file of at most MaxFileSize bytes, none under /proc, /sys or /dev
// once its symlinks are resolved, and never waits on a named pipe. When repo
// is the root of a repository's working tree, a file named inside it must
// resolve inside it too: a committed symlink cannot make cairn read a file
// elsewhere. Its errors are *fs.PathError naming file, whose Err says why.
func ReadFile(file, repo string) ([]byte, error) {
	return new(Reader).ReadFile(file, repo)
}

// Reader reads files as ReadFile does, resolving the folder a file is
// named in, whether that folder lies in the repository, and the
// repository's root, once for all the files it reads: an invocation reads
// many files of few folders (bench/check.sh's short corpus, 200 files of
// one folder, took 13 stat calls a file). A Reader lives for one
// invocation: a folder moved or linked elsewhere meanwhile is not seen,
// as ReadFile alone does not see one moved between its checks and its
// open. Its zero value is ready; it is safe for concurrent use.
type Reader struct {
	mu      sync.Mutex
	folders map[[2]string]folder
	roots   map[string]string
}

// folder is what a Reader resolved of a folder files are named in, for a
// repository: its path, symlinks resolved and absolute, and whether it is
// named inside the repository.
type folder struct {
	real   string
	inside bool
}

// ReadFile reads file as the package's ReadFile does.
func (r *Reader) ReadFile(file, repo string) ([]byte, error) {
	e := readError(file)
	refuse, fail := e.refuse, e.fail
	real, inside, err := r.resolve(file, repo)
	if err != nil {
		return nil, fail(err)
	}
	for _, dir := range systemDirs {
		if within(dir, real) {
			return nil, refuse("it resolves to %q, under %s; cairn reads no file under /proc, /sys or /dev", real, dir)
		}
	}
	if inside {
		root, err := r.root(repo)
		if err != nil {
			return nil, fail(err)
		}
		if !within(root, real) {
			return nil, refuse("it resolves to %q, outside the repository; a repository's process file must stay inside the repository", real)
		}
	}
	// Not following a last symlink, and not blocking, the file opened is the
	// one just resolved, or the open fails; the opened file's own mode then
	// decides, whatever took the name's place meanwhile.
	f, err := os.OpenFile(real, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, fail(err)
	}
	defer f.Close()
	b, err := readOpened(f, e)
	return Text(b), err
}

// resolve is file with its symlinks resolved, made absolute, and whether
// it is named inside repo (never when repo is ""). Its folder's answers
// are kept: a file named by its folder and a name (not "." or "..") that
// is no symlink resolves to its folder's resolved path and that name.
func (r *Reader) resolve(file, repo string) (real string, inside bool, err error) {
	dir, name := filepath.Split(file)
	if name == "" || name == "." || name == ".." {
		return resolveWhole(file, repo)
	}
	key := [2]string{dir, repo}
	r.mu.Lock()
	fo, ok := r.folders[key]
	r.mu.Unlock()
	if !ok {
		if fo.real, err = filepath.EvalSymlinks(filepath.Clean(dir + ".")); err != nil {
			return resolveWhole(file, repo)
		}
		if fo.real, err = filepath.Abs(fo.real); err != nil {
			return resolveWhole(file, repo)
		}
		fo.inside = repo != "" && namedInside(file, repo)
		r.mu.Lock()
		if r.folders == nil {
			r.folders = map[[2]string]folder{}
		}
		r.folders[key] = fo
		r.mu.Unlock()
	}
	real = filepath.Join(fo.real, name)
	fi, err := os.Lstat(real)
	if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
		return resolveWhole(file, repo)
	}
	return real, fo.inside, nil
}

// resolveWhole is resolve with nothing kept: every folder of file's path
// is resolved anew.
func resolveWhole(file, repo string) (real string, inside bool, err error) {
	if real, err = filepath.EvalSymlinks(file); err != nil {
		return "", false, err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", false, err
	}
	return real, repo != "" && namedInside(file, repo), nil
}

// root is repo's root with its symlinks resolved, kept once resolved.
func (r *Reader) root(repo string) (string, error) {
	r.mu.Lock()
	root, ok := r.roots[repo]
	r.mu.Unlock()
	if ok {
		return root, nil
	}
	root, err := filepath.EvalSymlinks(repo)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	if r.roots == nil {
		r.roots = map[string]string{}
	}
	r.roots[repo] = root
	r.mu.Unlock()
	return root, nil
}

// ErrOutside is why ReadFileInside refuses a file: it lies outside the
// repository, as named or through a symbolic link.
var ErrOutside = errors.New("outside the repository")

// ReadFileInside reads file as ReadFile does, when it lies inside repo, the
// root of a repository's working tree, both as named and once its symlinks
// are resolved: a file a repository's own file names (a stub's
// result_file) can show nothing of the machine outside it. The open itself
// resolves every folder and link inside repo (os.Root), so a link changed
// after the check cannot lead out either.
func ReadFileInside(file, repo string) ([]byte, error) {
	b, _, err := ReadRawInside(file, repo)
	return Text(b), err
}

// ReadRawInside reads file as ReadFileInside does, but its bytes as they
// are, not as Text, and returns the path it resolves to: what a rewrite of
// the file replaces, so that a symbolic link stays one.
func ReadRawInside(file, repo string) (raw []byte, real string, err error) {
	e := readError(file)
	refuse, fail := e.refuse, e.fail
	if !namedInside(file, repo) {
		return nil, "", refuse("it lies %w", ErrOutside)
	}
	root, err := filepath.EvalSymlinks(repo)
	if err != nil {
		return nil, "", fail(err)
	}
	real, err = filepath.EvalSymlinks(file)
	if err != nil {
		return nil, "", fail(err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, "", fail(err)
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, "", fail(err)
	}
	if !within(root, real) {
		return nil, "", refuse("it resolves to %q, %w", real, ErrOutside)
	}
	rel, err := filepath.Rel(root, real)
	if err != nil {
		return nil, "", fail(err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, "", fail(err)
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, "", fail(err)
	}
	defer f.Close()
	raw, err = readOpened(f, e)
	return raw, real, err
}

// readError makes the errors of reading the file it names: *fs.PathError
// naming it.
type readError string

// refuse is the error of a file cairn will not read, for the reason
// format says.
func (file readError) refuse(format string, args ...any) error {
	return &fs.PathError{Op: "read", Path: string(file), Err: fmt.Errorf(format, args...)}
}

// fail is err, from reading the file, as its error.
func (file readError) fail(err error) error {
	// The path of an error from a step on the way (lstat of a folder,
	// open of the resolved file) would not be the one the user named.
	var perr *fs.PathError
	if errors.As(err, &perr) {
		err = perr.Err
	}
	return &fs.PathError{Op: "read", Path: string(file), Err: err}
}

// readOpened reads the file f whole, its bytes as they are, when it is a
// regular file of at most MaxFileSize bytes; e makes its errors.
func readOpened(f *os.File, e readError) ([]byte, error) {
	refuse, fail := e.refuse, e.fail
	fi, err := f.Stat()
	if err != nil {
		return nil, fail(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, refuse("it is %s, not a regular file", kindOf(fi.Mode()))
	}
	if fi.Size() > MaxFileSize {
		return nil, refuse("it is larger than %s, the most cairn reads of a file", maxFileSizeText)
	}
	var b bytes.Buffer
	// One more byte than the cap tells a file that grew past it.
	b.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(f, MaxFileSize+1)); err != nil {
		return nil, fail(err)
	}
	if b.Len() > MaxFileSize {
		return nil, refuse("it is larger than %s, the most cairn reads of a file", maxFileSizeText)
	}
	return b.Bytes(), nil
}

// kindOf words the type of a file that is not a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// within reports whether path is dir or lies under it; both are absolute
// and clean.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// namedInside reports whether file, as named, lies in the working tree whose
// root is repo: whether a folder on its way (symlinks followed, as the name
// is spelt) is repo.
func namedInside(file, repo string) bool {
	root, err := os.Stat(repo)
	if err != nil {
		return false
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return false
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if fi, err := os.Stat(dir); err == nil && os.SameFile(fi, root) {
			return true
		}
		if dir == filepath.Dir(dir) {
			return false
		}
	}
}
