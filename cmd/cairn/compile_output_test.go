package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// failedOutput is a process whose command steps fail after writing output
// a terminal would garble: an optional one that wrote its $CAIRN_RESULT
// (its output is not its result), then one whose many lines carry a tab,
// an overwriting carriage return, colour, a line past 200 characters and
// bytes that are not UTF-8, and end with a line past 100.
const failedOutput = `version = 1

[[steps]]
name = "quiet"
optional = true
command = '''
echo "what it says" >"$CAIRN_RESULT"
echo "and what it writes"
exit 2
'''

[[steps]]
name = "noisy"
command = '''
for i in $(seq 1 12); do echo "line $i"; done
printf 'a\tb\n'
printf 'progress 10%%\rprogress 100%%\n'
printf '\033[31mred\033[0m \xff\xfe bytes\n' >&2
printf 'long %0300d\n' 0
echo "fatal: $(printf 'x%.0s' $(seq 1 120))" >&2
exit 3
'''
`

// progressLine is a line of the progress on stderr: its time, then what
// it says.
var progressLine = regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d `)

// TestCompileDifferentialCommandOutput runs failedOutput with cairn run and
// as its script: the records keep the same count and end of the failed
// commands' output, the failed step's end shows them the same, and the run
// ends with the same line, which quotes the last line of output.
func TestCompileDifferentialCommandOutput(t *testing.T) {
	fastSuite(t)
	file := filepath.Join(t.TempDir(), "output.toml")
	if err := os.WriteFile(file, []byte(failedOutput), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, shown := twinRuns(t, file, 1)
	compareRuns(t, runs[0], runs[1])
	if shown[0] != shown[1] {
		t.Errorf("stderr: cairn run\n%s\nthe script\n%s", shown[0], shown[1])
	}
	want := []string{
		"failed quiet (optional): exit status 2\n           command: exit status 2; its output:\n           | and what it writes\n",
		"           command: exit status 3; the last 10 of its 17 lines of output:\n           | line 8\n",
		"           | a    b\n           | progress 100%\n           | red \ufffd bytes\n",
		"           output  $WORK/home/runs/output_$STAMP/results/noisy.md\n",
		"cairn: failed at step noisy: exit status 3 (fatal: " + strings.Repeat("x", 92) + "…)\n",
	}
	for _, w := range want {
		if !strings.Contains(shown[1], w) {
			t.Errorf("the script's stderr lacks %q:\n%s", w, shown[1])
		}
	}
	for _, r := range runs {
		if !strings.Contains(r.record, `"output_in_result": true`) || !strings.Contains(r.record, `"lines": 17`) {
			t.Errorf("a record keeps no output of noisy:\n%s", r.record)
		}
	}
}

// twinRuns runs the process in file with cairn run, then as its script,
// each in a twin of its own, and fails the test unless each exits code.
// It returns their records and what they showed on stderr, without the
// progress lines' times, the twin's folder as $WORK and run names' stamps
// as _$STAMP.
func twinRuns(t *testing.T, file string, code int) ([2]*runRecord, [2]string) {
	t.Helper()
	name := strings.TrimSuffix(filepath.Base(file), ".toml")
	var runs [2]*runRecord
	var shown [2]string
	for i, script := range []bool{false, true} {
		w := newCompileWork(t, file)
		argv := []string{"cairn", "run", name + ".toml"}
		if script {
			w.compile(t, file)
			argv = []string{"bash", filepath.Join(w.work, name+".sh")}
		}
		stdout, stderr, got := w.run(t, nil, argv...)
		runs[i] = w.record(t, got, stdout, "")
		if got != code {
			t.Errorf("%v: exit %d; want %d\n%s", argv, got, code, stderr)
		}
		shown[i] = runStamp.ReplaceAllString(strings.ReplaceAll(progressLine.ReplaceAllString(stderr, ""), w.work, "$WORK"), "_$$STAMP")
	}
	return runs, shown
}
