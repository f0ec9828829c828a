package step

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// ShellsDir is the folder of a run folder that keeps the stdout and stderr
// of every precheck and validate shell its steps ran.
const ShellsDir = "shells"

// The end of a failed shell's output that its step's record keeps and the
// progress and `cairn show` show under the failure.
const (
	tailLines   = 10
	maxTailLine = 200
)

// PhaseShell is one shell of a step's precheck or validate phase: the
// Shell-th of the phase's shells, in Round.
type PhaseShell struct {
	Phase  ir.PhaseKind
	Shell  int
	Round  int
	Script string
}

// RecordShell runs a precheck or validate shell as runShell does, keeping
// its stdout and stderr in files of the run folder,
// shells/STEP.PHASE.N.stdout and .stderr (STEP[K] for item K of a step with
// for_each), owner-only, N the first number
// free for both (so that a review round or a resumed step adds files and
// never overwrites the earlier ones). It returns how the shell ended, with
// its stdout and stderr together in run.Output, and its record, its status
// pass or fail (a precheck's caller makes it skip). The error is set when
// its output could not be kept: the shell ran, or did not when the files
// could not be created, and the record of the step is incomplete.
func RecordShell(ctx context.Context, sc *Context, ps PhaseShell) (ShellRun, record.ShellRecord, error) {
	rec := record.ShellRecord{Phase: ps.Phase, Shell: ps.Shell, Round: ps.Round, Status: record.ShellFail, ExitCode: -1}
	what := fmt.Sprintf("%s shell %d", ps.Phase, ps.Shell)
	name := sc.Step.Name
	if sc.Item != nil {
		// An item of a step with for_each keeps its own: STEP[N].PHASE.N.
		name = record.ItemName(name, sc.ItemIndex)
	}
	stdout, stderr, err := createStreams(sc.RunDir, fmt.Sprintf("%s.%s", name, ps.Phase))
	if err != nil {
		rec.Cause = fmt.Sprintf("record the output of %s: %v", what, err)
		return ShellRun{Proc: proc.Result{ExitCode: -1}, Cause: rec.Cause}, rec, errors.New(rec.Cause)
	}
	rec.Stdout, _ = filepath.Rel(sc.RunDir, stdout.f.Name())
	rec.Stderr, _ = filepath.Rel(sc.RunDir, stderr.f.Name())
	var both lockedBuffer
	stdout.both, stderr.both = &both, &both
	run := runShellTo(ctx, sc, string(ps.Phase), ps.Script, stdout, stderr)
	run.Output = both.Bytes()
	rec.ExitCode, rec.Cause, rec.Lines = run.Proc.ExitCode, run.Cause, stdout.lines()+stderr.lines()
	if run.OK() {
		rec.Status = record.ShellPass
	} else {
		rec.Tail = outputTail(run.Output)
	}
	if err := errors.Join(stdout.close(), stderr.close()); err != nil {
		return run, rec, fmt.Errorf("record the output of %s: %w", what, err)
	}
	return run, rec, nil
}

// createStreams creates the pair of files NAME.N.stdout and NAME.N.stderr
// in the run folder's shells/, with the first N for which neither exists.
func createStreams(runDir, name string) (*streamFile, *streamFile, error) {
	dir := filepath.Join(runDir, ShellsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	for n := 1; n <= 10000; n++ {
		base := filepath.Join(dir, fmt.Sprintf("%s.%d", name, n))
		out, err := os.OpenFile(base+".stdout", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		errf, err := os.OpenFile(base+".stderr", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			out.Close()
			os.Remove(out.Name())
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			return nil, nil, err
		}
		return &streamFile{f: out}, &streamFile{f: errf}, nil
	}
	return nil, nil, fmt.Errorf("%s holds too many files of %s", dir, name)
}

// streamFile is where one stream of a recorded shell goes: its file, and
// both, the stdout and stderr together. A write to the file that fails is
// kept as err rather than returned: the shell must run on and end as it
// would have, its exit status its own. newlines and open count the lines
// written: whole ones, and whether a last one lacks its newline.
type streamFile struct {
	f        *os.File
	both     *lockedBuffer
	err      error
	newlines int
	open     bool
}

func (s *streamFile) Write(b []byte) (int, error) {
	if s.err == nil {
		_, s.err = s.f.Write(b)
	}
	s.both.Write(b)
	if len(b) > 0 {
		s.newlines += bytes.Count(b, []byte{'\n'})
		s.open = b[len(b)-1] != '\n'
	}
	return len(b), nil
}

// lines counts the lines written, a last one without a newline too.
func (s *streamFile) lines() int {
	if s.open {
		return s.newlines + 1
	}
	return s.newlines
}

// close closes the file; the error is the first write or the close that
// failed.
func (s *streamFile) close() error {
	err := s.f.Close()
	if s.err != nil {
		return s.err
	}
	return err
}

// lockedBuffer is a buffer the copiers of a shell's stdout and stderr
// write to at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Bytes is what was written.
func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Bytes()
}

// outputTail is the last tailLines lines of out, each made safe to print
// on a terminal (see printable) and cut to maxTailLine characters, joined
// by newlines; "" when out is empty.
func outputTail(out []byte) string {
	s := strings.TrimSuffix(string(out), "\n")
	if s == "" {
		return ""
	}
	// Past the tailLines-th newline from the end, when there are as many.
	start := len(s)
	for range tailLines {
		if start = strings.LastIndexByte(s[:start], '\n'); start < 0 {
			break
		}
	}
	lines := strings.Split(s[start+1:], "\n")
	for i, line := range lines {
		lines[i] = clip(printable(line), maxTailLine)
	}
	return strings.Join(lines, "\n")
}

// printable is what a terminal would show of line, safe to print in a
// progress line: the text after its last carriage return, ANSI escape
// sequences and other control characters removed, tabs as four spaces,
// invalid UTF-8 as U+FFFD.
func printable(line string) string {
	line = strings.TrimSuffix(line, "\r")
	if i := strings.LastIndexByte(line, '\r'); i >= 0 {
		line = line[i+1:]
	}
	line = strings.ToValidUTF8(line, "\uFFFD")
	var b strings.Builder
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		i += size
		switch {
		case r == '\t':
			b.WriteString("    ")
		case r == 0x1b:
			i += escapeLen(line[i:])
		case unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeLen is how many bytes of s, which follows an ESC, belong to its
// escape sequence: a CSI sequence (colours, cursor moves) up to its final
// byte, an OSC sequence (a window title, a link) up to BEL or ESC \, else
// one character.
func escapeLen(s string) int {
	switch {
	case s == "":
		return 0
	case s[0] == '[':
		for i := 1; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case s[0] == ']':
		for i := 1; i < len(s); i++ {
			switch {
			case s[i] == 0x07:
				return i + 1
			case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
				return i + 2
			}
		}
		return len(s)
	}
	_, size := utf8.DecodeRuneInString(s)
	return size
}

// clip cuts s to n characters, its last an ellipsis when it was cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
