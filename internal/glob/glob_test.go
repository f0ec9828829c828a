package glob

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

var cases = []struct {
	glob  string
	match []string
	miss  []string
}{
	{".env", []string{".env"}, []string{"a/.env", ".env.local", "xenv"}},
	{"**/.env", []string{".env", "a/.env", "a/b/.env"}, []string{"a/.envx", "a.env"}},
	{"config/*.yml", []string{"config/local.yml", "config/.yml"}, []string{"config/a/b.yml", "config/a.yaml"}},
	{"config/**", []string{"config/a", "config/a/b"}, []string{"configx/a", "other/config/a"}},
	{"*.{env,key}", []string{"a.env", "b.key"}, []string{"a.pem", "d/a.env"}},
	{"log?.txt", []string{"log1.txt"}, []string{"log.txt", "log12.txt", "log/.txt"}},
	{"[a-c]x", []string{"ax", "cx"}, []string{"dx", "/x"}},
	{"[!a]x", []string{"bx", "]x"}, []string{"ax"}},
	{"a\\*b", []string{"a*b"}, []string{"axb"}},
	{"a.b+(c)", []string{"a.b+(c)"}, []string{"axb+(c)", "a.bb(c)"}},
	{"[\\]^-]", []string{"]", "^", "-"}, []string{"a"}},
	{"x/**/y", []string{"x/y", "x/a/y", "x/a/b/y"}, []string{"x/ay", "xy"}},
}

func TestRegexpMatchesAsDoublestar(t *testing.T) {
	t.Parallel()
	for _, c := range cases {
		re, err := Regexp(c.glob)
		if err != nil {
			t.Errorf("Regexp(%q): %v", c.glob, err)
			continue
		}
		rx := regexp.MustCompile(re)
		for _, p := range c.match {
			if !Match(c.glob, p) || !rx.MatchString(p) {
				t.Errorf("glob %q (regexp %q) does not match %q: doublestar %v", c.glob, re, p, Match(c.glob, p))
			}
		}
		for _, p := range c.miss {
			if Match(c.glob, p) || rx.MatchString(p) {
				t.Errorf("glob %q (regexp %q) matches %q: doublestar %v", c.glob, re, p, Match(c.glob, p))
			}
		}
	}
}

// TestRegexpInBash: bash's [[ =~ ]] reads each regexp as Go does.
func TestRegexpInBash(t *testing.T) {
	t.Parallel()
	var script strings.Builder
	var want strings.Builder
	for _, c := range cases {
		re, _ := Regexp(c.glob)
		for _, p := range append(append([]string{}, c.match...), c.miss...) {
			script.WriteString("re=" + quote(re) + " p=" + quote(p) + "; if [[ $p =~ $re ]]; then echo 1; else echo 0; fi\n")
			if regexp.MustCompile(re).MatchString(p) {
				want.WriteString("1\n")
			} else {
				want.WriteString("0\n")
			}
		}
	}
	out, err := exec.Command("bash", "-c", script.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v: %s", err, out)
	}
	if string(out) != want.String() {
		t.Errorf("bash matched\n%s\nwant\n%s", out, want.String())
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestCheck(t *testing.T) {
	t.Parallel()
	for glob, want := range map[string]string{
		"":           "empty",
		"/etc/x":     "absolute",
		"../x":       "outside",
		"a/../../x":  "outside",
		"a[":         "not a valid glob",
		"{a,b":       "not a valid glob",
		"[]":         "not a valid glob",
		"config/*.y": "",
	} {
		err := Check(glob)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Check(%q) = %v; want %q", glob, err, want)
		}
	}
}

// FuzzRegexp: every glob Check accepts has a regexp that matches a path
// exactly when doublestar does.
func FuzzRegexp(f *testing.F) {
	for _, c := range cases {
		for _, p := range append(append([]string{}, c.match...), c.miss...) {
			f.Add(c.glob, p)
		}
	}
	f.Fuzz(func(t *testing.T, glob, path string) {
		if Check(glob) != nil || strings.ContainsAny(path, "\x00") || !utf8Valid(glob+path) {
			return
		}
		re, err := Regexp(glob)
		if err != nil {
			t.Fatalf("Check accepts %q, Regexp refuses it: %v", glob, err)
		}
		if got, want := regexp.MustCompile(re).MatchString(path), Match(glob, path); got != want {
			t.Fatalf("glob %q, path %q: regexp %q says %v, doublestar %v", glob, path, re, got, want)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
