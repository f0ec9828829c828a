// Package scaffold writes a first process for `cairn init`: a command
// step and a session step, the stubs of a stubbed run of it, and a test
// case that runs it with them, each of which cairn check and cairn test
// take as they are.
package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/ir"
)

// File is one file of a first process: its name in the processes folder,
// and its text.
type File struct {
	Name, Text string
}

// Files are the three files of a first process called name, whose session
// runs on harness (none: the default harness, which needs no line).
func Files(name, harness string) []File {
	harnessLine := ""
	if harness != "" {
		harnessLine = fmt.Sprintf("harness = %q                # the agent CLI this machine has\n", harness)
	}
	process := fmt.Sprintf(`# A first process, written by cairn init: a command step collects the last ten commits,
# then an agent session, which may only read, sums them up. cairn check %[1]s shows its plan;
# cairn run %[1]s --stubs %[1]s.stubs.toml runs it with no agent; cairn run %[1]s runs it for real.
version = 1
description = "Sum up what the last ten commits changed"

[[steps]]
name = "log"
command = "git log -n 10 --stat --format='%%h %%an: %%s'"   # its output is the step's result

[[steps]]
name = "summary"
prompt = "The earlier result is the log of the last ten commits. Say in five lines or fewer what they changed and why. Edit nothing."
access = "read"                   # the agent reads and runs read-only commands; it edits nothing
model = "efficient"               # a tier: each harness has its own efficient model
%[2]s`, name, harnessLine)
	stubs := fmt.Sprintf(`# The stubs of a stubbed run of %[1]s: the session's answer, with no agent started and
# nothing spent (cairn run %[1]s --stubs %[1]s.stubs.toml; cairn stubs %[1]s writes a skeleton).
[stubs.summary]
result = "Three commits: the parser reads CRLF files now, and two tests cover it."
`, name)
	test := fmt.Sprintf(`# A test case of %[1]s: cairn test runs it with its stubs and checks how the run ended.
process = "%[1]s.toml"         # relative to this file
stubs = "%[1]s.stubs.toml"

[expect]
status = "succeeded"
output_contains = ["CRLF"]

[expect.steps]
log = "succeeded"
summary = "succeeded"
`, name)
	return []File{{name + ".toml", process}, {name + ".stubs.toml", stubs}, {name + ".test.toml", test}}
}

// ErrExists is why Write writes nothing: a file it would write is there.
var ErrExists = errors.New("already exists")

// Write writes files into dir, which it makes when missing, each created
// anew (never over a file, nor through a link, that is there); a file
// there already writes none of them (ErrExists). A name that is no
// process name is refused.
func Write(dir, name string, files []File) ([]string, error) {
	if !ir.ValidName(name) {
		return nil, fmt.Errorf("%q is not a process name: a name is lower-case letters, digits and '-', starting with a letter or digit, at most %d long", name, ir.MaxNameLength)
	}
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("%s %w: cairn init writes no file over another", p, ErrExists)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if err := create(p, f.Text); err != nil {
			for _, w := range written {
				os.Remove(w)
			}
			return nil, err
		}
		written = append(written, p)
	}
	return written, nil
}

// create writes text to a new file at p: O_EXCL refuses a file, a link or
// a device there.
func create(p, text string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s %w: cairn init writes no file over another", p, ErrExists)
		}
		return err
	}
	_, err = f.WriteString(strings.TrimLeft(text, "\n"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
