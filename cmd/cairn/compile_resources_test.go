package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCompileDifferentialResources runs a process under a config whose
// [resources] the machine never has (more free memory than any has, and
// a load average it is always below), with cairn run and as its script:
// the session waits, says what for, and after the config's wait starts
// anyway with a warning saying so; the command does not wait. Both say
// the same, and end alike.
func TestCompileDifferentialResources(t *testing.T) {
	fastSuite(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"resources.toml": `version = 1

[[steps]]
name = "look"
prompt = "Look around."
harness = "claude"

[[steps]]
name = "count"
command = "echo 3"
`,
		"resources.config.toml": `[resources]
max_load = 1000000.0
min_free_memory = "1000TiB"
wait = "1s"
`,
	})
	file := filepath.Join(dir, "resources.toml")
	// What the machine had is another reading in each run, and a step
	// takes another time.
	now := regexp.MustCompile(`\(now [0-9.]+[KMGT]?i?B\)`)
	took := regexp.MustCompile(`(?m)^(done \S+) \S+$`)
	runs, shown := twinRuns(t, file, 0)
	for i := range shown {
		shown[i] = took.ReplaceAllString(now.ReplaceAllString(shown[i], "(now N)"), "$1 D")
	}
	compareRuns(t, runs[0], runs[1])
	if shown[0] != shown[1] {
		t.Errorf("stderr: cairn run\n%q\nthe script\n%q", shown[0], shown[1])
	}
	for _, want := range []string{
		"look: waiting for 1000TiB of free memory (now N)\n",
		"warning: step look: waited 1s for 1000TiB of free memory (now N); starting anyway\n",
	} {
		if strings.Count(shown[1], want) != 1 {
			t.Errorf("the script's stderr holds %q %d times; want once:\n%s", want, strings.Count(shown[1], want), shown[1])
		}
	}
	if strings.Contains(shown[1], "count: waiting") {
		t.Errorf("the command waited:\n%s", shown[1])
	}
	if _, err := os.Stat(filepath.Join(dir, "resources.sh")); err == nil {
		t.Error("compile wrote beside the process file")
	}
}
