package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// readmeFile is the README whose walk TestFirstProcess runs.
var readmeFile = filepath.Join("..", "..", "README.md")

// walk is the README's "Your first process": the files it has the user
// write (home-relative path → content) and the commands it has them run, in
// order, as written.
type walk struct {
	files    map[string]string
	commands []string
}

// readWalk reads the walk from the README: the section's toml blocks, each
// a file whose first line names its path under ~ ("# ~/.cairn/…"), and its
// sh blocks, a command a line.
func readWalk(t *testing.T) walk {
	t.Helper()
	b, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	const heading = "\n## Your first process\n"
	_, section, ok := strings.Cut(string(b), heading)
	if !ok {
		t.Fatalf("README.md has no %q section", strings.TrimSpace(heading))
	}
	section, _, _ = strings.Cut(section, "\n## ")
	w := walk{files: map[string]string{}}
	var lang string
	var block []string
	for _, line := range strings.Split(section, "\n") {
		switch {
		case lang == "" && strings.HasPrefix(line, "```"):
			lang, block = strings.TrimPrefix(line, "```"), nil
			if lang == "" {
				t.Fatalf("README's walk has a code block with no language")
			}
		case lang != "" && line == "```":
			switch lang {
			case "toml":
				name, ok := strings.CutPrefix(block[0], "# ~/")
				if !ok {
					t.Fatalf("a toml block of the README's walk does not start with the path it is written to (# ~/…): %q", block[0])
				}
				w.files[name] = strings.Join(block, "\n") + "\n"
			case "sh":
				for _, cmd := range block {
					if strings.TrimSpace(cmd) != "" {
						w.commands = append(w.commands, cmd)
					}
				}
			default:
				t.Fatalf("README's walk has a %s block, which this test does not run", lang)
			}
			lang = ""
		case lang != "":
			block = append(block, line)
		}
	}
	if lang != "" {
		t.Fatalf("README's walk has a %s block that does not end", lang)
	}
	if len(w.files) == 0 || len(w.commands) == 0 {
		t.Fatalf("README's walk has %d files and %d commands", len(w.files), len(w.commands))
	}
	return w
}

// walkProcess is what the test needs to know of the walk's process file.
type walkProcess struct {
	Description string
	Steps       []struct {
		Name   string
		Prompt string
		Access string
	}
}

// walkStubs is what the test needs to know of the walk's stubs file.
type walkStubs struct {
	Stubs map[string]struct {
		Result string
	}
}

// TestFirstProcess runs the README's "Your first process" as a user would:
// its files written where their first lines say, under a HOME of their own
// (so ~/.cairn is cairn's home, CAIRN_HOME unset), and its commands, exactly
// as the README writes them, run with bash one after another in a repository
// with a few commits, with a fake claude on PATH for the real run. Each must
// exit 0 and show what the walk says it shows; the repository is left as it
// was. The walk is read from README.md, so the two cannot drift apart.
func TestFirstProcess(t *testing.T) {
	t.Parallel()
	w := readWalk(t)
	work := t.TempDir()
	home := filepath.Join(work, "home")
	repo := filepath.Join(work, "repo")

	var process, test string
	var proc walkProcess
	var stubs walkStubs
	for name, content := range w.files {
		var err error
		switch {
		case strings.HasSuffix(name, ".stubs.toml"):
			err = toml.Unmarshal([]byte(content), &stubs)
		case strings.HasSuffix(name, ".test.toml"):
			test = filepath.Join(home, name)
		default:
			process = strings.TrimSuffix(filepath.Base(name), ".toml")
			err = toml.Unmarshal([]byte(content), &proc)
		}
		if err != nil {
			t.Fatalf("README's %s: %v", name, err)
		}
	}
	if process == "" || test == "" || len(stubs.Stubs) == 0 || len(proc.Steps) == 0 {
		t.Fatalf("README's walk lacks a process with steps, a stubs file or a test file: %v", w.files)
	}
	writeFiles(t, home, w.files)

	writeFiles(t, repo, map[string]string{"parse.go": "package parse\n"})
	gitRepo(t, repo)
	for i, msg := range []string{"Read CRLF files", "Test CRLF files"} {
		writeFiles(t, repo, map[string]string{"parse_test.go": strings.Repeat("// a test\n", i+1)})
		runGit(t, repo, "add", "-A")
		runGit(t, repo, "commit", "-q", "-m", msg)
	}

	bin := filepath.Join(work, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"fake.bash": 0o644, "claude": 0o755} {
		if err := copyFake(filepath.Join(fakesDir, name), filepath.Join(bin, name), mode); err != nil {
			t.Fatal(err)
		}
	}
	const answer = "Two commits: the parser reads CRLF files, and a test covers it."
	writeFiles(t, work, map[string]string{"answers/claude": answer + "\n"})
	fakeLog := filepath.Join(work, "fakelog")

	env := []string{"HOME=" + home, "FAKE_LOG=" + fakeLog, "FAKE_ANSWERS=" + filepath.Join(work, "answers")}
	for k, v := range testEnv(t, work) {
		if k != "HOME" && k != "CAIRN_HOME" {
			env = append(env, k+"="+v)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	claudeSessions := func() []string {
		var argvs []string
		calls, _ := filepath.Glob(filepath.Join(fakeLog, "claude.*"))
		for _, c := range calls {
			argv, err := os.ReadFile(filepath.Join(c, "argv"))
			if err == nil && bytes.Contains(argv, []byte("-p\n")) {
				stdin, _ := os.ReadFile(filepath.Join(c, "stdin"))
				argvs = append(argvs, string(argv)+"\n"+string(stdin))
			}
		}
		return argvs
	}

	// What each command of the walk must show, keyed by the command
	// without its comment.
	checks := map[string]func(t *testing.T, stdout, stderr string){
		"cairn list": func(t *testing.T, stdout, _ string) {
			if want := filepath.Join(home, ".cairn", "processes", process+".toml"); !strings.Contains(stdout, want) ||
				!strings.HasPrefix(stdout, process+" ") || !strings.Contains(stdout, proc.Description) {
				t.Errorf("list shows no line for %q (%s, %q):\n%s", process, want, proc.Description, stdout)
			}
		},
		"cairn check " + process: func(t *testing.T, stdout, _ string) {
			for i, s := range proc.Steps {
				if want := "stage " + strconv.Itoa(i+1) + ": " + s.Name + "\n"; !strings.Contains(stdout, want) {
					t.Errorf("the plan lacks %q:\n%s", want, stdout)
				}
				if s.Access != "" && !strings.Contains(stdout, "access     "+s.Access+" (step)") {
					t.Errorf("the plan does not give step %q access %s:\n%s", s.Name, s.Access, stdout)
				}
			}
		},
		"cairn run " + process + " --stubs ~/.cairn/processes/" + process + ".stubs.toml": func(t *testing.T, stdout, stderr string) {
			last := proc.Steps[len(proc.Steps)-1].Name
			if want := stubs.Stubs[last].Result + "\n"; stdout != want {
				t.Errorf("the stubbed run printed %q, want its stub's answer %q", stdout, want)
			}
			if !strings.Contains(stderr, "stubbed run") {
				t.Errorf("the stubbed run does not say it is stubbed:\n%s", stderr)
			}
			if s := claudeSessions(); len(s) != 0 {
				t.Errorf("the stubbed run started claude:\n%s", s)
			}
		},
		"cairn run " + process: func(t *testing.T, stdout, _ string) {
			if stdout != answer+"\n" {
				t.Errorf("the real run printed %q, want the agent's answer %q", stdout, answer)
			}
			s := claudeSessions()
			if len(s) != 1 {
				t.Fatalf("the real run started %d claude sessions, want 1", len(s))
			}
			last := proc.Steps[len(proc.Steps)-1]
			if !strings.Contains(s[0], last.Prompt) || !strings.Contains(s[0], "--permission-mode\ndontAsk\n") {
				t.Errorf("the session was not started with the step's prompt at read access:\n%s", s[0])
			}
		},
		"cairn show": func(t *testing.T, stdout, _ string) {
			for _, s := range proc.Steps {
				if want := "step=" + s.Name + " "; !strings.Contains(stdout, want) {
					t.Errorf("show lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stdout, "status      succeeded\n") || strings.Contains(stdout, "stubbed") {
				t.Errorf("show is not of the real run, succeeded:\n%s", stdout)
			}
		},
		"cairn test": func(t *testing.T, stdout, stderr string) {
			if !strings.HasPrefix(stdout, "ok   "+test+"  "+process+"  succeeded") {
				t.Errorf("test passed no case %s:\n%s", test, stdout)
			}
			if strings.TrimSpace(stderr) != "1 passed, 0 failed" {
				t.Errorf("test's summary: %q", stderr)
			}
		},
	}
	ran := map[string]bool{}
	for _, line := range w.commands {
		cmd, _, _ := strings.Cut(line, " #")
		cmd = strings.TrimSpace(cmd)
		check, ok := checks[cmd]
		if !ok {
			t.Fatalf("the README's walk runs %q, which this test does not know what to expect of", cmd)
		}
		ran[cmd] = true
		c := exec.Command(bash, "--noprofile", "--norc", "-c", line)
		c.Dir, c.Env = repo, env
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("%s exited %d\n%s%s", line, exit.ExitCode(), &stdout, &stderr)
		} else if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		t.Run(cmd, func(t *testing.T) { check(t, stdout.String(), stderr.String()) })
	}
	for cmd := range checks {
		if !ran[cmd] {
			t.Errorf("the README's walk no longer runs %q", cmd)
		}
	}
	if st := runGit(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("the walk left changes in the repository:\n%s", st)
	}
	if wl := runGit(t, repo, "worktree", "list"); strings.Count(wl, "\n") != 1 {
		t.Errorf("the walk left worktrees behind:\n%s", wl)
	}
}
