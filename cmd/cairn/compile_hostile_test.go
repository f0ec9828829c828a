package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/codegen"
)

// hostileStrings are values that would run, split, glob or vanish if a
// compiled script took them for code rather than data.
var hostileStrings = []string{
	`it's`,
	`say "hi"`,
	`$(touch pwned)`,
	"`touch pwned`",
	`${HOME} $HOME $0 $1 $@ $$`,
	"two\nlines\n",
	"\n",
	"-e",
	"--",
	"-n -e \\c",
	`\`,
	`\n \t \\ \'`,
	`* ? [a-z] ~ ~root {a,b}`,
	`!! !$ ^x^y`,
	"a'b\"c`d$e\\f",
	`'; touch pwned; echo '`,
	`"; touch pwned; echo "`,
	"$'\\x41'",
	"%s %d %%",
	"tab\there\r\nCRLF",
	"bell\a back\b feed\f vtab\v esc\x1b del\x7f",
	"é ü 中文 🙂 \u202e",
	"EOF\nEOF'\n",
	"<<EOF\n$(touch pwned)\nEOF",
	"  leading and trailing blanks  ",
}

// randomHostile makes n strings of characters shells treat specially,
// mixed with letters and non-ASCII, from rng.
func randomHostile(rng *rand.Rand, n int) []string {
	const alphabet = "$`'\"\\\n\t !*?[]{}()<>|&;#~=%^-_aZ09é中🙂"
	chars := []rune(alphabet)
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 1 + rng.IntN(40) {
			b.WriteRune(chars[rng.IntN(len(chars))])
		}
		out[i] = b.String()
	}
	return out
}

// tomlString writes s as a TOML basic string, escaping what TOML needs
// escaped.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestCompileHostileStrings feeds hostile strings into every place a
// process file puts data into a compiled script — env values, command
// scripts, precheck whys, an inline prompt, the description — and the
// directive, and asserts that each arrives byte for byte as data: a command
// prints $V and its own quoted text back, a skip's cause is logged as cairn
// run logs it, the fake agent reads the prompt cairn run gives it, --help
// shows the description, and nothing they hold ever runs.
func TestCompileHostileStrings(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	values := append(append([]string(nil), hostileStrings...), randomHostile(rand.New(rand.NewPCG(seed, seed)), 8)...)

	var f strings.Builder
	f.WriteString("version = 1\n")
	f.WriteString("description = " + tomlString(strings.Join(values, " | ")) + "\n")
	for i, v := range values {
		quoted, err := codegen.BashQuote(v)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&f, "\n[[steps]]\nname = \"env-%d\"\ncommand = 'printf %%s \"$V\" > \"$CAIRN_RESULT\"'\nenv = { V = %s }\n", i, tomlString(v))
		fmt.Fprintf(&f, "\n[[steps]]\nname = \"cmd-%d\"\ncommand = %s\n", i, tomlString("printf %s "+quoted+` > "$CAIRN_RESULT"`))
		fmt.Fprintf(&f, "\n[[steps]]\nname = \"why-%d\"\ncommand = \"touch pwned\"\n\n[steps.precheck]\nshells = ['exit $CHECK_SKIP']\nwhys = [%s]\n", i, tomlString(v))
	}
	fmt.Fprintf(&f, "\n[[steps]]\nname = \"ask\"\nharness = \"claude\"\nprompt = %s\n", tomlString(strings.Join(values, "\n---\n")))
	file := filepath.Join(t.TempDir(), "hostile.toml")
	if err := os.WriteFile(file, []byte(f.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	directive := strings.Join(values[:12], " ")
	args := []string{"--directive", directive}

	a := newCompileWork(t, file)
	stdout, stderr, code := a.run(t, nil, append([]string{"cairn", "run", "hostile.toml"}, args...)...)
	if code != 0 {
		t.Fatalf("cairn run: exit %d\n%s", code, stderr)
	}
	ra := a.record(t, code, stdout, "")

	b := newCompileWork(t, file)
	b.compile(t, file)
	script := filepath.Join(b.work, "hostile.sh")
	stdout, stderr, code = b.run(t, nil, append([]string{"bash", script}, args...)...)
	if code != 0 {
		t.Fatalf("script: exit %d\n%s", code, stderr)
	}
	rb := b.record(t, code, stdout, "")
	// A script writes a non-printable character other than a control
	// character (U+202E) into a quoted log value as it is, where cairn
	// escapes it: the values compare unquoted.
	ra.log, rb.log = canonicalCauses(t, ra.log), canonicalCauses(t, rb.log)
	compareRuns(t, ra, rb)

	runs, _ := filepath.Glob(filepath.Join(b.home, "runs", "hostile_*"))
	if len(runs) != 1 {
		t.Fatalf("want one run of the script, have %v", runs)
	}
	for i, v := range values {
		for _, step := range []string{fmt.Sprintf("env-%d", i), fmt.Sprintf("cmd-%d", i)} {
			got, err := os.ReadFile(filepath.Join(runs[0], "results", step+".md"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != v {
				t.Errorf("step %s printed %q; want %q", step, got, v)
			}
		}
	}
	logText, err := os.ReadFile(filepath.Join(runs[0], "log"))
	if err != nil {
		t.Fatal(err)
	}
	causes := map[string]string{}
	cause := regexp.MustCompile(`^step=(why-\d+) .* outcome=skipped cause=(.*)$`)
	for line := range strings.Lines(string(logText)) {
		if m := cause.FindStringSubmatch(strings.TrimSuffix(line, "\n")); m != nil {
			c := m[2]
			if strings.HasPrefix(c, `"`) {
				if c, err = strconv.Unquote(c); err != nil {
					t.Errorf("step %s: cause %s does not unquote: %v", m[1], m[2], err)
				}
			}
			causes[m[1]] = c
		}
	}
	for i, v := range values {
		if got := causes[fmt.Sprintf("why-%d", i)]; got != v {
			t.Errorf("step why-%d: logged cause %q; want %q", i, got, v)
		}
	}
	stdin, err := os.ReadFile(filepath.Join(b.work, "fakelog", "claude.1", "stdin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{strings.TrimSpace(strings.Join(values, "\n---\n")), strings.TrimSpace(directive)} {
		if !strings.Contains(string(stdin), want) {
			t.Errorf("the agent's prompt lacks %q", want)
		}
	}
	help, _, code := b.run(t, nil, "bash", script, "--help")
	if code != 0 || !strings.Contains(help, strings.Join(values, " | ")) {
		t.Errorf("--help (exit %d) does not show the description byte for byte:\n%s", code, help)
	}
	for _, w := range []*compileWork{a, b} {
		_ = filepath.WalkDir(w.work, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Name() == "pwned" {
				t.Errorf("a hostile string ran: %s exists", p)
			}
			return nil
		})
	}
	if !utf8.ValidString(string(stdin)) {
		t.Errorf("the agent's prompt is not valid UTF-8")
	}
}

// canonicalCauses rewrites each log line's quoted cause as Go quotes it.
func canonicalCauses(t *testing.T, lines []string) []string {
	t.Helper()
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if head, c, ok := strings.Cut(l, " cause="); ok && strings.HasPrefix(c, `"`) {
			v, err := strconv.Unquote(c)
			if err != nil {
				t.Errorf("log line %q: cause does not unquote: %v", l, err)
			}
			l = head + " cause=" + strconv.Quote(v)
		}
		out = append(out, l)
	}
	return out
}

// TestCompileRefusesNUL refuses a value no bash word can hold, at its place.
func TestCompileRefusesNUL(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "nul.toml")
	src := "version = 1\n\n[[steps]]\nname = \"a\"\ncommand = 'echo \"$V\"'\nenv = { V = \"a\\u0000b\" }\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newCompileWork(t, file)
	stdout, stderr, code := w.run(t, nil, "cairn", "compile", "nul.toml")
	if code != 1 || stdout != "" {
		t.Fatalf("cairn compile: exit %d, stdout %q; want 1 and nothing", code, stdout)
	}
	// check refuses it first, as it does for cairn run: no process can
	// carry a NUL in its environment.
	if !regexp.MustCompile(`(?m)^nul\.toml:6:13: error: environment variable "V" holds a NUL character \(\\u0000\), which no command line or environment can carry; remove it \[invalid-value\]$`).MatchString(stderr) {
		t.Errorf("stderr:\n%s", stderr)
	}
}
