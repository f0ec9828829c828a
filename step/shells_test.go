package step

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

func TestOutputTail(t *testing.T) {
	t.Parallel()
	var twelve strings.Builder
	for i := 1; i <= 12; i++ {
		twelve.WriteString("line " + string(rune('a'-1+i)) + "\n")
	}
	for _, tc := range []struct {
		name, out, want string
	}{
		{"empty", "", ""},
		{"one line", "boom\n", "boom"},
		{"no last newline", "a\nb", "a\nb"},
		{"blank lines kept", "a\n\nb\n", "a\n\nb"},
		{"last ten", twelve.String(), "line c\nline d\nline e\nline f\nline g\nline h\nline i\nline j\nline k\nline l"},
		{"exactly ten", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10"},
		{"colour and tabs", "\x1b[31mFAIL\x1b[0m\tTestX\n", "FAIL    TestX"},
		{"progress bar", "10%\r50%\r100%\r\n", "100%"},
		{"controls", "a\x00b\x07c\x1b]0;title\x07d\x1b]8;;u\x1b\\e\n", "abcde"},
		{"invalid utf-8", "a\xffb\n", "a\uFFFDb"},
		{"long line", strings.Repeat("x", 300), strings.Repeat("x", maxTailLine-1) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := outputTail([]byte(tc.out)); got != tc.want {
				t.Errorf("outputTail(%q) = %q; want %q", tc.out, got, tc.want)
			}
		})
	}
}

// readShellFile is the content of a recorded shell's stream file, failing
// the test when its mode is not 0600.
func readShellFile(t *testing.T, dir, rel string) string {
	t.Helper()
	path := filepath.Join(dir, rel)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v; want 0600", rel, info.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRecordShell(t *testing.T) {
	t.Parallel()
	sc := commandContext(t, "check", "")
	run, rec, err := RecordShell(context.Background(), sc, PhaseShell{
		Phase: ir.ValidatePhase, Shell: 2, Round: 1,
		Script: `echo out; echo err >&2; printf "no newline" >&2; exit 4`,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := record.ShellRecord{
		Phase: ir.ValidatePhase, Shell: 2, Round: 1, Status: record.ShellFail, ExitCode: 4, Cause: "exit status 4",
		Stdout: "shells/check.validate.1.stdout", Stderr: "shells/check.validate.1.stderr", Lines: 3,
	}
	got := rec
	got.Tail = ""
	if got != want {
		t.Errorf("record %+v; want %+v", got, want)
	}
	for _, line := range []string{"out", "err", "no newline"} {
		if !strings.Contains(rec.Tail, line) {
			t.Errorf("tail %q lacks %q", rec.Tail, line)
		}
	}
	if run.OK() || run.Proc.ExitCode != 4 || len(run.Output) != len("out\nerr\nno newline") {
		t.Errorf("run %+v, output %q", run, run.Output)
	}
	if got := readShellFile(t, sc.RunDir, rec.Stdout); got != "out\n" {
		t.Errorf("stdout %q", got)
	}
	if got := readShellFile(t, sc.RunDir, rec.Stderr); got != "err\nno newline" {
		t.Errorf("stderr %q", got)
	}
	if info, err := os.Stat(filepath.Join(sc.RunDir, ShellsDir)); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("shells folder: %v, %v; want mode 0700", info.Mode(), err)
	}

	// The next shell of the phase, and one of a resumed step, take new
	// files; a pair left half is passed over.
	if err := os.WriteFile(filepath.Join(sc.RunDir, ShellsDir, "check.validate.2.stderr"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, rec, err = RecordShell(context.Background(), sc, PhaseShell{Phase: ir.ValidatePhase, Shell: 1, Round: 2, Script: "echo again"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stdout != "shells/check.validate.3.stdout" || rec.Stderr != "shells/check.validate.3.stderr" || rec.Status != record.ShellPass || rec.Tail != "" || rec.Cause != "" {
		t.Errorf("second record %+v; want a passing shell in check.validate.3.*", rec)
	}
	if _, err := os.Stat(filepath.Join(sc.RunDir, ShellsDir, "check.validate.2.stdout")); !os.IsNotExist(err) {
		t.Errorf("half of the taken pair 2 was left: %v", err)
	}
	if got := readShellFile(t, sc.RunDir, "shells/check.validate.1.stdout"); got != "out\n" {
		t.Errorf("the first shell's stdout became %q", got)
	}
}

func TestRecordShellNoFolder(t *testing.T) {
	t.Parallel()
	sc := commandContext(t, "check", "")
	// A file where the shells' folder goes: its files cannot be made.
	if err := os.WriteFile(filepath.Join(sc.RunDir, ShellsDir), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(t.TempDir(), "ran")
	run, rec, err := RecordShell(context.Background(), sc, PhaseShell{Phase: ir.PrecheckPhase, Shell: 1, Round: 1, Script: "touch " + ran})
	if err == nil || !strings.HasPrefix(err.Error(), "record the output of precheck shell 1: ") {
		t.Fatalf("error %v; want one naming the shell", err)
	}
	if run.OK() || rec.Status != record.ShellFail {
		t.Errorf("run %+v, record %+v; want a failure", run, rec)
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Errorf("the shell ran though its output could not be kept")
	}
}
